#!/usr/bin/env bash
# ensure-docker.sh: make sure a Docker engine answers on this machine.
#
# Usage:  scripts/ensure-docker.sh          (idempotent; safe to run concurrently)
#
# Exits 0 as soon as `docker info` works and the engine accepts current API
# clients. Otherwise, on this Debian machine:
#   1. installs Debian's docker.io when dockerd is missing (apt-get, non-interactive);
#   2. starts `dockerd` in the background (setsid + nohup, survives this script),
#      listening on $ENGINE_SOCK, log in $DOCKERD_LOG; if it dies at start it is
#      retried with --storage-driver=vfs, then also with --iptables=false;
#   3. starts a small API-version shim (python3, stdlib only) on
#      /var/run/docker.sock that forwards to $ENGINE_SOCK. Debian 12's engine is
#      20.10 and speaks Docker API <= 1.41; clients that pin a newer version
#      without negotiating it (bollard, hence Rust's testcontainers, pins 1.52)
#      would get "client version 1.52 is too new". The shim rewrites the version
#      in the request path down to the engine's maximum and passes everything
#      else through. The docker CLI itself negotiates and works either way.
#   4. waits (at most $PRICING_DOCKER_WAIT_SECS, default 60 s) until `docker info`
#      works, else fails with the tail of the daemon's log.
#
# Environment:
#   DOCKER_HOST                 if set, only checks that `docker info` works there.
#   PRICING_DOCKER_WAIT_SECS    how long to wait for the engine (default 60).
#   PRICING_DOCKER_REQUIRED_API API version clients must be able to use (default 1.52).
#
# Files: /var/log/pricing-dockerd.log, /var/log/pricing-docker-api-compat.log,
#        /usr/local/libexec/pricing/docker-api-compat.py (written by this script).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
LIB_LOG_TAG=ensure-docker

PUBLIC_SOCK=/var/run/docker.sock
ENGINE_SOCK=/var/run/docker-engine.sock
COMPAT_SOCK=/var/run/docker-compat.sock
DOCKERD_LOG=/var/log/pricing-dockerd.log
COMPAT_LOG=/var/log/pricing-docker-api-compat.log
COMPAT_PID_DIR=/var/run/pricing-docker-api-compat
COMPAT_PY=/usr/local/libexec/pricing/docker-api-compat.py
LOCK_FILE=/var/lock/pricing-ensure-docker.lock
WAIT_SECS=${PRICING_DOCKER_WAIT_SECS:-60}
REQUIRED_API=${PRICING_DOCKER_REQUIRED_API:-1.52}
export PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# ---------------------------------------------------------------- helpers

# A docker client that runs. /usr/local/bin/docker (a newer CLI) shadows
# Debian's /usr/bin/docker; both negotiate the API version with the engine,
# so take the first on PATH that executes and fall back to Debian's.
DOCKER=
pick_docker_client() {
    local c
    DOCKER=
    for c in $(type -ap docker) /usr/bin/docker; do
        if [ -x "$c" ] && "$c" --version >/dev/null 2>&1; then
            DOCKER=$c
            return 0
        fi
    done
    return 1
}

docker_info_ok() {
    [ -n "$DOCKER" ] || pick_docker_client || return 1
    timeout 20 "$DOCKER" info >/dev/null 2>&1 && return 0
    # A CLI that cannot talk to this engine: try Debian's before giving up.
    if [ "$DOCKER" != /usr/bin/docker ] && [ -x /usr/bin/docker ] \
            && timeout 20 /usr/bin/docker info >/dev/null 2>&1; then
        DOCKER=/usr/bin/docker
        return 0
    fi
    return 1
}

PYTHON=
pick_python() {
    local c
    for c in $(type -ap python3) /usr/bin/python3; do
        if [ -x "$c" ] && "$c" -c 'import asyncio, json, socket' >/dev/null 2>&1; then
            PYTHON=$c
            return 0
        fi
    done
    apt_install python3 || die "cannot install python3 (needed for the API shim)"
    PYTHON=/usr/bin/python3
}

