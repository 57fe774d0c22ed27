#!/usr/bin/env bash
# The test command: sets up what a fresh machine lacks, then runs every check.
#
#   bash scripts/test.sh
#
# 1. Docker: installs docker.io and starts dockerd when none answers.
# 2. PostgreSQL: installs the server binaries (for the embedded default) and,
#    unless PRICING_TEST_PG_IMAGE names an image to use, builds the local image
#    pricing-postgres:15 from them (no image is ever pulled).
# 3. cargo fmt --check, cargo clippy -D warnings, and every test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=test

step() { printf '\n==> %s\n' "$*" >&2; }

step "Docker engine"
bash scripts/ensure-docker.sh

step "PostgreSQL binaries and test image"
bash scripts/ensure-postgres.sh
if [ -z "${PRICING_TEST_PG_IMAGE:-}" ]; then
    export PRICING_TEST_PG_IMAGE=pricing-postgres:15
    PRICING_PG_IMAGE=$PRICING_TEST_PG_IMAGE bash scripts/build-postgres-image.sh
fi
log "tests run PostgreSQL from image $PRICING_TEST_PG_IMAGE"

# Containers this run's tests start are labelled pricing-tests=<this run>;
# remove them however we exit (and only them: other runs may share the daemon).
export PRICING_TEST_RUN="run-$$-$(date +%s)"
cleanup() {
    local ids
    ids=$(docker ps -aq --filter "label=pricing-tests=$PRICING_TEST_RUN" 2>/dev/null || true)
    [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "dataset pipeline unit tests (tools/dataset, standard library only)"
python3 -m unittest discover -s tools/dataset -p 'test_*.py'

step "no import circle (Rust crates, tools/dataset, scripts)"
python3 scripts/import-circles.py

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "MCP client for the tests (official Python SDK)"
bash scripts/ensure-mcp-client.sh

step "Client tools for the tests (openapi-python-client, prometheus-client)"
bash scripts/ensure-client-tools.sh

step "cargo test"
cargo test --workspace --locked --no-fail-fast 2>&1

# ---- API conformance (REST API) --------------------------------------------
# The served OpenAPI document through openapi-spec-validator, and schemathesis
# against a running `pricing serve` on the fixtures (scripts/api-conformance.sh;
# Python venv in target/py; fails on any finding).
step "API conformance: openapi-spec-validator and schemathesis"
bash scripts/api-conformance.sh

# ---- Browser pages (web-demo) ----------------------------------------------
# Builds the pages and their WASM (installing the wasm32 target, wasm-bindgen-cli
# and the npm packages, uPlot among them, when missing), then one node --test
# run: the shared vectors and the series export through the WASM build, and the
# browser tests of every page under /demo/ (axe-core, screenshots) on Debian's
# chromium against a real server (scripts/test-web-demo.sh installs node,
# chromium and the npm packages).
step "Browser pages: WASM build, vectors in WASM, browser tests"
bash scripts/test-web-demo.sh
