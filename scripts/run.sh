#!/usr/bin/env bash
# The run command: builds the server and serves on the embedded default
# database (a private PostgreSQL cluster in ./.pricing-data), installing the
# PostgreSQL binaries first when the machine lacks them.
#
#   bash scripts/run.sh [serve flags...]      e.g. --listen 127.0.0.1:9000
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-postgres.sh
cargo build --release --locked --bin pricing
exec target/release/pricing serve "$@"
