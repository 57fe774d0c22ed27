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

# ensure_venv DIR CHECK PKG==VERSION...: a Python venv in DIR holding the pinned
# packages. Nothing is done when `DIR/bin/python -c CHECK` succeeds (CHECK asserts
# the pinned versions); else the venv is created (Debian's python3-venv installed
# when missing) and the packages installed with pip.
ensure_venv() {
    local venv=$1 check=$2
    shift 2
    if "$venv/bin/python" -c "$check" 2>/dev/null; then
        return 0
    fi
    log "creating $venv with $*"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" 2>/dev/null \
        || { apt_install python3-venv && python3 -m venv "$venv"; } \
        || die "could not create the venv $venv"
    "$venv/bin/pip" install -q "$@" || die "pip install $* failed"
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

# free_port: a TCP port on 127.0.0.1 that was free when asked (the kernel's
# pick), so that scripts never use a fixed port.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# http_ok URL: whether URL answers 2xx (curl where installed, else python3).
http_ok() {
    if command -v curl >/dev/null 2>&1; then
        curl -sf -o /dev/null "$1"
    else
        python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$1" 2>/dev/null
    fi
}

# wait_until_serving BASE_URL PID LOG [PATH]: wait (at most 60 s) until the
# server with process PID answers BASE_URL/PATH (default /healthz) with 2xx; die
# with its LOG if it exits first.
wait_until_serving() {
    local base=$1 pid=$2 serve_log=$3 path=${4:-/healthz}
    local deadline=$((SECONDS + 60))
    until http_ok "$base$path"; do
        kill -0 "$pid" 2>/dev/null || { tail -n 40 "$serve_log" >&2; die "pricing serve exited"; }
        [ "$SECONDS" -lt "$deadline" ] || die "pricing serve did not answer $path within 60 s (see $serve_log)"
        sleep 0.02
    done
}

# start_server BIN LOG [SERVE_ARGS...]: `BIN serve` on a free port of 127.0.0.1
# with SERVE_ARGS (a --data-dir or --database-url among them), its output
# appended to LOG; returns once it answers SERVER_READY_PATH (default
# /healthz). Sets SERVER_PID, SERVER_ADDR (127.0.0.1:port) and SERVER_BASE
# (http://127.0.0.1:port). One server at a time; stop it with stop_server.
SERVER_PID=""
start_server() {
    local bin=$1 serve_log=$2
    shift 2
    SERVER_ADDR=127.0.0.1:$(free_port)
    SERVER_BASE=http://$SERVER_ADDR
    "$bin" serve --listen "$SERVER_ADDR" "$@" >>"$serve_log" 2>&1 &
    SERVER_PID=$!
    wait_until_serving "$SERVER_BASE" "$SERVER_PID" "$serve_log" "${SERVER_READY_PATH:-/healthz}"
}

# stop_server: stops the server of start_server (TERM, then waits for it);
# does nothing when none runs, so it can sit in an EXIT trap.
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# nginx_setup DIR: nginx (installed when missing) configured to serve the
# files of DIR/www as static files on a free port of 127.0.0.1, the ceiling a
# benchmark compares the server with; sets NGINX_PORT. nginx_start runs it
# (returns once it answers DIR/www/PROBE_FILE), nginx_stop stops it; both may
# sit in an EXIT trap.
NGINX_PID=""
nginx_setup() {
    NGINX_DIR=$1
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt_install nginx-light || apt_install nginx \
        || die "nginx is needed (apt-get install -y nginx-light)"
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    mkdir -p "$NGINX_DIR/www" "$NGINX_DIR/tmp"
    NGINX_PORT=$(free_port)
    cat >"$NGINX_DIR/nginx.conf" <<CONF
daemon off;
worker_processes 2;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $NGINX_DIR/tmp;
    proxy_temp_path $NGINX_DIR/tmp;
    fastcgi_temp_path $NGINX_DIR/tmp;
    uwsgi_temp_path $NGINX_DIR/tmp;
    scgi_temp_path $NGINX_DIR/tmp;
    sendfile on;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $NGINX_DIR/www;
        default_type application/json;
    }
}
CONF
}
# nginx_start PROBE_FILE
nginx_start() {
    "$NGINX" -c "$NGINX_DIR/nginx.conf" -p "$NGINX_DIR" &
    NGINX_PID=$!
    for _ in $(seq 1 50); do
        curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/$1" && break
        sleep 0.1
    done
}
nginx_stop() {
    [ -n "$NGINX_PID" ] || return 0
    kill -TERM "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
}

# uncached_reads_lua FILE A B: a wrk script asking, in turn, the four reads a
# benchmark's "other client" makes while someone else loads the server: model
# A's card, the first page of models, the latest changes, and A beside B.
uncached_reads_lua() {
    cat >"$1" <<LUA
local paths = {"/api/v1/models/$2", "/api/v1/models?limit=20", "/api/v1/changes?limit=10",
               "/api/v1/compare?ids=$2,$3"}
local i = 0
request = function()
    i = i % #paths + 1
    return wrk.format("GET", paths[i])
end
LUA
}
