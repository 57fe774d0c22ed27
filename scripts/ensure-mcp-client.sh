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
if "$VENV/bin/python" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_VERSION'" 2>/dev/null; then
    exit 0
fi
log "creating $VENV with mcp $MCP_VERSION"
python3 -m venv "$VENV" 2>/dev/null || { apt_install python3-venv && python3 -m venv "$VENV"; }
"$VENV/bin/pip" install -q "mcp==$MCP_VERSION" || die "pip install mcp==$MCP_VERSION failed"