# sock_ping SOCKET [API]: does SOCKET answer GET /vAPI/_ping (or /_ping) with 200?
sock_ping() {
    [ -S "$1" ] || return 1
    "$PYTHON" - probe "$1" ${2:+"$2"} 2>/dev/null < <(write_compat_py)
}

compat_py_current() {
    [ -f "$COMPAT_PY" ] && write_compat_py | cmp -s - "$COMPAT_PY"
}

# Install the shim's code; when it changed, stop the shims running the old code
# (they are started again below).
install_compat_py() {
    local tmp f pid
    compat_py_current && return 0
    mkdir -p "$(dirname "$COMPAT_PY")"
    tmp=$(mktemp "$COMPAT_PY.XXXXXX")
    write_compat_py >"$tmp"
    chmod 755 "$tmp"
    mv -f "$tmp" "$COMPAT_PY"
    for f in "$COMPAT_PID_DIR"/*.pid; do
        [ -f "$f" ] || continue
        pid=$(tr -dc '0-9' <"$f")
        if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'docker-api-compat.py serve'; then
            log "restarting the Docker API shim (pid $pid): its code changed"
            kill "$pid" 2>/dev/null || true
            for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
        rm -f "$f"
    done
}

# pid_is PIDFILE NAME: the pid in PIDFILE is alive and is a NAME process.
pid_is() {
    local pid
    [ -f "$1" ] || return 1
    pid=$(tr -dc '0-9' <"$1")
    [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

# Remove pid files that a previous boot or session left behind (their pid may
# now belong to an unrelated process, which would confuse dockerd).
clean_stale_pidfiles() {
    if [ -f /var/run/docker.pid ] && ! pid_is /var/run/docker.pid dockerd; then
        rm -f /var/run/docker.pid
    fi
    local cpid=/var/run/docker/containerd/containerd.pid
    if [ -f "$cpid" ] && ! pid_is "$cpid" containerd; then
        rm -f "$cpid"
    fi
}

dockerd_log_tail() {
    echo "---- last lines of $DOCKERD_LOG ----" >&2
    tail -n 40 "$DOCKERD_LOG" >&2 2>/dev/null || true
    echo "-------------------------------------" >&2
}

# wait_for CMD...: retry CMD every 0.25 s until it succeeds or WAIT_SECS pass.
wait_for() {
    local deadline=$((SECONDS + WAIT_SECS))
    while ! "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.25
    done
}

DOCKERD_PID=
start_dockerd() {
    local dockerd_bin=$1; shift
    clean_stale_pidfiles
    log "starting dockerd${*:+ $*} (log: $DOCKERD_LOG)"
    printf '\n==== %s: dockerd -H unix://%s %s\n' "$(date -Is)" "$ENGINE_SOCK" "$*" >>"$DOCKERD_LOG"
    setsid nohup "$dockerd_bin" -H "unix://$ENGINE_SOCK" --pidfile /var/run/docker.pid "$@" \
        </dev/null >>"$DOCKERD_LOG" 2>&1 9>&- &
    DOCKERD_PID=$!
}

# Wait until the engine answers, or its process dies, or time runs out.
# Returns 0 ready, 1 died, 2 timed out.
wait_engine() {
    local deadline=$((SECONDS + WAIT_SECS))
    while :; do
        if sock_ping "$ENGINE_SOCK"; then return 0; fi
        if ! kill -0 "$DOCKERD_PID" 2>/dev/null; then return 1; fi
        [ "$SECONDS" -lt "$deadline" ] || return 2
        sleep 0.25
    done
}

ensure_engine() {
    sock_ping "$ENGINE_SOCK" && return 0

    # A dockerd of ours that is still starting (e.g. another run of this script).
    if pid_is /var/run/docker.pid dockerd; then
        log "dockerd (pid $(cat /var/run/docker.pid)) is running; waiting for it"
        if wait_for sock_ping "$ENGINE_SOCK"; then return 0; fi
        dockerd_log_tail
        die "dockerd (pid $(cat /var/run/docker.pid)) runs but $ENGINE_SOCK did not answer within ${WAIT_SECS}s"
    fi

    local dockerd_bin
    dockerd_bin=$(command -v dockerd || true)
    if [ -z "$dockerd_bin" ]; then
        apt_install docker.io || die "cannot install docker.io"
        dockerd_bin=$(command -v dockerd || echo /usr/sbin/dockerd)
        [ -x "$dockerd_bin" ] || die "docker.io installed but no dockerd found"
    fi

    local attempt rc
    for attempt in "" "--storage-driver=vfs" "--storage-driver=vfs --iptables=false"; do
        # shellcheck disable=SC2086  # word splitting of the option list is intended
        start_dockerd "$dockerd_bin" $attempt
        rc=0; wait_engine || rc=$?
        case $rc in
            0) log "dockerd is up (pid $DOCKERD_PID${attempt:+, $attempt})"; return 0 ;;
            1) warn "dockerd exited during start-up${attempt:+ with $attempt}"; dockerd_log_tail ;;
            2) dockerd_log_tail
               die "dockerd (pid $DOCKERD_PID) did not answer on $ENGINE_SOCK within ${WAIT_SECS}s" ;;
        esac
    done
    die "dockerd would not start (tried default, vfs storage, vfs without iptables); see $DOCKERD_LOG"
}

# start_shim LISTEN UPSTREAM: run the API-version shim in the background.
start_shim() {
    local listen=$1 upstream=$2
    if [ -e "$listen" ] && ! [ -S "$listen" ]; then
        die "$listen exists and is not a socket"
    fi
    log "starting the Docker API shim on $listen -> $upstream (log: $COMPAT_LOG)"
    setsid nohup "$PYTHON" "$COMPAT_PY" serve --listen "$listen" --upstream "$upstream" \
        </dev/null >>"$COMPAT_LOG" 2>&1 9>&- &
    local pid=$!
    mkdir -p "$COMPAT_PID_DIR"
    echo "$pid" >"$COMPAT_PID_DIR/$(basename "$listen" .sock).pid"
    local deadline=$((SECONDS + 15))
    until sock_ping "$listen" "$REQUIRED_API"; do
        if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
            tail -n 20 "$COMPAT_LOG" >&2 || true
            die "the Docker API shim did not come up on $listen"
        fi
        sleep 0.1
    done
}

report() {
    local sv api drv
    sv=$(timeout 20 "$DOCKER" version --format '{{.Server.Version}}' 2>/dev/null || echo '?')
    api=$(timeout 20 "$DOCKER" version --format '{{.Server.APIVersion}}' 2>/dev/null || echo '?')
    drv=$(timeout 20 "$DOCKER" info --format '{{.Driver}}' 2>/dev/null || echo '?')
    log "docker is ready: engine $sv (API $api), storage driver $drv, client $DOCKER"
}

# ---------------------------------------------------------------- main

main() {
    pick_docker_client || true

    if [ -n "${DOCKER_HOST:-}" ]; then
        # Someone chose an engine explicitly: only check it.
        docker_info_ok || die "DOCKER_HOST=$DOCKER_HOST is set but \`docker info\` fails there"
        exit 0
    fi

    pick_python
    # Fast path: nothing to do (and, where our shim runs, it runs this code).
    if docker_info_ok && sock_ping "$PUBLIC_SOCK" "$REQUIRED_API" \
            && { ! [ -S "$ENGINE_SOCK" ] || compat_py_current; }; then
        exit 0
    fi

    [ "$(id -u)" -eq 0 ] || die "run as root to start dockerd (or start it yourself)"
    mkdir -p "$(dirname "$LOCK_FILE")" "$(dirname "$DOCKERD_LOG")"
    exec 9>"$LOCK_FILE"
    flock -w $((WAIT_SECS * 2 + 30)) 9 || die "could not take $LOCK_FILE"

    install_compat_py

    if sock_ping "$PUBLIC_SOCK" && ! sock_ping "$ENGINE_SOCK"; then
        # An engine we did not start owns /var/run/docker.sock.
        if sock_ping "$PUBLIC_SOCK" "$REQUIRED_API"; then
            docker_info_ok || die "the engine on $PUBLIC_SOCK answers but \`docker info\` fails"
            report
            exit 0
        fi
        warn "the engine on $PUBLIC_SOCK is too old for API $REQUIRED_API clients (testcontainers);"
        sock_ping "$COMPAT_SOCK" "$REQUIRED_API" || start_shim "$COMPAT_SOCK" "$PUBLIC_SOCK"
        warn "use it through the shim: export DOCKER_HOST=unix://$COMPAT_SOCK"
        docker_info_ok || die "\`docker info\` fails"
        report
        exit 0
    fi

    ensure_engine
    if ! sock_ping "$PUBLIC_SOCK" "$REQUIRED_API"; then
        start_shim "$PUBLIC_SOCK" "$ENGINE_SOCK"
    fi
    wait_for docker_info_ok || { dockerd_log_tail; die "\`docker info\` still fails"; }
    report
}

# The API-version shim (see the header). Kept here so the script is self-contained.
write_compat_py() {
cat <<'PYEOF'
#!/usr/bin/env python3
"""docker-api-compat: lets new Docker API clients talk to an older Docker engine.

Debian 12's docker.io (engine 20.10) speaks Docker API <= 1.41 and answers any
request for a newer version ("/v1.52/...") with "client version ... is too new".
Clients that pin a new version without negotiating (bollard, and so Rust's
testcontainers) then fail. This proxy listens on a unix socket, rewrites the
version in each request's path down to the engine's maximum, and passes
everything else (bodies, streams, upgraded/hijacked connections) through
untouched. Each proxied request gets "Connection: close" so that one TCP
exchange carries exactly one request and no HTTP parsing beyond the request
head is needed.

  docker-api-compat.py serve --listen /var/run/docker.sock --upstream /var/run/docker-engine.sock
  docker-api-compat.py probe SOCKET [API_VERSION]   # exit 0 if /vAPI_VERSION/_ping answers OK
  docker-api-compat.py engine-api SOCKET            # print the engine's maximum API version
"""
import argparse
import asyncio
import grp
import json
import os
import re
import signal
import socket
import sys
import time

REQ_LINE = re.compile(rb"^([A-Za-z]+) /v(\d+)\.(\d+)(/[^ ]*) (HTTP/1\.[01])$")
HOP_HEADERS = (b"connection", b"keep-alive", b"proxy-connection")
MAX_HEAD = 256 * 1024


def log(msg):
    sys.stderr.write("%s docker-api-compat: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), msg))
    sys.stderr.flush()


def http_get(sock_path, path, timeout=5.0):
    """Minimal HTTP/1.0 GET over a unix socket: returns (status, body)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(sock_path)
        s.sendall(b"GET " + path.encode() + b" HTTP/1.0\r\nHost: docker\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, body


def engine_api(sock_path):
    status, body = http_get(sock_path, "/version")
    if status != 200:
        raise RuntimeError("GET /version: HTTP %d: %r" % (status, body[:200]))
    major, minor = json.loads(body)["ApiVersion"].split(".")
    return int(major), int(minor)


def rewrite_head(head, max_api):
    """Rewrite one request head (bytes up to and including the blank line)."""
    lines = head[:-4].split(b"\r\n")
    m = REQ_LINE.match(lines[0])
    if m:
        major, minor = int(m.group(2)), int(m.group(3))
        if (major, minor) > max_api:
            lines[0] = b"%s /v%d.%d%s %s" % (
                m.group(1), max_api[0], max_api[1], m.group(4), m.group(5))
    upgrade = False
    out = [lines[0]]
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        lname = name.strip().lower()
        if lname == b"connection" and b"upgrade" in value.lower():
            upgrade = True
        if lname in HOP_HEADERS:
            continue
        out.append(line)
    if upgrade:
        out.append(b"Connection: Upgrade")
    else:
        out.append(b"Connection: close")
    return b"\r\n".join(out) + b"\r\n\r\n"


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            if writer.can_write_eof() and not writer.is_closing():
                writer.write_eof()
        except (ConnectionError, OSError, RuntimeError):
            pass


def close(writer):
    if writer is not None:
        try:
            writer.close()
        except (ConnectionError, OSError, RuntimeError):
            pass


class Proxy:
    def __init__(self, upstream):
        self.upstream = upstream
        self.max_api = None

    async def get_max_api(self):
        if self.max_api is None:
            loop = asyncio.get_running_loop()
            self.max_api = await loop.run_in_executor(None, engine_api, self.upstream)
            log("engine at %s speaks API <= %d.%d" % ((self.upstream,) + self.max_api))
        return self.max_api

    async def handle(self, creader, cwriter):
        uwriter = None
        try:
            try:
                head = await creader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                return
            try:
                max_api = await self.get_max_api()
            except Exception as e:  # engine down: answer like a proxy would
                log("upstream unavailable: %s" % e)
                cwriter.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                              b"Connection: close\r\nContent-Length: 24\r\n\r\n"
                              b"docker engine not ready\n")
                await cwriter.drain()
                return
            ureader, uwriter = await asyncio.open_unix_connection(self.upstream, limit=MAX_HEAD)
            uwriter.write(rewrite_head(head, max_api))
            up = asyncio.ensure_future(pipe(creader, uwriter))
            # The engine closes the connection once it has answered (Connection:
            # close) or when a hijacked stream ends: that ends the exchange.
            await pipe(ureader, cwriter)
            if not up.done():
                try:
                    await asyncio.wait_for(asyncio.shield(up), 1.0)
                except asyncio.TimeoutError:
                    up.cancel()
        except (ConnectionError, OSError) as e:
            log("connection error: %s" % e)
        finally:
            close(uwriter)
            close(cwriter)


async def serve(listen, upstream):
    proxy = Proxy(upstream)
    if os.path.lexists(listen):
        os.unlink(listen)
    server = await asyncio.start_unix_server(proxy.handle, path=listen, limit=MAX_HEAD)
    try:
        gid = grp.getgrnam("docker").gr_gid
        os.chown(listen, 0, gid)
        os.chmod(listen, 0o660)
    except KeyError:
        os.chmod(listen, 0o600)
    log("listening on %s, forwarding to %s" % (listen, upstream))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
    try:
        os.unlink(listen)
    except OSError:
        pass
    log("stopped")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--listen", required=True)
    s.add_argument("--upstream", required=True)
    p = sub.add_parser("probe")
    p.add_argument("socket")
    p.add_argument("api", nargs="?", default=None)
    e = sub.add_parser("engine-api")
    e.add_argument("socket")
    a = ap.parse_args()
    if a.cmd == "serve":
        try:
            asyncio.run(serve(a.listen, a.upstream))
        except KeyboardInterrupt:
            pass
        return 0
    if a.cmd == "probe":
        path = "/v%s/_ping" % a.api if a.api else "/_ping"
        try:
            status, _ = http_get(a.socket, path, timeout=3.0)
        except (OSError, ValueError, IndexError):
            return 1
        return 0 if status == 200 else 1
    if a.cmd == "engine-api":
        try:
            print("%d.%d" % engine_api(a.socket))
        except (OSError, ValueError, KeyError, RuntimeError) as ex:
            print(ex, file=sys.stderr)
            return 1
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
PYEOF
}

main "$@"
