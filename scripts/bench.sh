#!/usr/bin/env bash
# bench.sh: throughput and latency of the data endpoints against a static-file ceiling.
#
#   bash scripts/bench.sh
#
# Builds the release binary, starts `pricing serve` on the bundled dataset
# (embedded database in target/bench/db, deleted first), issues a free key
# with the free plan raised (quota 2e9 a day, burst unlimited) so that every
# request is counted by the quota accounting and none refused, and measures
# with wrk (BENCH_DURATION 5s, -t BENCH_THREADS 2, -c BENCH_CONNECTIONS 32,
# key in X-API-Key):
#   GET /models (default, filtered, sorted, a deep cursor page), GET /models/{id}
#   with includes, daily history over 365 days, compare of 5 models, changes,
#   and POST /estimate (not cached; wrk Lua script).
# For each: cold, the throughput with p50/p99 of a server whose response
# cache keeps nothing (--cache-entries 0: every request a miss, the database
# answers each); then warm, on a server with the cache, the first request's
# latency (a miss: curl -w) and the throughput with p50/p99 (cache hits).
# In the same run nginx serves the body of GET /models as a static file (the
# ceiling, measured just before the warm rows); every warm throughput is shown
# as a ratio to it (the free key's rows are the busy-key rows: one key, every
# request counted, from leases), but for GET /models with the free key (the
# busy-key row) and POST /estimate, which are measured in three rounds, each
# beside nginx straight before it, their ratio that of the medians.
# One more row serves GET /models to an internal key (never counted), for the
# cost of the accounting. Then anonymous traffic from a new client address
# per request (X-Forwarded-For from localhost trusted) on the list, card and
# changes endpoints at 32 and 64 connections (BENCH_ANON_CONNECTIONS), each
# beside nginx serving the same bytes with as many connections to the same
# wrk script (and, for reference, to plain wrk without it), with the
# accounting's database calls per 1,000 counted requests and the share
# admitted in memory (shard leases). Then the database time of each `api`
# function (pgbench -f, one client, BENCH_PG_DURATION 5 s: average and p99
# from the per-transaction log) and the server's memory under load (VmRSS,
# VmHWM).
# BENCH_COLD=0 leaves out the cold runs and the database times (for a quick
# look at the warm and anonymous rows, whose ratios are of the same run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
export LIB_LOG_TAG=bench

DURATION=${BENCH_DURATION:-5s}
PG_DURATION=${BENCH_PG_DURATION:-5}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
COLD_RUNS=${BENCH_COLD:-1}
THREADS=${BENCH_THREADS:-2}
export RUST_LOG=${BENCH_RUST_LOG:-warn}
DATA=$PWD/target/bench
BIN=target/release/pricing

command -v wrk >/dev/null || apt_install wrk || die "wrk is needed (apt-get install -y wrk)"
command -v curl >/dev/null || apt_install curl || die "curl is needed"
command -v jq >/dev/null || apt_install jq || die "jq is needed"
bash scripts/ensure-postgres.sh
command -v pgbench >/dev/null || die "pgbench is needed (it comes with the PostgreSQL client)"

log "building the release binary"
cargo build --release -p pricing-server >&2

rm -rf "$DATA"
mkdir -p "$DATA"
# The embedded PostgreSQL runs as user postgres when we are root.
[ "$(id -u)" -eq 0 ] && chmod 755 "$DATA"
log "issuing keys on a fresh embedded database (first start loads the dataset)"
issue() {
    "$BIN" keys issue --tier "$1" --label bench --data-dir "$DATA/db" 2>>"$DATA/keys.log" \
        || { cat "$DATA/keys.log" >&2; die "pricing keys issue failed"; }
}
KEY=$(issue free)
INTERNAL_KEY=$(issue internal)
"$BIN" keys set-plan free --quota 2000000000 --burst unlimited --data-dir "$DATA/db" >>"$DATA/keys.log" 2>&1 \
    || { cat "$DATA/keys.log" >&2; die "pricing keys set-plan failed"; }

