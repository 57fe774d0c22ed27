#!/usr/bin/env bash
# test-web-demo.sh: the browser pages' checks (a step of scripts/test.sh).
#
#   bash scripts/test-web-demo.sh
#
# 1. Installs what is missing: node and npm, Debian's chromium (no test tool
#    downloads a browser of its own).
# 2. Builds the pages and their WASM (scripts/build-web-demo.sh, which also runs
#    npm ci: uPlot, playwright-core, axe-core) and the server.
# 3. One `node --test` run: the shared vectors and the series export through the
#    WASM build under node (web-demo/tests/) and the browser tests of every page
#    against a real `pricing serve` (tests/browser/, screenshots at desktop and
#    phone widths in tests/artifacts/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=test-web-demo

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    apt_install nodejs npm || die "could not install node and npm"
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || warn "node $(node --version) is older than 20, which playwright-core needs"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
    apt_install chromium || die "could not install chromium"
fi
export CHROMIUM

# Also installs the npm packages (npm ci), the test tools among them.
bash scripts/build-web-demo.sh

log "cargo build --bin pricing"
cargo build --locked --bin pricing >&2

node --test web-demo/tests/ tests/browser/
