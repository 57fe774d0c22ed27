#!/usr/bin/env bash
# bench-quota.sh: what quota accounting costs a cheap GET.
#
#   bash scripts/bench-quota.sh
#
# Builds the release binary, starts `pricing serve` on a throwaway embedded
# database (target/bench-quota, deleted first), and runs wrk against four
# cases, each a 404 rendered by the same catcher so that only the accounting
# differs:
#   uncounted  GET /nothing            outside /api/v1: no key, no accounting
#   internal   GET /api/v1/nothing     internal key: resolved from the cache, no database
#   free       GET /api/v1/nothing     free key, quota and burst raised so that every
#                                      request is admitted: one api.admit round trip
#                                      per batch of concurrent requests
#   anonymous  GET /api/v1/nothing     no key, the real anonymous plan (60/h, 2/s): after
#                                      the first few, every request is a 429, refused
#                                      by the server itself until the window ends
# After each counted case it reports how much quota was used (it should match
# the requests wrk made, once unused leased units went back) and how many
# api.admit calls that took (/healthz), with the units each call took for
# requests waiting and ahead of them (leases, docs/keys.md).
#
# The cases run in rounds (BENCH_ROUNDS, 2) so that a noisy neighbour skews one
# round, not one case; the best round of each case is compared at the end.
#
# Environment: BENCH_DURATION (10s), BENCH_CONNECTIONS (32), BENCH_THREADS (2),
# BENCH_RUST_LOG (warn: the access log is off so that it does not mask the
# accounting; set info to include it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=bench-quota

DURATION=${BENCH_DURATION:-10s}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
ROUNDS=${BENCH_ROUNDS:-2}
export RUST_LOG=${BENCH_RUST_LOG:-warn}
DATA=target/bench-quota
BIN=target/release/pricing
HIGH=2000000000

command -v wrk >/dev/null || apt_install wrk || die "wrk is needed (apt-get install -y wrk)"
command -v curl >/dev/null || apt_install curl || die "curl is needed"
command -v jq >/dev/null || apt_install jq || die "jq is needed"
bash scripts/ensure-postgres.sh

log "building the release binary"
cargo build --release -p pricing-server >&2

rm -rf "$DATA"
mkdir -p "$DATA"
log "issuing keys and raising the free plan on a fresh embedded database"
INTERNAL_KEY=$("$BIN" keys issue --tier internal --label bench --data-dir "$DATA/db" 2>/dev/null)
FREE_KEY=$("$BIN" keys issue --tier free --label bench --data-dir "$DATA/db" 2>/dev/null)
"$BIN" keys set-plan free --quota "$HIGH" --burst "$HIGH" --data-dir "$DATA/db" >/dev/null 2>&1

trap stop_server EXIT
start_server "$BIN" "$DATA/serve.log" --data-dir "$DATA/db"
ADDR=$SERVER_ADDR
log "serving on $ADDR; each case runs $DURATION with -c $CONNECTIONS -t $THREADS"

# remaining [CURL_ARGS...]: "REMAINING RESET" of one counted request.
remaining() {
    curl -s -o /dev/null -D - "$@" "http://$ADDR/api/v1/nothing" | tr -d '\r' \
        | awk -F': ' 'tolower($1) == "x-ratelimit-remaining" {r = $2}
                      tolower($1) == "x-ratelimit-reset" {t = $2} END {print r, t}'
}
# stat FIELD: a quota_accounting counter of /healthz.
stat() { curl -s "http://$ADDR/healthz" | jq -r ".quota_accounting.$1"; }

declare -A BEST
LINES=()
# run NAME PATH [HEADER]
run() {
    local name=$1 path=$2 header=${3:-} out rps p50 p99 total before after counted
    local calls0 calls accounted0 accounted batch
    local args=(-t "$THREADS" -c "$CONNECTIONS" -d "$DURATION" --latency)
    local curl_args=()
    [ -n "$header" ] && args+=(-H "$header") && curl_args+=(-H "$header")
    before=
    [ "$name" = uncounted ] || before=$(remaining "${curl_args[@]}")
    [ "$before" = " " ] && before=
    calls0=$(stat db_calls)
    accounted0=$(( $(stat requests) + $(stat leased) ))
    out=$(wrk "${args[@]}" "http://$ADDR$path")
    calls=$(( $(stat db_calls) - calls0 ))
    accounted=$(( $(stat requests) + $(stat leased) - accounted0 ))
    rps=$(awk '/^Requests\/sec:/ {printf "%d", $2}' <<<"$out")
    p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    total=$(awk '/requests in/ {print $1}' <<<"$out")
    counted=0
    if [ -n "$before" ]; then
        # leased units left unused go back within 100 ms (+ one sweep tick)
        sleep 0.5
        after=$(remaining "${curl_args[@]}")
        if [ "${before#* }" = "${after#* }" ]; then
            # the probe after the run counts too
            counted=$((${before% *} - ${after% *} - 1))
            [ "$counted" -lt 0 ] && counted=0
        else
            counted=window-ended
        fi
    fi
    batch=-
    [ "$calls" -gt 0 ] && batch=$(awk -v n="$accounted" -v c="$calls" 'BEGIN {printf "%.1f", n / c}')
    [ "${BEST[$name]:-0}" -lt "$rps" ] && BEST[$name]=$rps
    LINES+=("$(printf '%-6s %-10s %9s %9s %9s %10s %10s %9s %7s' "$ROUND" "$name" "$rps" "$p50" "$p99" \
        "$total" "$counted" "$calls" "$batch")")
}

CASES=(uncounted internal free anonymous)
for ROUND in $(seq 1 "$ROUNDS"); do
    log "round $ROUND of $ROUNDS"
    run uncounted /nothing
    run internal /api/v1/nothing "X-API-Key: $INTERNAL_KEY"
    run free /api/v1/nothing "X-API-Key: $FREE_KEY"
    run anonymous /api/v1/nothing
done

printf '\nquota accounting: wrk -d %s -c %s -t %s, %s cores, load average %s, RUST_LOG=%s\n' \
    "$DURATION" "$CONNECTIONS" "$THREADS" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$RUST_LOG"
printf '%-6s %-10s %9s %9s %9s %10s %10s %9s %7s\n' round case req/s p50 p99 requests counted db-calls batch
printf '%s\n' "${LINES[@]}"
printf '\nbest of %s rounds, against the uncounted baseline:\n' "$ROUNDS"
for name in "${CASES[@]}"; do
    printf '  %-10s %9s req/s  %3s%%\n' "$name" "${BEST[$name]}" "$((100 * BEST[$name] / BEST[uncounted]))"
done
printf '(counted: quota used per X-RateLimit-Remaining; db-calls: api.admit calls per /healthz;\n batch: units per call, for requests waiting and leased ahead; internal keys never reach the database; anonymous: the real\n plan, so all but the first few requests are 429s refused without a database call)\n'