cleanup() {
    nginx_stop
    stop_server
}
trap cleanup EXIT
# serve [SERVE_ARGS...]: `pricing serve` on a free port ($ADDR), once it
# answers and its cache listens.
serve() {
    start_server "$BIN" "$DATA/serve.log" --data-dir "$DATA/db" "$@"
    ADDR=$SERVER_ADDR
    for _ in $(seq 1 50); do
        [ "$(curl -s "http://$ADDR/healthz" | jq -r .response_cache.enabled)" = true ] && break
        sleep 0.1
    done
    log "serving on $ADDR ${*:-(response cache on)}"
}
serve --cache-entries 0

api() { curl -sf -H "X-API-Key: $KEY" "http://$ADDR$1"; }
IDS=$(api "/api/v1/models?limit=5&sort=price_blended_asc" | jq -r '.data.items[].id')
[ -n "$IDS" ] || die "no models served"
FIRST=$(echo "$IDS" | head -1)
COMMA=$(echo "$IDS" | paste -sd, -)
enc() { jq -rn --arg v "$1" '$v|@uri'; }
# A deep cursor: follow 10 pages of 20.
CURSOR=""
for _ in $(seq 1 10); do
    page=$(api "/api/v1/models?limit=20${CURSOR:+&cursor=$(enc "$CURSOR")}")
    next=$(echo "$page" | jq -r '.pagination.next_cursor // empty')
    [ -n "$next" ] || break
    CURSOR=$next
done
TODAY=$(date -u +%F)
YEAR_AGO=$(date -u -d '365 days ago' +%F)

CASES=(
    "models|/api/v1/models"
    "models filtered|/api/v1/models?provider=openai&modality=text&min_context=100000"
    "models sorted|/api/v1/models?sort=price_blended_asc&limit=50"
    "models deep page|/api/v1/models?limit=20${CURSOR:+&cursor=$(enc "$CURSOR")}"
    "model card|/api/v1/models/$(enc "$FIRST")?include=pricing,deprecation,benchmarks,aliases,history_summary"
    "history 365 d|/api/v1/models/$(enc "$FIRST")/history?granularity=daily&since=$YEAR_AGO&until=$TODAY&limit=100"
    "compare 5|/api/v1/compare?ids=$(enc "$COMMA")"
    "changes|/api/v1/changes"
)
cat >"$DATA/estimate.lua" <<EOF
wrk.method = "POST"
wrk.body = '{"requests_per_month": 100000, "preset": "chatbot", "model_ids": [$(echo "$IDS" | jq -R . | paste -sd, -)]}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-API-Key"] = "$KEY"
EOF

# to_ms VALUE: a wrk latency (e.g. 512.00us, 1.20ms, 1.01s) in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000
        printf "%.2f", n }'
}
# run_wrk NAME URL [WRK_ARGS...]: "RPS P50 P99" (p in ms), with
# $WRK_CONNECTIONS connections (default $CONNECTIONS).
run_wrk() {
    local name=$1 url=$2 out
    shift 2
    out=$(wrk -t"$THREADS" -c"${WRK_CONNECTIONS:-$CONNECTIONS}" -d"$DURATION" --latency "$@" "$url" 2>&1) \
        || { echo "$out" >&2; die "wrk failed on $name"; }
    echo "$out" >"$DATA/wrk-$(echo "$name" | tr ' /' '__').txt"
    local non2xx
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
    [ -z "$non2xx" ] || warn "$name: $non2xx non-2xx responses"
    local rps p50 p99
    rps=$(echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')
    p50=$(to_ms "$(echo "$out" | awk '$1 == "50%" {print $2}')")
    p99=$(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")
    echo "$rps $p50 $p99"
}
# first_ms URL [CURL_ARGS...]: latency of one request in ms.
first_ms() {
    local url=$1
    shift
    curl -s -o /dev/null -w '%{time_total}' -H "X-API-Key: $KEY" "$@" "$url" | awk '{printf "%.2f", $1 * 1000}'
}

# The ceiling: nginx serving the body of GET /models as a static file,
# measured just before the warm rows (below).
nginx_setup "$DATA/nginx"
api "/api/v1/models" >"$DATA/nginx/www/models.json"

# Cold: every request a cache miss.
declare -A COLD
for case in "${CASES[@]}" "estimate|"; do
    COLD[${case%%|*}]="- - -"
done
if [ "$COLD_RUNS" != 0 ]; then
    for case in "${CASES[@]}"; do
        name=${case%%|*}
        log "$name: cold, wrk $DURATION"
        COLD[$name]=$(run_wrk "$name cold" "http://$ADDR${case#*|}" -H "X-API-Key: $KEY")
    done
    COLD[estimate]=$(run_wrk "estimate cold" "http://$ADDR/api/v1/estimate" -s "$DATA/estimate.lua")
fi
stop_server

# Warm: the response cache on; X-Forwarded-For from this host trusted, for
# the anonymous rows below.
serve --trusted-proxies 127.0.0.1/32
# nginx with the same requests as the busy-key rows (the key header, which it
# ignores), straight before them: the machine's state moves within a run.
nginx_start models.json
log "nginx ceiling on 127.0.0.1:$NGINX_PORT ($(wc -c <"$DATA/nginx/www/models.json") bytes)"
read -r NGINX_RPS NGINX_P50 NGINX_P99 < <(run_wrk "nginx" "http://127.0.0.1:$NGINX_PORT/models.json" -H "X-API-Key: $KEY")
nginx_stop
ROWS=()
row() { ROWS+=("$(printf '%-22s %10s %8s %8s %7s %9s %10s %8s %8s' "$@")"); }
# ratio RPS [NGINX]: RPS over NGINX (default: the ceiling above).
ratio() { awk -v a="$1" -v b="${2:-$NGINX_RPS}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
# paired NAME URL [WRK_ARGS...]: three rounds, each nginx (the ceiling's
# requests) straight before the server; sets rps, p50, p99 and nrps (nginx's
# req/s), each the median of its three. On this kind of machine either figure of one 5 s
# run moves by a third from run to run (nginx's from 56k to 109k req/s), so a
# ratio of single runs says as much about the machine's moment as about the
# server; every round's pair is printed below the table (PAIRS).
PAIRS=()
paired() {
    local name=$1 url=$2 i
    local -a r=() p5=() p9=() n=()
    shift 2
    for i in 1 2 3; do
        nginx_start models.json
        read -r nrps _ _ < <(run_wrk "nginx beside $name $i" "http://127.0.0.1:$NGINX_PORT/models.json" \
            -H "X-API-Key: $KEY")
        nginx_stop
        read -r rps p50 p99 < <(run_wrk "$name $i" "$url" "$@")
        r+=("$rps") p5+=("$p50") p9+=("$p99") n+=("$nrps")
        PAIRS+=("$(printf '%-22s %5s %10s %8s %10s %7s' "$name" "$i" "$rps" "$p99" "$nrps" "$(ratio "$rps" "$nrps")")")
    done
    rps=$(median3 "${r[@]}") p50=$(median3 "${p5[@]}") p99=$(median3 "${p9[@]}") nrps=$(median3 "${n[@]}")
}
row "nginx static /models" "$NGINX_RPS" "$NGINX_P50" "$NGINX_P99" "1.00" "-" "-" "-" "-"
for case in "${CASES[@]}"; do
    name=${case%%|*}
    path=${case#*|}
    first=$(first_ms "http://$ADDR$path")
    log "$name: first request ${first} ms; warm, wrk $DURATION"
    if [ "$name" = models ]; then
        # The busy-key row: beside nginx round by round.
        paired "$name" "http://$ADDR$path" -H "X-API-Key: $KEY"
    else
        read -r rps p50 p99 < <(run_wrk "$name" "http://$ADDR$path" -H "X-API-Key: $KEY")
        nrps=$NGINX_RPS
    fi
    # shellcheck disable=SC2086 # three fields
    row "$name" "$rps" "$p50" "$p99" "$(ratio "$rps" "$nrps")" "$first" ${COLD[$name]}
done
# The same hits for a key that is never counted: what the accounting costs.
read -r rps p50 p99 < <(run_wrk "models internal" "http://$ADDR/api/v1/models" -H "X-API-Key: $INTERNAL_KEY")
row "models (internal key)" "$rps" "$p50" "$p99" "$(ratio "$rps")" "-" "-" "-" "-"
# Compressed hits, as a browser asks.
read -r rps p50 p99 < <(run_wrk "models gzip" "http://$ADDR/api/v1/models" -H "X-API-Key: $KEY" -H "Accept-Encoding: gzip")
row "models (gzip)" "$rps" "$p50" "$p99" "$(ratio "$rps")" "-" "-" "-" "-"
# Estimates are computed per request; warm, their prices come from the cache.
first=$(first_ms "http://$ADDR/api/v1/estimate" -X POST -H 'Content-Type: application/json' \
    --data "$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" "$DATA/estimate.lua")")
paired "estimate" "http://$ADDR/api/v1/estimate" -s "$DATA/estimate.lua"
# shellcheck disable=SC2086
row "POST /estimate" "$rps" "$p50" "$p99" "$(ratio "$rps" "$nrps")" "$first" ${COLD[estimate]}
# Anonymous traffic from distinct addresses: a new client address per request
# (X-Forwarded-For), each counted against its own anonymous quota (the real
# plan: 60 an hour, 2 a second), beside nginx serving the same bytes in the
# same run; and the quota accounting's database calls per 1,000 counted
# requests (from /healthz before and after).
cat >"$DATA/anon.lua" <<'EOF'
-- A new client address per request: the thread's number and a counter, past
-- an offset (OFFSET, set per case) so that no two cases share an address.
local threads = 0
function setup(thread)
    thread:set("tid", threads)
    threads = threads + 1
end
local base = OFFSET
local n = 0
function request()
    n = n + 1
    local a = base + tid * 4194304 + n
    local ip = string.format("%d.%d.%d.%d", 10 + math.floor(a / 16777216) % 100,
        math.floor(a / 65536) % 256, math.floor(a / 256) % 256, a % 256)
    return wrk.format(nil, nil, { ["X-Forwarded-For"] = ip })
end
EOF
ANON_CASES=(
    "list|/api/v1/models?provider=openai&limit=20"
    "card|/api/v1/models/$(enc "$FIRST")?include=pricing"
    "changes|/api/v1/changes"
)
# At each of BENCH_ANON_CONNECTIONS (default "32 64"): nginx first, then the
# server, for each case. nginx gets the same requests from the same wrk script
# (a new X-Forwarded-For each, which it ignores): the script's work per request
# is wrk's, on the same cores, and a ceiling measured without it (shown as
# "plain") is that much higher than what the same client can ask of any server.
ANON_CONNECTIONS=${BENCH_ANON_CONNECTIONS:-32 64}
ANON_ROWS=()
anon_row() { ANON_ROWS+=("$(printf '%-22s %5s %10s %8s %8s %10s %8s %8s %7s %10s %10s %9s' "$@")"); }
accounting() {
    curl -s "http://$ADDR/healthz" | jq -r '.quota_accounting | "\(.db_calls) \(.requests) \(.in_memory)"'
}
n=0
for case in "${ANON_CASES[@]}"; do
    name=${case%%|*}
    n=$((n + 1))
    # One address each: the anonymous burst is 2 a second.
    curl -sf -H "X-Forwarded-For: 192.0.2.$n" "http://$ADDR${case#*|}" >"$DATA/nginx/www/anon-$name.json" \
        || die "anonymous $name failed"
done
offset=0
for conns in $ANON_CONNECTIONS; do
    for case in "${ANON_CASES[@]}"; do
        name=${case%%|*}
        path=${case#*|}
        offset=$((offset + 16777216))
        sed "s/OFFSET/$offset/" "$DATA/anon.lua" >"$DATA/anon-$name.lua"
        nginx_start "anon-$name.json"
        read -r plain _ _ < <(WRK_CONNECTIONS=$conns run_wrk "nginx plain $name $conns" \
            "http://127.0.0.1:$NGINX_PORT/anon-$name.json")
        read -r nrps np50 np99 < <(WRK_CONNECTIONS=$conns run_wrk "nginx $name $conns" \
            "http://127.0.0.1:$NGINX_PORT/anon-$name.json" -s "$DATA/anon-$name.lua")
        nginx_stop
        read -r calls0 requests0 memory0 < <(accounting)
        log "anonymous $name: wrk $DURATION -c$conns, a new address per request"
        read -r rps p50 p99 < <(WRK_CONNECTIONS=$conns run_wrk "anon $name $conns" "http://$ADDR$path" \
            -s "$DATA/anon-$name.lua")
        read -r calls1 requests1 memory1 < <(accounting)
        per1000=$(awk -v c=$((calls1 - calls0)) -v r=$((requests1 - requests0)) \
            'BEGIN { if (r > 0) printf "%.1f", c * 1000 / r; else print "-" }')
        share=$(awk -v m=$((memory1 - memory0)) -v r=$((requests1 - requests0)) \
            'BEGIN { if (r > 0) printf "%.1f", m * 100 / r; else print "-" }')
        anon_row "$name" "$conns" "$rps" "$p50" "$p99" "$nrps" "$np50" "$np99" \
            "$(awk -v a="$rps" -v b="$nrps" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
            "$plain" "$per1000" "$share"
    done
done
MEM=$(awk '/^Vm(RSS|HWM)/ {printf "%s %s MB  ", $1, int($2 / 1024)}' "/proc/$SERVER_PID/status")
STATS=$(curl -s "http://$ADDR/healthz" | jq -c .response_cache)
QUOTA=$(curl -s "http://$ADDR/healthz" | jq -c .quota_accounting)

# Database time of each api function (one client, no cache in front).
SOCKET=$DATA/db/run
PGARGS=(-h "$SOCKET" -p 5432 -U postgres pricing)
q() { printf '%s' "$1" | sed "s/'/''/g"; }
CURSOR_SQL=null
[ -z "$CURSOR" ] || CURSOR_SQL="'$(q "$CURSOR")'"
IDS_SQL="array[$(echo "$IDS" | sed "s/'/''/g; s/.*/'&'/" | paste -sd, -)]::text[]"
FUNCS=(
    "list_models|select api.list_models(null, null, null, null, null, null, null, null, 20, null, null)"
    "list_models filtered|select api.list_models(null, 'openai', 'text', null, null, 100000, null, null, 20, null, null)"
    "list_models sorted|select api.list_models(null, null, null, null, null, null, null, 'price_blended_asc', 50, null, null)"
    "list_models deep|select api.list_models(null, null, null, null, null, null, null, null, 20, $CURSOR_SQL, null)"
    "list_models search|select api.list_models('gpt', null, null, null, null, null, null, null, 20, null, null)"
    "get_model includes|select api.get_model('$(q "$FIRST")', array['pricing', 'deprecation', 'benchmarks', 'aliases', 'history_summary'], null)"
    "model_history 365 d|select api.model_history('$(q "$FIRST")', null, null, '$YEAR_AGO', '$TODAY', 'daily', 100, null)"
    "compare 5|select api.compare($IDS_SQL, null, null)"
    "list_changes|select api.list_changes(null, null, null, null, null, 50, null)"
    "estimate_prices 5|select api.estimate_prices($IDS_SQL, null, null)"
    "price_dump|select api.price_dump()"
)
DBROWS=()
[ "$COLD_RUNS" != 0 ] || FUNCS=()
for f in "${FUNCS[@]}"; do
    name=${f%%|*}
    sql=${f#*|}
    echo "$sql;" >"$DATA/pgbench.sql"
    if ! psql -X -q "${PGARGS[@]}" -c "$sql" >/dev/null 2>"$DATA/pgbench.err"; then
        DBROWS+=("$(printf '%-22s %s' "$name" "skipped: $(head -1 "$DATA/pgbench.err")")")
        continue
    fi
    rm -f "$DATA"/pgbench_log.*
    (cd "$DATA" && pgbench -n -c 1 -T "$PG_DURATION" -f pgbench.sql -l --log-prefix=pgbench_log "${PGARGS[@]}" \
        >pgbench.out 2>&1) || { DBROWS+=("$(printf '%-22s %s' "$name" "pgbench failed")"); continue; }
    stats=$(cat "$DATA"/pgbench_log.* | awk '{print $3}' | sort -n \
        | awk '{a[NR] = $1; s += $1} END { i = int(NR * 0.99); if (i < 1) i = 1; if (NR) printf "%d %.2f %.2f", NR, s / NR / 1000, a[i] / 1000 }')
    read -r n avg p99 <<<"$stats"
    DBROWS+=("$(printf '%-22s %8s %9s %9s' "$name" "$n" "$avg" "$p99")")
done

echo
echo "HTTP (wrk -t$THREADS -c$CONNECTIONS -d$DURATION, free key, every request counted)"
echo "warm = cache hits; first = one request's latency on the warm server (a miss); cold = cache keeping nothing"
printf '%-22s %10s %8s %8s %7s %9s %10s %8s %8s\n' "case" "warm req/s" "p50 ms" "p99 ms" "/nginx" \
    "first ms" "cold req/s" "p50 ms" "p99 ms"
printf '%s\n' "${ROWS[@]}"
echo
echo "models (busy key) and POST /estimate: their /nginx is of the medians of three rounds, each nginx"
echo "(GET /models as a static file) straight before the server; each round:"
printf '%-22s %5s %10s %8s %10s %7s\n' "case" "round" "req/s" "p99 ms" "nginx r/s" "/nginx"
printf '%s\n' "${PAIRS[@]}"
echo
echo "anonymous, a new client address per request (X-Forwarded-For), warm cache; nginx serving the same bytes"
echo "with as many connections, just before, to the same wrk script (plain: nginx to wrk without the script);"
echo "calls/1000: api.admit_batch calls per 1,000 counted requests;"
echo "in memory: the share of counted requests admitted from a shard lease (no database wait)"
printf '%-22s %5s %10s %8s %8s %10s %8s %8s %7s %10s %10s %9s\n' "case" "conns" "req/s" "p50 ms" "p99 ms" \
    "nginx r/s" "p50 ms" "p99 ms" "/nginx" "plain r/s" "calls/1000" "in mem %"
printf '%s\n' "${ANON_ROWS[@]}"
echo
echo "server memory after load: $MEM"
echo "response cache: $STATS"
echo "quota accounting: $QUOTA"
echo
echo "database time per api function (pgbench, 1 client, ${PG_DURATION} s)"
printf '%-22s %8s %9s %9s\n' "function" "calls" "avg ms" "p99 ms"
printf '%s\n' "${DBROWS[@]}"
