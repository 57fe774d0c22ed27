#!/usr/bin/env bash
# ensure-client-tools.sh: a Python venv in target/py-clients with the tools
# operators' and clients' own software is built on, pinned, which the tests
# drive against a real server: openapi-python-client (the most used Python
# client generator; tests/api/clients.rs generates a client from the served
# OpenAPI document and calls every operation through it) and prometheus-client
# (its text-format parser reads GET /metrics in tests/api/metrics.rs).
# Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=client-tools
GENERATOR_VERSION=0.29.1
PROMETHEUS_VERSION=0.26.0
ensure_venv target/py-clients \
    "import importlib.metadata as m; assert m.version('openapi-python-client') == '$GENERATOR_VERSION' and m.version('prometheus-client') == '$PROMETHEUS_VERSION'" \
    "openapi-python-client==$GENERATOR_VERSION" "prometheus-client==$PROMETHEUS_VERSION"
