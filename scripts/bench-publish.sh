#!/usr/bin/env bash
# Benchmark of the publishing pipeline and of the embedded default's starts,
# on the bundled dataset, with a release build. Prints wall times.
#
#   bash scripts/bench-publish.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-postgres.sh
cargo build --release --locked --bin pricing >&2
bin=target/release/pricing
work=$(mktemp -d /tmp/pricing-bench.XXXXXX)
chmod 755 "$work"  # the embedded PostgreSQL runs as user postgres when we are root
trap 'pkill -f "pricing serve --data-dir $work" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# serve_until_healthy DIR: start `pricing serve`, wait for health 200, print seconds.
serve_until_healthy() {
    local dir=$1 port start
    port=$(free_port)
    start=$(now)
    "$bin" serve --data-dir "$dir" --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
    local pid=$!
    until curl -sf "127.0.0.1:$port/api/v1/health" >/dev/null; do
        kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
        sleep 0.02
    done
    secs "$start" "$(now)"
    kill -TERM "$pid"
    wait "$pid"
}

first=$(serve_until_healthy "$work/a")
second=$(serve_until_healthy "$work/a")

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
