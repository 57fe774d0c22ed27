#!/usr/bin/env bash
# build-postgres-image.sh: build the local PostgreSQL 15 image used by the tests
# from the host's own PostgreSQL 15 (no registry is needed or contacted).
#
# Usage:  scripts/build-postgres-image.sh [--force]
#   Idempotent: does nothing when the image exists and was built by this same
#   recipe (the script's hash is in the label pricing.pg-image.recipe);
#   --force rebuilds anyway. Starts Docker first (scripts/ensure-docker.sh) and
#   installs postgresql-15 on the host when /usr/lib/postgresql/15/bin/postgres
#   is missing. Prints the image name on stdout.
#
# Image: ${PRICING_PG_IMAGE:-pricing-postgres:15}
#   docker run -d -p 127.0.0.1::5432 pricing-postgres:15 [postgres] [-c fsync=off ...]
#   - initdb on first start only (data dir empty): superuser $POSTGRES_USER
#     (default postgres), trust auth for every local/host connection, locale C,
#     encoding UTF8, data in $PGDATA (default /var/lib/postgresql/data, inside
#     the container: `docker stop` + `docker start` keeps the data).
#     POSTGRES_PASSWORD is accepted (set as the password; trust auth ignores it),
#     POSTGRES_DB is created when set, POSTGRES_INITDB_ARGS go to initdb.
#   - PRICING_PG_PRIMARY=host[:port]: on first start (data dir empty), a
#     streaming hot standby of that primary instead of initdb (pg_basebackup
#     -R; the primary's pg_hba of this image trusts replication connections).
#   - extra arguments go to postgres (e.g. -c fsync=off -c max_connections=300);
#     listen_addresses='*' is always set.
#   - postgres runs as PID 1 (user postgres, uid 999) and STOPSIGNAL is SIGINT:
#     `docker stop` is a fast shutdown that does not wait for clients.
#   - READY LINE: once per container start, when the server accepts TCP
#     connections on 127.0.0.1 inside the container, the entrypoint prints this
#     line on STDOUT (and only there):
#         PRICING_PG_READY database system is ready to accept connections
#     Wait for "PRICING_PG_READY" on stdout (testcontainers:
#     WaitFor::message_on_stdout("PRICING_PG_READY")). PostgreSQL's own
#     "database system is ready to accept connections" goes to stderr, once per
#     start as well, so testcontainers-modules' Postgres (which waits for that
#     phrase on stderr and on stdout) also works with this image.
#     After `docker start` of a stopped container the line comes again (count
#     them: the logs keep the earlier ones) and the published host port may
#     have changed: ask `docker port` again.
#   - JIT is not included (no LLVM); jit=off is the effect.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
LIB_LOG_TAG=build-postgres-image

IMAGE=${PRICING_PG_IMAGE:-pricing-postgres:15}
PG_VERSION_MAJOR=15
PG_LIBDIR=/usr/lib/postgresql/$PG_VERSION_MAJOR
PG_SHAREDIR=/usr/share/postgresql/$PG_VERSION_MAJOR
PG_UID=999
PG_GID=999
READY_LINE="PRICING_PG_READY database system is ready to accept connections"

FORCE=0
for arg in "$@"; do
    case $arg in
        --force|-f) FORCE=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (usage: $0 [--force])" ;;
    esac
done

"$HERE/ensure-docker.sh"
DOCKER=$(command -v docker || echo /usr/bin/docker)
ensure_host_postgres

# The recipe's identity: this script (with the entrypoint it writes) and the
# host's PostgreSQL build. A change to either rebuilds the image.
PG_BUILD=$("$PG_BINDIR/postgres" --version)
RECIPE=$( { cat "${BASH_SOURCE[0]}"; echo "$PG_BUILD"; } | sha256sum | cut -c1-16)

if [ "$FORCE" = 0 ]; then
    have=$("$DOCKER" image inspect --format '{{index .Config.Labels "pricing.pg-image.recipe"}}' "$IMAGE" 2>/dev/null || true)
    if [ "$have" = "$RECIPE" ]; then
        log "$IMAGE is up to date (recipe $RECIPE)"
        echo "$IMAGE"
        exit 0
    elif [ -n "$have" ]; then
        log "$IMAGE was built by another recipe ($have); rebuilding"
    fi
fi

