#!/usr/bin/env bash
# api-conformance.sh: check the running service against its own OpenAPI
# description with third-party tools (docs/api.md, "Conformance").
#
#   bash scripts/api-conformance.sh
#
# 1. A Python venv in target/py with openapi-spec-validator and schemathesis
#    (pinned below; installed once).
# 2. A throwaway PostgreSQL container from $PRICING_TEST_PG_IMAGE (default
#    pricing-postgres:15, see scripts/build-postgres-image.sh), labelled
#    pricing-tests, removed on exit.
# 3. `pricing publish` of tests/fixtures/snapshot-a.json then snapshot-b.json,
#    then `pricing serve` on a free local port.
# 4. openapi-spec-validator on the served /api/v1/openapi.json.
# 5. schemathesis against the server, with an internal key (no case stops at
#    a quota): checks not_a_server_error,
#    response_schema_conformance, status_code_conformance and
#    content_type_conformance, at most $CONFORMANCE_MAX_EXAMPLES (30) cases per
#    operation, within $CONFORMANCE_TIMEOUT seconds (900). Any finding fails.
# 6. A fuzzing pass beyond schemathesis's defaults, on a copy of the document
#    in which every free string (path and query parameters, list items, body
#    strings) may hold up to $FUZZ_MAX_CHARS (3000) characters of any Unicode,
#    far past the service's limits: schemathesis generates values of every
#    length up to that bound and past it, ASCII or not, valid and invalid
#    (--mode all), $FUZZ_MAX_EXAMPLES (30) cases per operation, with an
#    internal key so that no request stops at a quota; the only check is that
#    no response is a 5xx. It prints how many requests it sent and the
#    statuses they got.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/lib.sh
LIB_LOG_TAG=api-conformance

IMAGE=${PRICING_TEST_PG_IMAGE:-pricing-postgres:15}
MAX_EXAMPLES=${CONFORMANCE_MAX_EXAMPLES:-30}
FUZZ_MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-30}
FUZZ_MAX_CHARS=${FUZZ_MAX_CHARS:-3000}
TIMEOUT=${CONFORMANCE_TIMEOUT:-900}
VENV=target/py
WORK=target/conformance
SCHEMATHESIS_VERSION=4.32.5
VALIDATOR_VERSION=0.9.0

mkdir -p "$WORK"

# 1. tools
ensure_venv "$VENV" 'import schemathesis, openapi_spec_validator' \
    "schemathesis==$SCHEMATHESIS_VERSION" "openapi-spec-validator==$VALIDATOR_VERSION"

fetch() { "$VENV/bin/python" -c 'import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=5).read())' "$1"; }

CONTAINER=""
cleanup() {
    stop_server
    [ -z "$CONTAINER" ] || docker rm -f "$CONTAINER" >/dev/null 2>&1 || true
    [ -z "${LABEL:-}" ] || cleanup_label
}
trap cleanup EXIT

# 2. database
log "building pricing"
cargo build --locked -q -p pricing-server --bin pricing
PRICING=target/debug/pricing
LABEL=conformance-$$
cleanup_label() {
    local ids
    ids=$(docker ps -aq --filter "label=pricing-tests=$LABEL" 2>/dev/null || true)
    [ -z "$ids" ] || docker rm -f $ids >/dev/null 2>&1 || true
}
# Docker picks the host port; under parallel container starts it can race for
# one, so a failed start is cleaned up and retried.
for attempt in 1 2 3; do
    if CONTAINER=$(docker run -d --label "pricing-tests=$LABEL" -p 127.0.0.1::5432 "$IMAGE" \
            postgres -c fsync=off -c synchronous_commit=off); then
        break
    fi
    cleanup_label
    CONTAINER=""
    [ "$attempt" -lt 3 ] || die "could not start $IMAGE (build it with scripts/build-postgres-image.sh)"
    sleep 1
done
PG_PORT=$(docker port "$CONTAINER" 5432/tcp | head -n1 | sed 's/.*://')
DATABASE_URL="postgres://postgres:postgres@127.0.0.1:$PG_PORT/postgres"
log "PostgreSQL on port $PG_PORT"
for i in $(seq 1 120); do
    if "$PRICING" migrate --database-url "$DATABASE_URL" >/dev/null 2>&1; then break; fi
    [ "$i" -lt 120 ] || die "PostgreSQL did not come up within 60 s: $(docker logs --tail 20 "$CONTAINER" 2>&1)"
    sleep 0.5
done

