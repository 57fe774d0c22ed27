#!/usr/bin/env bash
# bench-outsider.sh: what two outsiders' floods cost everyone else
# (issue 33; docs/api.md, "Caching" and "Limits").
#
#   bash scripts/bench-outsider.sh
#
# Builds the release binary (BENCH_PROFILE=debug for the debug build), starts
# `pricing serve` on loopback over a throwaway embedded database
# (target/bench-outsider, deleted first), the anonymous plan raised so that
# nobody is refused, and prints:
#   1. nginx serving the body of GET /api/v1/models?limit=20 as a static file
#      (the ceiling of this machine, in the same run);
#   2. other clients alone: wrk -c$BENCH_CONNECTIONS over that cached path:
#      req/s, p50, p99;
#   3. the same while a flooder sends requests with a made-up Host header each
#      (four connections over the 1.4 MB dump at 37 a second, the probe of issue 33): the others' req/s, p50,
#      p99 and their ratio to (2), the flood's own rate, the response cache's
#      entries and bytes before and after, and the server's memory (VmRSS,
#      VmHWM);
#   4. on a second server with the response cache off: 40 requests for
#      unknown model ids at once (statuses, p50, p99), and a client's uncached
#      reads (card, list, changes, compare) alone and during that burst.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=bench-outsider

DURATION=${BENCH_DURATION:-10s}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
PROFILE=${BENCH_PROFILE:-release}
export RUST_LOG=${BENCH_RUST_LOG:-warn}
DATA=$PWD/target/bench-outsider
HIGH=2000000000
PATH_CACHED="/api/v1/models?limit=20"

command -v wrk >/dev/null || apt_install wrk || die "wrk is needed (apt-get install -y wrk)"
command -v curl >/dev/null || apt_install curl || die "curl is needed"
bash scripts/ensure-postgres.sh

log "building the $PROFILE binary"
if [ "$PROFILE" = release ]; then
    cargo build --release -p pricing-server >&2
else
    cargo build -p pricing-server >&2
fi
BIN=target/$PROFILE/pricing

rm -rf "$DATA"
mkdir -p "$DATA"
# The embedded PostgreSQL runs as user postgres when we are root.
[ "$(id -u)" -eq 0 ] && chmod 755 "$DATA"
"$BIN" keys set-plan anonymous --quota "$HIGH" --burst "$HIGH" --data-dir "$DATA/db" >"$DATA/keys.log" 2>&1 \
    || { cat "$DATA/keys.log" >&2; die "pricing keys set-plan failed"; }

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    nginx_stop
    stop_server
}
trap cleanup EXIT

# wrk_row URL [WRK_ARGS...]: "REQ/S P50 P99" of a wrk run (ms).
wrk_row() {
    local url=$1
    shift
    wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url" >"$DATA/wrk.out"
    awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; return v * 1000 }
         /Requests\/sec/ {rps = $2} /^ +50%/ {p50 = ms($2)} /^ +99%/ {p99 = ms($2)}
         END {printf "%.0f %.2f %.2f\n", rps, p50, p99}' "$DATA/wrk.out"
}
# memory: "RSS_MB HWM_MB" of the server.
memory() {
    awk '/VmRSS/ {rss = $2} /VmHWM/ {hwm = $2} END {printf "%.0f %.0f\n", rss / 1024, hwm / 1024}' \
        "/proc/$SERVER_PID/status"
}
# cache: "ENTRIES BYTES MISSES" of the response cache.
cache() {
    curl -s "$SERVER_BASE/healthz" | python3 -c 'import json, sys
c = json.load(sys.stdin)["response_cache"]
print(c["entries"], c["bytes"], c["misses"])'
}

start_server "$BIN" "$DATA/serve.log" --data-dir "$DATA/db"
for _ in $(seq 1 100); do
    [ "$(curl -s "$SERVER_BASE/healthz" | python3 -c 'import json, sys; print(json.load(sys.stdin)["response_cache"]["enabled"])')" = True ] && break
    sleep 0.1
done

nginx_setup "$DATA/nginx"
curl -sf "$SERVER_BASE$PATH_CACHED" >"$DATA/nginx/www/models.json" || die "$PATH_CACHED failed"
nginx_start models.json
read -r NGINX_RPS NGINX_P50 NGINX_P99 < <(wrk_row "http://127.0.0.1:$NGINX_PORT/models.json")
nginx_stop

# Warm the cache with a few hundred distinct entries, as a day of clients would.
for n in $(seq 1 100); do
    for path in "/api/v1/models?limit=$n" "/api/v1/changes?limit=$n" "/feeds/changes.json?limit=$n"; do
        curl -s -o /dev/null "$SERVER_BASE$path"
    done
done
curl -s -o /dev/null "$SERVER_BASE/dumps/prices.csv"
read -r RPS0 P50_0 P99_0 < <(wrk_row "$SERVER_BASE$PATH_CACHED")
read -r ENTRIES0 BYTES0 MISSES0 < <(cache)

# The flood of the probe that found the defect: four connections asking for the
# dump (1.4 MB) with a Host header made up for every request, at the probe's rate
# (37 a second; BENCH_FLOOD_RATE), from one light process so that the load
# generator does not take the CPU the server needs; one line per answer.
python3 - "$SERVER_BASE" "$((${DURATION%s} + 2))" "${BENCH_FLOOD_RATE:-37}" >"$DATA/flood.out" <<'PY' &
import http.client, random, sys, threading, time, urllib.parse
base = urllib.parse.urlsplit(sys.argv[1])
seconds, rate = float(sys.argv[2]), float(sys.argv[3])
end = time.monotonic() + seconds
def loop(n):
    conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
    i = 0
    while time.monotonic() < end:
        started = time.monotonic()
        i += 1
        conn.request("GET", "/dumps/prices.csv", headers={"Host": f"h{random.randrange(10**9)}-{n}-{i}.example"})
        res = conn.getresponse()
        res.read()
        print(res.status, flush=True)
        time.sleep(max(0.0, 4 / rate - (time.monotonic() - started)))
