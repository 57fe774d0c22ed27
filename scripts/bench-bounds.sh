#!/usr/bin/env bash
# bench-bounds.sh: what a burst of hostile requests with 30 KB model ids costs
# everyone else (docs/api.md, "Limits").
#
#   bash scripts/bench-bounds.sh
#
# Builds the binary (release; BENCH_PROFILE=debug for the debug build), starts
# `pricing serve` on loopback over a throwaway embedded database
# (target/bench-bounds, deleted first) with the response cache off, so that
# every request of the other clients goes to the database, and prints:
#   1. each path that takes a model id, once with a 30 KB id, and the card
#      with the longest id accepted (unknown: suggestions): status and time;
#   2. other clients alone: wrk over four uncached read requests (card, list,
#      changes, compare): requests/s, p50, p99;
#   3. the same while BENCH_BURST (50) connections send 30 KB-id requests
#      without pause, and meanwhile: /api/v1/health polled every 100 ms (every
#      status it gave), and a free key sending requests one after another
#      (real free plan: 1,000/day, 5/s): how many were admitted and how many
#      its quota was charged.
# Bounded: every wrk run lasts BENCH_DURATION (10s); the health and key loops
# stop with it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=bench-bounds

DURATION=${BENCH_DURATION:-10s}
SECONDS_=${DURATION%s}
BURST=${BENCH_BURST:-50}
PROFILE=${BENCH_PROFILE:-release}
export RUST_LOG=${BENCH_RUST_LOG:-warn}
DATA=target/bench-bounds
HIGH=2000000000

command -v wrk >/dev/null || apt_install wrk || die "wrk is needed (apt-get install -y wrk)"
command -v curl >/dev/null || apt_install curl || die "curl is needed"
bash scripts/ensure-postgres.sh

if [ "$PROFILE" = release ]; then
    log "building the release binary"
    cargo build --release -p pricing-server >&2
    BIN=target/release/pricing
else
    log "building the debug binary"
    cargo build -p pricing-server >&2
    BIN=target/debug/pricing
fi

rm -rf "$DATA"
mkdir -p "$DATA"
log "a free key and a raised anonymous plan on a fresh embedded database"
FREE_KEY=$("$BIN" keys issue --tier free --label bench --data-dir "$DATA/db" 2>/dev/null)
"$BIN" keys set-plan anonymous --quota "$HIGH" --burst "$HIGH" --data-dir "$DATA/db" >/dev/null 2>&1

PIDS=()
stop_all() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    stop_server
}
trap stop_all EXIT
start_server "$BIN" "$DATA/serve.log" --data-dir "$DATA/db" --cache-entries 0
BASE=$SERVER_BASE

LONG="openai:$(head -c 30000 /dev/zero | tr '\0' a)"
A=openai:gpt-4o
B=openai:o3
for path in "/api/v1/models/$A" "/api/v1/compare?ids=$A,$B"; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE$path")" = 200 ] || die "$path does not answer 200"
done

printf '\n1. One request with a 30 KB model id (%s build)\n\n' "$PROFILE"
printf '| path | status | time |\n|---|---|---|\n'
once() {
    local label=$1
    shift
    curl -s -o "$DATA/once.body" -w '%{http_code} %{time_total}' "$@" \
        | awk -v label="$label" '{printf "| %s | %s | %.1f ms |\n", label, $1, $2 * 1000}'
}
once "GET /api/v1/models/{30 KB id}" "$BASE/api/v1/models/$LONG"
# The longest id accepted, unknown: looked up, then suggested for (its first 64 characters).
once "GET /api/v1/models/{200-character unknown id}" "$BASE/api/v1/models/openai:$(head -c 193 /dev/zero | tr '\0' o)"
once "GET /api/v1/models/{30 KB id}/history" "$BASE/api/v1/models/$LONG/history"
once "GET /api/v1/compare?ids=...,{30 KB id}" "$BASE/api/v1/compare?ids=$A,$LONG"
printf '{"requests_per_month": 1000, "preset": "chatbot", "model_ids": ["%s"]}' "$LONG" >"$DATA/estimate.json"
once "POST /api/v1/estimate, model_ids [30 KB id]" -H 'content-type: application/json' \
    --data-binary "@$DATA/estimate.json" "$BASE/api/v1/estimate"
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pricing_get_model","arguments":{"model_id":"%s"}}}' \
    "$LONG" >"$DATA/mcp.json"
