#!/usr/bin/env bash
# build-web-demo.sh: builds the browser pages (calculator, models, model page,
# changes) into web-demo/dist, which `pricing serve` serves at /demo/
# (--demo-dir / PRICING_DEMO_DIR to serve another copy).
#
#   bash scripts/build-web-demo.sh
#
# 1. Installs what is missing: the wasm32-unknown-unknown target (rustup),
#    wasm-bindgen-cli at exactly the version web-demo/Cargo.toml pins (cargo
#    install, about 4 minutes the first time), node and npm, and the npm packages
#    of web-demo/package-lock.json (npm ci: the charting library uPlot, and the
#    test tools).
# 2. Builds the web-demo cdylib for wasm32 in release.
# 3. wasm-bindgen --target web  -> web-demo/dist/pkg   (the pages' module)
#    wasm-bindgen --target nodejs -> web-demo/pkg-node (node tests, benchmark)
# 4. Copies the pages (web-demo/www/*) into web-demo/dist and uPlot's module and
#    stylesheet into web-demo/dist/vendor, so the pages load nothing from
#    anywhere but the server.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=build-web-demo

# The CLI must match the wasm-bindgen crate exactly; read the pin from the manifest.
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' web-demo/Cargo.toml)
[ -n "$WASM_BINDGEN_VERSION" ] || die "no exact wasm-bindgen pin (\"=x.y.z\") in web-demo/Cargo.toml"
TARGET=wasm32-unknown-unknown
DIST=web-demo/dist
PKG_NODE=web-demo/pkg-node

if ! rustup target list --installed | grep -qx "$TARGET"; then
    log "rustup target add $TARGET"
    rustup target add "$TARGET" >&2
fi

installed=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$installed" != "$WASM_BINDGEN_VERSION" ]; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (found: ${installed:-none}); takes a few minutes"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force >&2
    installed=$(wasm-bindgen --version | awk '{print $2}')
    [ "$installed" = "$WASM_BINDGEN_VERSION" ] \
        || die "wasm-bindgen on PATH is $installed, not $WASM_BINDGEN_VERSION (is ~/.cargo/bin first on PATH?)"
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    apt_install nodejs npm || die "could not install node and npm"
fi
if [ ! -d web-demo/node_modules/uplot ] \
    || [ web-demo/package-lock.json -nt web-demo/node_modules/.package-lock.json ]; then
    log "npm ci (web-demo)"
    (cd web-demo && npm ci --no-audit --no-fund >&2)
fi

log "cargo build -p web-demo --target $TARGET --release"
cargo build -p web-demo --target "$TARGET" --release --locked >&2
WASM=target/$TARGET/release/web_demo.wasm

rm -rf "$DIST" "$PKG_NODE"
mkdir -p "$DIST"
log "wasm-bindgen --target web -> $DIST/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$DIST/pkg" "$WASM"
log "wasm-bindgen --target nodejs -> $PKG_NODE"
wasm-bindgen --target nodejs --no-typescript --out-dir "$PKG_NODE" "$WASM"

cp web-demo/www/*.js web-demo/www/*.css "$DIST/"
log "pages: web-demo/www/*.html set into web-demo/www/layout.html (listings through listing.part.html)"
node web-demo/pages.mjs web-demo/www "$DIST"
mkdir -p "$DIST/vendor"
cp web-demo/node_modules/uplot/dist/uPlot.esm.js web-demo/node_modules/uplot/dist/uPlot.min.css \
    web-demo/node_modules/uplot/LICENSE "$DIST/vendor/"
log "built $DIST ($(du -sh "$DIST" | cut -f1)); serve it with: bash scripts/run.sh, then open /demo/"
