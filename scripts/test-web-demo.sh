#!/usr/bin/env bash
# test-web-demo.sh: the browser calculator's checks (a step of scripts/test.sh).
#
#   bash scripts/test-web-demo.sh
#
# 1. Installs what is missing: node and npm, Debian's chromium (no test tool
#    downloads a browser of its own), the npm packages of web-demo/package-lock.json.
# 2. Builds the page and its WASM (scripts/build-web-demo.sh) and the server.
# 3. One `node --test` run: the shared vectors through the WASM build under node
#    (web-demo/tests/) and the browser test against a real `pricing serve`
#    (tests/browser/, screenshot in tests/artifacts/demo.png).
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

bash scripts/build-web-demo.sh

if [ ! -d web-demo/node_modules/playwright-core ] \
    || [ web-demo/package-lock.json -nt web-demo/node_modules/.package-lock.json ]; then
    log "npm ci (web-demo)"
    (cd web-demo && npm ci --no-audit --no-fund >&2)
fi

log "cargo build --bin pricing"
cargo build --locked --bin pricing >&2

node --test web-demo/tests/ tests/browser/