once "MCP pricing_get_model {30 KB id}" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' --data-binary "@$DATA/mcp.json" "$BASE/mcp"
grep -q INVALID_ARGUMENT "$DATA/once.body" || die "the MCP tool did not refuse the long id: $(head -c 300 "$DATA/once.body")"

# Other clients: four uncached reads in turn.
uncached_reads_lua "$DATA/others.lua" "$A" "$B"
# others: "REQ/S P50 P99 NON2XX" of wrk over the other clients' requests.
others() {
    wrk -t1 -c4 -d"$DURATION" --latency -s "$DATA/others.lua" "$BASE" >"$DATA/others.out"
    awk '/Requests\/sec/ {rps = $2}
         /^ +50%/ {p50 = $2} /^ +99%/ {p99 = $2}
         /Non-2xx/ {bad = $NF}
         END {printf "%s %s %s %s\n", rps, p50, p99, (bad == "" ? 0 : bad)}' "$DATA/others.out"
}

printf '\n2. Other clients alone (wrk -c4, %s)\n\n' "$DURATION"
read -r RPS0 P50_0 P99_0 BAD0 < <(others)

printf '3. The same beside %d connections sending 30 KB-id requests\n\n' "$BURST"
wrk -t1 -c"$BURST" -d"$((SECONDS_ + 2))s" "$BASE/api/v1/models/$LONG" >"$DATA/burst.out" 2>&1 &
PIDS+=($!)
BURST_PID=$!
# Health every 100 ms while the others run.
(
    for _ in $(seq 1 $((SECONDS_ * 10))); do
        curl -s -o /dev/null -m 2 -w '%{http_code}\n' "$BASE/api/v1/health"
        sleep 0.1
    done
) >"$DATA/health.codes" &
PIDS+=($!)
HEALTH_PID=$!
# A free key, one request after another.
(
    end=$((SECONDS + SECONDS_))
    while [ "$SECONDS" -lt "$end" ]; do
        curl -s -o /dev/null -m 2 -w '%{http_code}\n' -H "X-API-Key: $FREE_KEY" "$BASE/api/v1/changes?limit=1"
        sleep 0.05
    done
) >"$DATA/key.codes" &
PIDS+=($!)
KEY_PID=$!
read -r RPS1 P50_1 P99_1 BAD1 < <(others)
wait "$HEALTH_PID" "$KEY_PID" "$BURST_PID" || true
BURST_RPS=$(awk '/Requests\/sec/ {print $2}' "$DATA/burst.out")
BURST_NON2XX=$(awk '/Non-2xx/ {print $NF}' "$DATA/burst.out")
HEALTH=$(sort "$DATA/health.codes" | uniq -c | awk '{printf "%s%s x %s", sep, $2, $1; sep = ", "}')
ADMITTED=$(grep -c '^200$' "$DATA/key.codes" || true)
REFUSED=$(grep -c '^429$' "$DATA/key.codes" || true)
# One more request tells how much of the key's quota is used, this one included.
REMAINING=$(curl -s -o /dev/null -D - -H "X-API-Key: $FREE_KEY" "$BASE/api/v1/changes?limit=1" | tr -d '\r' \
    | awk -F': ' 'tolower($1) == "x-ratelimit-remaining" {print $2}')
LIMIT=1000
CHARGED=$((LIMIT - REMAINING - 1))

printf '| case | other clients req/s | p50 | p99 | non-2xx |\n|---|---|---|---|---|\n'
printf '| alone | %s | %s | %s | %s |\n' "$RPS0" "$P50_0" "$P99_0" "$BAD0"
printf '| beside the burst | %s | %s | %s | %s |\n' "$RPS1" "$P50_1" "$P99_1" "$BAD1"
printf '\nburst: %s req/s of 30 KB ids, %s of them non-2xx (all 400 expected)\n' "$BURST_RPS" "${BURST_NON2XX:-0}"
printf 'health during the burst: %s\n' "$HEALTH"
printf 'free key during the burst: %s admitted, %s refused (429), quota charged %s\n' \
    "$ADMITTED" "$REFUSED" "$CHARGED"
[ "$CHARGED" -eq "$ADMITTED" ] || warn "the key was charged $CHARGED for $ADMITTED admitted requests"
