#!/usr/bin/env bash
# record-responses.sh: record what the server answers to a fixed list of about
# 500 requests (every endpoint, filter, sort and kind of error, full cursor
# walks, estimates, HEAD/OPTIONS, feeds, the dump, MCP tool calls over
# streamable HTTP), so that a change meant to keep the behaviour can be checked
# byte for byte against a recording made before it.
#
#   bash scripts/record-responses.sh record OUT.jsonl   # one file per run
#   bash scripts/record-responses.sh compare A.jsonl B.jsonl
#
# `record` builds `pricing` (profile $RECORD_PROFILE, default release; or uses
# the binary $RECORD_BIN), then serves a copy of a database template on a free
# local port and runs scripts/record-responses.py against it. The template
# ($RECORD_DIR/template, default target/record) is made once: the embedded
# database filled with the bundled dataset on a first start, and one internal
# key (so no request stops at a quota). Every run starts from a fresh copy of
# it, so publish times, ETags and quota counts are the same on every run.
# Delete the template after a change to the dataset or the migrations.
# What is left out of a recording (headers and fields that carry the time) is
# listed at the top of record-responses.py.
#
# `compare` prints the first differences and exits 1 when there are any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=record-responses

usage() { die "usage: $0 record OUT.jsonl | compare A.jsonl B.jsonl"; }
[ $# -ge 1 ] || usage
case $1 in
    compare)
        [ $# -eq 3 ] || usage
        exec python3 scripts/record-responses.py compare "$2" "$3" ;;
    record)
        [ $# -eq 2 ] || usage ;;
    *) usage ;;
esac
OUT=$2

DIR=${RECORD_DIR:-target/record}
PROFILE=${RECORD_PROFILE:-release}
if [ -n "${RECORD_BIN:-}" ]; then
    BIN=$RECORD_BIN
else
    log "building pricing ($PROFILE)"
    cargo build --locked -q --profile "$PROFILE" -p pricing-server --bin pricing
    case $PROFILE in dev) BIN=target/debug/pricing ;; *) BIN=target/$PROFILE/pricing ;; esac
fi
ensure_host_postgres
mkdir -p "$DIR"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

SERVER=""
RUN=""
cleanup() {
    [ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true
    [ -z "$SERVER" ] || wait "$SERVER" 2>/dev/null || true
    [ -z "$RUN" ] || rm -rf "$RUN"
}
trap cleanup EXIT

# serve DATA_DIR: `pricing serve` on a free port; sets SERVER and BASE.
serve() {
    local port
    port=$(free_port)
    BASE=http://127.0.0.1:$port
    # Anonymous requests name their client in X-Forwarded-For (see the .py).
    # The feeds' links and the OpenAPI document's server name the public URL,
    # by default the address listened on, whose port changes between runs.
    "$BIN" serve --listen "127.0.0.1:$port" --public-url http://localhost --data-dir "$1" \
        --trusted-proxies 127.0.0.1/32 --demo-dir "$DIR/no-demo" 2>>"$DIR/serve.log" &
    SERVER=$!
    wait_until_serving "$BASE" "$SERVER" "$DIR/serve.log"
}
stop() {
    kill "$SERVER"
    wait "$SERVER" 2>/dev/null || true
    SERVER=""
}

if [ ! -s "$DIR/template/key" ]; then
    log "making the database template in $DIR/template"
    rm -rf "$DIR/template"
    mkdir -p "$DIR/template"
    serve "$DIR/template/db"
    stop
    "$BIN" keys issue --tier internal --label record-responses --data-dir "$DIR/template/db" \
        >"$DIR/template/key.new" 2>>"$DIR/serve.log"
    mv "$DIR/template/key.new" "$DIR/template/key"
fi

RUN=$(mktemp -d "$DIR/run.XXXXXX")
# PostgreSQL runs as an unprivileged user when started as root.
chmod 755 "$RUN"
cp -a "$DIR/template/db" "$RUN/db"
serve "$RUN/db"
python3 scripts/record-responses.py record "$BASE" "$(cat "$DIR/template/key")" "$OUT"
stop
