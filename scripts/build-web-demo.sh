#!/usr/bin/env bash
# build-web-demo.sh: builds the browser calculator into web-demo/dist, which
# `pricing serve` serves at /demo/ (--demo-dir / PRICING_DEMO_DIR to serve
# another copy).
#
#   bash scripts/build-web-demo.sh
#
# 1. Installs what is missing: the wasm32-unknown-unknown target (rustup) and
#    wasm-bindgen-cli at exactly the version web-demo/Cargo.toml pins (cargo
#    install, about 4 minutes the first time).
# 2. Builds the web-demo cdylib for wasm32 in release.
# 3. wasm-bindgen --target web  -> web-demo/dist/pkg   (the page's module)
#    wasm-bindgen --target nodejs -> web-demo/pkg-node (node tests, benchmark)
# 4. Copies the page (web-demo/www/*) into web-demo/dist.
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

log "cargo build -p web-demo --target $TARGET --release"
cargo build -p web-demo --target "$TARGET" --release --locked >&2
WASM=target/$TARGET/release/web_demo.wasm

rm -rf "$DIST" "$PKG_NODE"
mkdir -p "$DIST"
log "wasm-bindgen --target web -> $DIST/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$DIST/pkg" "$WASM"
log "wasm-bindgen --target nodejs -> $PKG_NODE"
wasm-bindgen --target nodejs --no-typescript --out-dir "$PKG_NODE" "$WASM"

cp web-demo/www/* "$DIST/"
log "built $DIST ($(du -sh "$DIST" | cut -f1)); serve it with: bash scripts/run.sh, then open /demo/"
