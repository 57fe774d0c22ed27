#!/usr/bin/env bash
# ensure-mcp-client.sh: a Python venv in target/py-mcp with the official MCP
# SDK (`mcp`, pinned), which tests/api/mcp.rs drives as a real MCP client
# (tests/mcp/client.py). Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=mcp-client
VENV=target/py-mcp
MCP_VERSION=2.3.0
ensure_venv "$VENV" "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" \
    "mcp==$MCP_VERSION"