threads = [threading.Thread(target=loop, args=(n,)) for n in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
PIDS+=("$!")
sleep 1
read -r RPS1 P50_1 P99_1 < <(wrk_row "$SERVER_BASE$PATH_CACHED")
wait "${PIDS[@]}" 2>/dev/null || true
PIDS=()
FLOOD_RPS=$(wc -l <"$DATA/flood.out" | awk -v s="${DURATION%s}" '{printf "%.0f", $1 / (s + 2)}')
FLOOD_OK=$(grep -c '^200$' "$DATA/flood.out" || true)
read -r ENTRIES1 BYTES1 MISSES1 < <(cache)
read -r RSS HWM < <(memory)
stop_server

printf '\n1-3. Cached reads of other clients (wrk -t2 -c%s -d%s) beside a random-Host flood (%s build)\n\n' \
    "$CONNECTIONS" "$DURATION" "$PROFILE"
printf '| case | req/s | p50 ms | p99 ms | /nginx | /alone |\n|---|---|---|---|---|---|\n'
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf '| nginx, the same bytes as a static file | %s | %s | %s | 1.00 | |\n' "$NGINX_RPS" "$NGINX_P50" "$NGINX_P99"
printf '| others alone | %s | %s | %s | %s | 1.00 |\n' "$RPS0" "$P50_0" "$P99_0" "$(ratio "$RPS0" "$NGINX_RPS")"
printf '| others beside the flood | %s | %s | %s | %s | %s |\n' "$RPS1" "$P50_1" "$P99_1" \
    "$(ratio "$RPS1" "$NGINX_RPS")" "$(ratio "$RPS1" "$RPS0")"
printf '\nThe flood: %s req/s with a new Host each (%s answered 200). Response cache: %s entries, %s bytes, %s misses before;\n' \
    "$FLOOD_RPS" "$FLOOD_OK" "$ENTRIES0" "$BYTES0" "$MISSES0"
printf '%s entries, %s bytes, %s misses after. Server memory after: VmRSS %s MB, VmHWM %s MB.\n' \
    "$ENTRIES1" "$BYTES1" "$MISSES1" "$RSS" "$HWM"

# 4. Unknown ids on a server without the response cache: every read is uncached.
start_server "$BIN" "$DATA/serve-nocache.log" --data-dir "$DATA/db" --cache-entries 0
uncached_reads_lua "$DATA/reads.lua" openai:gpt-4o openai:o3
reads() {
    wrk -t1 -c1 -d"$1" --latency -s "$DATA/reads.lua" "$SERVER_BASE" >"$DATA/reads.out"
    awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; return v * 1000 }
         /Requests\/sec/ {rps = $2} /^ +50%/ {p50 = ms($2)} /^ +99%/ {p99 = ms($2)}
         END {printf "%.0f %.2f %.2f\n", rps, p50, p99}' "$DATA/reads.out"
}
read -r READS0 RP50_0 RP99_0 < <(reads 5s)
# bursts: ten rounds of 40 unknown ids at once (one process, 40 threads), one
# round every 0.5 s; each line "status milliseconds"
python3 - "$SERVER_BASE" >"$DATA/unknown.out" <<'PY' &
import sys, threading, time, http.client, urllib.parse
base = urllib.parse.urlsplit(sys.argv[1])
def ask(path, out):
    conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
    started = time.monotonic()
    conn.request("GET", path)
    res = conn.getresponse()
    res.read()
    out.append(f"{res.status} {(time.monotonic() - started) * 1000:.2f}")
for round_ in range(1, 11):
    out = []
    threads = [threading.Thread(target=ask, args=(f"/api/v1/models/anthropic:claude-opus-{round_}x{i}", out))
               for i in range(1, 41)]
    for t in threads: t.start()
    for t in threads: t.join()
    print("\n".join(out), flush=True)
    time.sleep(0.5)
PY
BURST_PID=$!
PIDS+=("$BURST_PID")
read -r READS1 RP50_1 RP99_1 < <(reads 5s)
wait "$BURST_PID" || true
STATUSES=$(awk '{print $1}' "$DATA/unknown.out" | sort | uniq -c | awk '{printf "%s%s x %s", sep, $2, $1; sep = ", "}')
read -r U50 U99 < <(awk '{print $2}' "$DATA/unknown.out" | sort -n \
    | awk '{v[NR] = $1} END {printf "%.1f %.1f\n", v[int(NR * 0.5)], v[int(NR * 0.99)]}')

printf '\n4. Ten rounds of 40 unknown model ids at once (one client process, 40 connections), response cache off\n\n'
printf 'unknown ids: %s; p50 %s ms, p99 %s ms\n\n' "$STATUSES" "$U50" "$U99"
printf '| a client'"'"'s uncached reads (wrk -c1) | req/s | p50 ms | p99 ms |\n|---|---|---|---|\n'
printf '| alone | %s | %s | %s |\n' "$READS0" "$RP50_0" "$RP99_0"
printf '| during the bursts | %s | %s | %s |\n' "$READS1" "$RP50_1" "$RP99_1"
