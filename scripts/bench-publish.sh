#!/usr/bin/env bash
# Benchmark of the publishing pipeline and of the embedded default's starts,
# on the bundled dataset, with a release build. Prints wall times.
#
#   bash scripts/bench-publish.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
bash scripts/ensure-postgres.sh
cargo build --release --locked --bin pricing >&2
bin=target/release/pricing
work=$(mktemp -d /tmp/pricing-bench.XXXXXX)
chmod 755 "$work"  # the embedded PostgreSQL runs as user postgres when we are root
trap 'stop_server; rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# serve_until_healthy DIR: start `pricing serve`, wait for health 200 (the
# database answers), stop it; the seconds it took in $ELAPSED.
serve_until_healthy() {
    local start
    start=$(now)
    SERVER_READY_PATH=/api/v1/health start_server "$bin" "$work/serve.log" --data-dir "$1"
    ELAPSED=$(secs "$start" "$(now)")
    stop_server
}

serve_until_healthy "$work/a"
first=$ELAPSED
serve_until_healthy "$work/a"
second=$ELAPSED

# A full publish of the bundled snapshot into a fresh (already migrated) database.
"$bin" migrate --data-dir "$work/b" >/dev/null 2>&1
start=$(now)
"$bin" publish data/snapshot.json.gz --data-dir "$work/b" >"$work/publish.out" 2>&1
full=$(secs "$start" "$(now)")
start=$(now)
"$bin" publish data/snapshot.json.gz --data-dir "$work/b" >/dev/null 2>&1
again=$(secs "$start" "$(now)")

printf '\n%-62s %8s\n' "benchmark (release build, bundled dataset)" "seconds"
printf '%-62s %8s\n' "first start of the embedded default (initdb..serving)" "$first"
printf '%-62s %8s\n' "second start on the same data dir" "$second"
printf '%-62s %8s\n' "full publish into an empty database (incl. cluster start/stop)" "$full"
printf '%-62s %8s\n' "re-publish of the same snapshot (no events)" "$again"
grep -o "published .* in [0-9.]* s" "$work/publish.out" | sed "s/^/  transaction: /" >&2
