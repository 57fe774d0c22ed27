# shellcheck shell=bash
# Shared helpers for the scripts in this directory. Source it, don't run it:
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Messages go to stderr so that stdout stays usable for data.
log()  { printf '[%s] %s\n' "${LIB_LOG_TAG:-${0##*/}}" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "${LIB_LOG_TAG:-${0##*/}}" "$*" >&2; }
die()  { printf '[%s] ERROR: %s\n' "${LIB_LOG_TAG:-${0##*/}}" "$*" >&2; exit 1; }

# Run a command as root (directly when we are root, else through sudo -n).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -n "$@"
    else
        die "need root for: $*"
    fi
}

# apt_install PKG...: install Debian packages non-interactively.
# Tries without refreshing the package lists first (fast when the lists are
# fresh); on failure runs `apt-get update` once per process and retries.
_LIB_APT_UPDATED=${_LIB_APT_UPDATED:-0}
apt_update_once() {
    if [ "$_LIB_APT_UPDATED" = 0 ]; then
        log "apt-get update"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
            || die "apt-get update failed"
        _LIB_APT_UPDATED=1
    fi
}
# Returns non-zero (after printing the log's tail) when the install fails.
apt_install() {
    local aptlog
    aptlog=$(mktemp /tmp/apt-install.XXXXXX.log)
    log "apt-get install -y $*"
    # If the package lists were never downloaded, update first.
    if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
        apt_update_once
    fi
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
            "$@" >"$aptlog" 2>&1; then
        apt_update_once
        if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
                "$@" >"$aptlog" 2>&1; then
            tail -n 30 "$aptlog" >&2
            warn "apt-get install $* failed (full log: $aptlog)"
            return 1
        fi
    fi
    rm -f "$aptlog"
}

# Path of the PostgreSQL 15 installation on the host.
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}

# ensure_host_postgres: make sure the host has PostgreSQL 15's binaries.
ensure_host_postgres() {
    if [ -x "$PG_BINDIR/postgres" ] && [ -x "$PG_BINDIR/initdb" ]; then
        return 0
    fi
    log "PostgreSQL 15 not found in $PG_BINDIR; installing it"
    apt_install postgresql-15 || apt_install postgresql || true
    [ -x "$PG_BINDIR/postgres" ] || die "no $PG_BINDIR/postgres after installing PostgreSQL"
}

# wait_until_serving BASE_URL PID LOG: wait (at most 60 s) until the server
# with process PID answers BASE_URL/healthz; die with its LOG if it exits first.
wait_until_serving() {
    local base=$1 pid=$2 serve_log=$3
    for _ in $(seq 1 600); do
        curl -sf -o /dev/null "$base/healthz" && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$serve_log" >&2; die "pricing serve exited"; }
        sleep 0.1
    done
    die "pricing serve did not start within 60 s (see $serve_log)"
}