START=$SECONDS
ROOT=$(mktemp -d /tmp/pricing-pg-rootfs.XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
log "assembling the root tree in $ROOT from $PG_BUILD"

# Debian 12 is merged-/usr: keep the same layout so every path ldd prints works.
mkdir -p "$ROOT"/usr/{bin,sbin,lib,lib64} "$ROOT"/usr/local/bin
ln -s usr/bin "$ROOT/bin"
ln -s usr/sbin "$ROOT/sbin"
ln -s usr/lib "$ROOT/lib"
ln -s usr/lib64 "$ROOT/lib64"

# copy_file PATH: copy PATH into the tree at the same place, following and
# recreating every symlink on the way (e.g. libz.so.1 -> libz.so.1.2.13).
declare -A COPIED=()
copy_file() {
    local p=$1 dir base dest target n=0
    while :; do
        [ -z "${COPIED[$p]:-}" ] || return 0
        COPIED[$p]=1
        dir=$(realpath -e "$(dirname "$p")")
        base=$(basename "$p")
        dest="$ROOT$dir"
        mkdir -p "$dest"
        if [ -L "$dir/$base" ]; then
            cp -P --preserve=mode,timestamps "$dir/$base" "$dest/$base"
            target=$(readlink "$dir/$base")
            case $target in /*) p=$target ;; *) p=$dir/$target ;; esac
            n=$((n + 1)); [ "$n" -lt 20 ] || die "symlink loop at $1"
        else
            cp --preserve=mode,timestamps "$dir/$base" "$dest/$base"
            return 0
        fi
    done
}

# copy_with_libs FILE...: the files plus every shared library ldd lists for
# them (and the dynamic loader).
copy_with_libs() {
    local f lib
    for f in "$@"; do
        copy_file "$f"
        while read -r lib; do
            [ -n "$lib" ] && copy_file "$lib"
        done < <(ldd "$f" 2>/dev/null | awk '
            $2 == "=>" && $3 ~ /^\// { print $3; next }
            $1 ~ /^\// { print $1 }')
    done
}

# PostgreSQL itself, without JIT (LLVM is ~100 MB), bitcode, pgxs and man pages.
tar -C / -cf - \
    --exclude="${PG_LIBDIR#/}/lib/bitcode" \
    --exclude="${PG_LIBDIR#/}/lib/llvmjit*" \
    --exclude="${PG_LIBDIR#/}/lib/pgxs" \
    --exclude="${PG_SHAREDIR#/}/man" \
    "${PG_LIBDIR#/}" "${PG_SHAREDIR#/}" | tar -C "$ROOT" -xf -
# Debian's PostgreSQL uses the system time zone data.
if [ -d /usr/share/zoneinfo ]; then
    tar -C / -cf - --exclude=usr/share/zoneinfo/right usr/share/zoneinfo | tar -C "$ROOT" -xf -
else
    warn "no /usr/share/zoneinfo on the host: only UTC-like time zones will work"
fi

mapfile -t ELFS < <(
    find "$PG_LIBDIR/bin" -maxdepth 1 -type f
    find "$PG_LIBDIR/lib" -maxdepth 1 -type f -name '*.so' ! -name 'llvmjit*'
)
copy_with_libs "${ELFS[@]}"
# A shell and the few tools the entrypoint needs; setpriv drops root to postgres.
TOOLS=(dash setpriv id mkdir chown chmod sleep cat ls rm env locale)
for t in "${TOOLS[@]}"; do
    p=$(command -v "$t" || true)
    [ -n "$p" ] || die "host tool $t not found"
    copy_with_libs "$(realpath -e "$p")"
    [ -e "$ROOT/usr/bin/$t" ] || ln -s "$(realpath -e "$p")" "$ROOT/usr/bin/$t"
done
ln -sf dash "$ROOT/usr/bin/sh"
# glibc's C.UTF-8 locale (400 KB): LANG=C.UTF-8 works and initdb finds it.
if [ -d /usr/lib/locale/C.utf8 ]; then
    mkdir -p "$ROOT/usr/lib/locale"
    cp -a /usr/lib/locale/C.utf8 "$ROOT/usr/lib/locale/"
fi
for b in "$PG_LIBDIR"/bin/*; do
    ln -s "$b" "$ROOT/usr/local/bin/$(basename "$b")"
done

# /etc, users, writable directories.
mkdir -p "$ROOT"/{etc,root,tmp,dev,proc,sys,var/run/postgresql,var/lib/postgresql/data}
cat >"$ROOT/etc/passwd" <<EOF
root:x:0:0:root:/root:/bin/sh
postgres:x:$PG_UID:$PG_GID:PostgreSQL administrator:/var/lib/postgresql:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$ROOT/etc/group" <<EOF
root:x:0:
postgres:x:$PG_GID:
nogroup:x:65534:
EOF
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
: >"$ROOT/etc/resolv.conf"
: >"$ROOT/etc/hostname"
echo "$PG_BUILD (host build, pricing recipe $RECIPE)" >"$ROOT/etc/pricing-postgres-release"
chmod 1777 "$ROOT/tmp"
chmod 700 "$ROOT/root" "$ROOT/var/lib/postgresql/data"
chmod 2775 "$ROOT/var/run/postgresql"
chown -R "$PG_UID:$PG_GID" "$ROOT/var/lib/postgresql" "$ROOT/var/run/postgresql"

cat >"$ROOT/usr/local/bin/docker-entrypoint.sh" <<'ENTRYPOINT_EOF'
#!/bin/sh
# Entrypoint of the pricing-postgres image (written by scripts/build-postgres-image.sh).
#
# READY LINE: once per container start, as soon as the server accepts TCP
# connections on 127.0.0.1 inside the container, this prints on STDOUT:
#     PRICING_PG_READY database system is ready to accept connections
#
# Usage: docker run IMAGE [postgres] [postgres options, e.g. -c fsync=off]
#        docker run IMAGE COMMAND...   (any other first word is run as is)
set -eu

PGDATA=${PGDATA:-/var/lib/postgresql/data}
POSTGRES_USER=${POSTGRES_USER:-postgres}
PG_UID=999
PG_GID=999
export PGDATA

if [ "${1:-}" = postgres ] || [ "${1:-}" = postmaster ]; then
    shift
fi
case "${1:-}" in
    ''|-*) ;;
    *) exec "$@" ;;
esac

if [ "$(id -u)" = 0 ]; then
    as_pg() { setpriv --reuid="$PG_UID" --regid="$PG_GID" --clear-groups "$@"; }
    mkdir -p "$PGDATA" /var/run/postgresql
    chown "$PG_UID:$PG_GID" "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
else
    as_pg() { "$@"; }
fi

# The port postgres will listen on (for the readiness probe).
port=5432
prev=
for a in "$@"; do
    case "$prev" in -p) port=$a ;; esac
    case "$a" in
        port=*) port=${a#port=} ;;
        --port=*) port=${a#--port=} ;;
    esac
    prev=$a
done

# A streaming standby: with PRICING_PG_PRIMARY=host[:port] and an empty data
# dir, copy that primary (pg_basebackup as $POSTGRES_USER, WAL streamed) and
# follow it as a hot standby (standby.signal and primary_conninfo from -R).
if [ -n "${PRICING_PG_PRIMARY:-}" ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
    case $PRICING_PG_PRIMARY in
        *:*) primary_host=${PRICING_PG_PRIMARY%:*} primary_port=${PRICING_PG_PRIMARY##*:} ;;
        *) primary_host=$PRICING_PG_PRIMARY primary_port=5432 ;;
    esac
    echo "pricing-postgres: copying the primary $primary_host:$primary_port as a standby" >&2
    tries=0
    until as_pg pg_basebackup -h "$primary_host" -p "$primary_port" -U "$POSTGRES_USER" \
            -D "$PGDATA" -R -X stream -c fast --no-sync >&2; do
        tries=$((tries + 1))
        [ "$tries" -lt 60 ] || { echo "pricing-postgres: no primary at $PRICING_PG_PRIMARY" >&2; exit 1; }
        as_pg rm -rf "$PGDATA"/* 2>/dev/null || true
        sleep 1
    done
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    echo "pricing-postgres: initializing $PGDATA (superuser $POSTGRES_USER, trust auth)" >&2
    pwfile=
    if [ -n "${POSTGRES_PASSWORD:-}" ]; then
        pwfile=/tmp/.pricing-pgpass
        printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
        [ "$(id -u)" != 0 ] || chown "$PG_UID:$PG_GID" "$pwfile"
    fi
    # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS is a list of words
    as_pg initdb -D "$PGDATA" -U "$POSTGRES_USER" --auth=trust --locale=C --encoding=UTF8 \
        --no-sync ${pwfile:+--pwfile="$pwfile"} ${POSTGRES_INITDB_ARGS:-} >&2
    [ -z "$pwfile" ] || rm -f "$pwfile"
    cat >"$PGDATA/pg_hba.conf" <<'HBA'
# Written by the pricing-postgres entrypoint: a throwaway test server, trust for all.
# TYPE  DATABASE     USER  ADDRESS     METHOD
local   all          all               trust
host    all          all   0.0.0.0/0   trust
host    all          all   ::/0        trust
local   replication  all               trust
host    replication  all   0.0.0.0/0   trust
host    replication  all   ::/0        trust
HBA
    if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\";" \
            | as_pg postgres --single -j -D "$PGDATA" postgres >/dev/null
    fi
fi

# Readiness reporter. It outlives the exec below as a child of postgres (PID 1);
# it must exit with status 0 (postgres treats other exit codes of a child as
# a crash), and signals to it are ignored.
(
    trap '' INT TERM HUP QUIT
    while ! pg_isready -q -h 127.0.0.1 -p "$port" -U "$POSTGRES_USER" -d postgres -t 1 \
            >/dev/null 2>&1; do
        sleep 0.1 || true
    done
    echo "PRICING_PG_READY database system is ready to accept connections" || true
    exit 0
) &

if [ "$(id -u)" = 0 ]; then
    exec setpriv --reuid="$PG_UID" --regid="$PG_GID" --clear-groups \
        postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
ENTRYPOINT_EOF
chmod 755 "$ROOT/usr/local/bin/docker-entrypoint.sh"

# Smoke test of the tree itself: every ELF's libraries resolve inside it.
# shellcheck disable=SC2016  # expanded by the shell inside the tree
missing=$(chroot "$ROOT" /usr/bin/sh -c 'for f in /usr/lib/postgresql/15/bin/postgres /usr/bin/setpriv; do "$f" --version >/dev/null || echo "$f"; done' 2>&1 || true)
[ -z "$missing" ] || die "the tree is incomplete: $missing"

PG_PATH=$PG_LIBDIR/bin:/usr/local/bin:/usr/bin:/bin
OLD_ID=$("$DOCKER" image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
log "importing the tree ($(du -sh "$ROOT" | cut -f1))"
# `docker import --change` (engine 20.10) cannot set STOPSIGNAL, so import the
# bare tree, then set the metadata with a `docker build` FROM it (no registry:
# the base is local, and the legacy builder does not pull what it has).
BASE_TAG="pricing-postgres-rootfs:$RECIPE"
tar -C "$ROOT" --numeric-owner -cf - . \
    | "$DOCKER" import --message "pricing-postgres root tree from the host's $PG_BUILD" - "$BASE_TAG" >/dev/null
log "setting the image's metadata: $IMAGE"
BUILD_LOG=$ROOT.build.log
trap 'rm -rf "$ROOT" "$BUILD_LOG"' EXIT
DOCKER_BUILDKIT=0 "$DOCKER" build -t "$IMAGE" - >"$BUILD_LOG" 2>&1 <<DOCKERFILE_EOF || { cat "$BUILD_LOG" >&2; die "docker build failed"; }
FROM $BASE_TAG
ENV PATH=$PG_PATH PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
EXPOSE 5432
STOPSIGNAL SIGINT
WORKDIR /
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
LABEL pricing.pg-image.recipe="$RECIPE" pricing.pg-image.ready-line="$READY_LINE"
DOCKERFILE_EOF
# Untag the helper (its layer stays as the image's parent) and drop the image
# this build replaced (with its parent), unless a container still uses it.
"$DOCKER" rmi "$BASE_TAG" >/dev/null 2>&1 || true
NEW_ID=$("$DOCKER" image inspect --format '{{.Id}}' "$IMAGE")
if [ -n "$OLD_ID" ] && [ "$OLD_ID" != "$NEW_ID" ]; then
    "$DOCKER" rmi "$OLD_ID" >/dev/null 2>&1 || log "kept the previous image $OLD_ID (still in use)"
fi

log "built $IMAGE in $((SECONDS - START)) s ($("$DOCKER" image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
echo "$IMAGE"