# 3. data and server
for name in snapshot-a snapshot-b; do
    file=tests/fixtures/$name.json
    at=$("$VENV/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["generated_at"])' "$file")
    "$PRICING" publish "$file" --at "$at" --database-url "$DATABASE_URL" >/dev/null
done
# The access log counts the fuzzing pass's answers below: start it empty.
: >"$WORK/serve.log"
# --no-webhook-delivery: the subscriptions the fuzzing registers are never sent
# anywhere (their URLs are made up).
start_server "$PRICING" "$WORK/serve.log" --database-url "$DATABASE_URL" --log-format json \
    --no-webhook-delivery
BASE=$SERVER_BASE

# 4. the document
fetch "$BASE/api/v1/openapi.json" >"$WORK/openapi.json"
log "openapi-spec-validator"
"$VENV/bin/openapi-spec-validator" "$WORK/openapi.json"

# 5. the server against the document
log "schemathesis ($MAX_EXAMPLES cases per operation, at most $TIMEOUT s)"
# With an internal key: anonymous, the hourly quota would answer 429 to most
# cases and leave the logic behind every operation unchecked.
CHECK_KEY=$("$PRICING" keys issue --tier internal --label conformance --database-url "$DATABASE_URL" 2>/dev/null) \
    || die "could not issue the conformance pass's key"
# Run from target/conformance: schemathesis keeps its cache in the working directory.
(cd "$WORK" && timeout "$TIMEOUT" "$OLDPWD/$VENV/bin/schemathesis" run "$BASE/api/v1/openapi.json" \
    --header "X-API-Key: $CHECK_KEY" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
    --max-examples "$MAX_EXAMPLES" \
    --generation-database none \
    --report junit --report-dir . \
    --no-color)
log "conformance: no findings"

# 6. long and Unicode strings everywhere: no 5xx
"$VENV/bin/python" - "$WORK/openapi.json" "$WORK/fuzz-openapi.json" "$FUZZ_MAX_CHARS" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
most = int(sys.argv[3])

def lengthen(schema):
    """Every plain string (no enum, no format, no pattern) up to `most` characters."""
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string" and not {"enum", "format", "pattern", "$ref"} & schema.keys():
        schema.pop("examples", None)
        schema.pop("default", None)
        schema["maxLength"] = most
    for key in ("items", "additionalProperties"):
        lengthen(schema.get(key))
    for sub in schema.get("properties", {}).values():
        lengthen(sub)

for path in doc["paths"].values():
    for operation in path.values():
        if not isinstance(operation, dict):
            continue
        for parameter in operation.get("parameters", []):
            if "$ref" in parameter:
                parameter.update(doc["components"]["parameters"][parameter.pop("$ref").split("/")[-1]])
            parameter.pop("examples", None)
            parameter.pop("example", None)
            lengthen(parameter.get("schema"))
lengthen(doc["components"]["schemas"]["EstimateRequest"])
json.dump(doc, open(sys.argv[2], "w"))
PY
log "fuzzing: strings of up to $FUZZ_MAX_CHARS characters of any Unicode, valid and invalid ($FUZZ_MAX_EXAMPLES cases per operation)"
FUZZ_KEY=$("$PRICING" keys issue --tier internal --label fuzzing --database-url "$DATABASE_URL" 2>/dev/null) \
    || die "could not issue the fuzzing pass's key"
LOGGED=$(wc -l <"$WORK/serve.log")
(cd "$WORK" && timeout "$TIMEOUT" "$OLDPWD/$VENV/bin/schemathesis" run fuzz-openapi.json --url "$BASE" \
    --header "X-API-Key: $FUZZ_KEY" \
    --checks not_a_server_error \
    --mode all \
    --max-examples "$FUZZ_MAX_EXAMPLES" \
    --generation-database none \
    --no-color) || die "fuzzing found a server error (see above)"
# What the server answered, from its access log (one line per request).
tail -n +"$((LOGGED + 1))" "$WORK/serve.log" >"$WORK/fuzz.log"
grep -o '"status":[0-9]*' "$WORK/fuzz.log" | sort | uniq -c | sort -rn \
    | awk '{n += $1; s = s sprintf("%s x %s, ", $2, $1)} END {printf "[api-conformance] fuzzing: %d requests answered %s\n", n, s}' >&2
if grep -q '"status":5' "$WORK/fuzz.log"; then die "fuzzing: the server answered 5xx (see $WORK/fuzz.log)"; fi
log "fuzzing: no 5xx"
