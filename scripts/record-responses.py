#!/usr/bin/env python3
"""Record the service's answers to a fixed list of requests, or compare two
recordings (scripts/record-responses.sh runs it; see there).

    record-responses.py record BASE_URL KEY OUT.jsonl
    record-responses.py compare A.jsonl B.jsonl

`record` sends the requests one after another and writes one JSON line per
request: the request, its status, the headers listed in KEPT_HEADERS and the
body (text, or base64 when it is not UTF-8). Requests that follow a cursor or
name a model take the value from an earlier answer, so the list is the same on
every run over the same database. Everything the list sends is free of the
clock except the default `until` of history and changes (today), so two
recordings compare equal only on the same UTC day.

Left out because they carry the time, not the behaviour: the `Date` header,
`X-RateLimit-Reset` (the end of the current window) and `uptime_seconds` in
the body of /healthz. Every request names the host `localhost`, and the server
is told its public URL is http://localhost (record-responses.sh), so that the
feeds' links do not carry the port it listens on, which changes between runs.

`compare` prints the first differences and exits 1 when there are any.
"""

import base64
import http.client
import json
import os
import sys
import urllib.parse

# Headers whose values are part of the behaviour and do not depend on the clock.
KEPT_HEADERS = [
    "content-type",
    "content-encoding",
    "content-disposition",
    "content-length",
    "etag",
    "cache-control",
    "vary",
    "allow",
    "location",
    "retry-after",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "access-control-allow-origin",
    "access-control-allow-methods",
    "access-control-allow-headers",
    "access-control-expose-headers",
    "access-control-max-age",
    "www-authenticate",
    "mcp-session-id",
]

# The channels as the OpenAPI document lists them (tests/api/openapi.rs checks
# that list against the server's, server/src/publish/snapshot.rs CHANNELS).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server", "openapi.json"),
          encoding="utf-8") as _doc:
    CHANNELS = json.load(_doc)["components"]["schemas"]["Channel"]["enum"]
SORTS = ["price_input_asc", "price_output_asc", "price_blended_asc", "context_desc",
         "updated_desc"]
STATUSES = ["active", "deprecated", "retired", "all"]
MODALITIES = ["text", "image", "audio", "video"]
INCLUDES = ["pricing", "deprecation", "benchmarks", "aliases", "history_summary"]
COMPONENTS = ["input", "output", "cached_input", "all"]
METRICS = ["price_input", "price_output", "price_blended", "context_window",
           "benchmark_score", "price_per_point"]
EVENT_TYPES = ["price_change", "price_change_scheduled", "deprecation", "retirement",
               "model_launch", "limit_change", "all"]
PRESETS = ["chatbot", "summarization", "extraction", "coding_agent", "translation", "rag_qa",
           "classification"]


class Recorder:
    def __init__(self, base, key, out):
        parsed = urllib.parse.urlsplit(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.key = key
        self.out = out
        self.count = 0
        # Anonymous requests each come from their own client address (the
        # server trusts the loopback proxy), so no burst limit depends on timing.
        self.anonymous = 0

    def send(self, method, path, body=None, headers=None, key=True, drop=()):
        """Sends one request, records it, returns (status, parsed JSON body or None)."""
        headers = dict(headers or {})
        # The feeds name the host they were asked on; the port changes between runs.
        headers.setdefault("Host", "localhost")
        if key is True:
            headers.setdefault("X-API-Key", self.key)
        elif key is False:
            self.anonymous += 1
            headers["X-Forwarded-For"] = f"198.51.100.{self.anonymous}"
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            headers.setdefault("Content-Type", "application/json")
        if isinstance(body, str):
            body = body.encode()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers)
            res = conn.getresponse()
            raw = res.read()
            status = res.status
            kept = {}
            for name in KEPT_HEADERS:
                values = res.headers.get_all(name)
                if values:
                    kept[name] = values
        finally:
            conn.close()
        parsed = None
        try:
            parsed = json.loads(raw)
        except ValueError:
            pass
        recorded_body = raw
        if drop and isinstance(parsed, dict):
            recorded_body = json.dumps({k: v for k, v in parsed.items() if k not in drop},
                                       sort_keys=True).encode()
        try:
            text, encoding = recorded_body.decode("utf-8"), "text"
        except UnicodeDecodeError:
            text, encoding = base64.b64encode(recorded_body).decode(), "base64"
        shown_headers = {k: v for k, v in headers.items() if k != "X-API-Key"}
        if key is True:
            shown_headers["X-API-Key"] = "<internal key>"
        record = {
            "n": self.count,
            "request": {
                "method": method,
                "path": path,
                "headers": shown_headers,
                "body": body.decode("utf-8", "backslashreplace") if body else None,
            },
            "status": status,
            "headers": kept,
            "body_encoding": encoding,
            "body": text,
        }
        self.out.write(json.dumps(record, sort_keys=True) + "\n")
        self.count += 1
        return status, parsed

    def get(self, path, **kw):
        return self.send("GET", path, **kw)

    def mcp(self, payload, key=True, headers=None):
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        h.update(headers or {})
        return self.send("POST", "/mcp", body=payload, headers=h, key=key)

    def tool(self, name, arguments):
        return self.mcp({"jsonrpc": "2.0", "id": self.count, "method": "tools/call",
                         "params": {"name": name, "arguments": arguments}})


def q(path, **params):
    return path + ("?" + urllib.parse.urlencode(params) if params else "")


def items(doc):
    if not isinstance(doc, dict):
        return []
    data = doc.get("data") or {}
    return data.get("items") or data.get("models") or []


def walk(r, path, params, max_pages=60):
    """Follows next_cursor to the end; returns the items seen."""
    seen = []
    cursor = None
    for _ in range(max_pages):
        p = dict(params)
        if cursor:
            p["cursor"] = cursor
        _, doc = r.get(q(path, **p))
        seen.extend(items(doc))
        pagination = (doc or {}).get("pagination") or {}
        cursor = pagination.get("next_cursor")
        if not pagination.get("has_more") or not cursor:
            break
    return seen


def record(r):
    # Health, OpenAPI, unknown paths and methods.
    r.get("/healthz", drop=("uptime_seconds",))
    r.get("/api/v1/health")
    r.send("HEAD", "/api/v1/health")
    r.get("/api/v1/openapi.json")
    r.send("HEAD", "/api/v1/openapi.json")
    for path in ["/nothing", "/api/v1", "/api/v1/nothing", "/api/v2/models", "/feeds/x.xml",
                 "/api/v1/models/openai:gpt-4o/nothing", "/demo", "/demo/"]:
        r.get(path)
    for method, path in [("POST", "/api/v1/models"), ("PUT", "/api/v1/models"),
                         ("DELETE", "/api/v1/compare"), ("GET", "/api/v1/estimate"),
                         ("POST", "/api/v1/health"), ("PATCH", "/feeds/changes.json"),
                         ("POST", "/dumps/prices.csv")]:
        r.send(method, path)
    # CORS preflights and a cross-origin GET.
    for path, method in [("/api/v1/models", "GET"), ("/api/v1/estimate", "POST"),
                         ("/mcp", "POST"), ("/api/v1/changes", "GET")]:
        r.send("OPTIONS", path, headers={"Origin": "https://example.org",
                                         "Access-Control-Request-Method": method,
                                         "Access-Control-Request-Headers": "content-type,x-api-key"})
    r.get("/api/v1/models?limit=1", headers={"Origin": "https://example.org"})

    # Keys and anonymous callers.
    r.get("/api/v1/models?limit=2", key=False)
    r.get("/api/v1/models?limit=2", key=None, headers={"X-API-Key": "pr_live_nope",
                                                      "X-Forwarded-For": "198.51.100.200"})
    r.get("/api/v1/models?limit=2", key=None, headers={"Authorization": "Bearer nope",
                                                      "X-Forwarded-For": "198.51.100.201"})
    r.get("/api/v1/models?limit=2&key=x&key=y", key=None,
          headers={"X-Forwarded-For": "198.51.100.202"})
    r.get("/api/v1/models?limit=2", key=None, headers={"X-Forwarded-For": "not-an-ip"})
    r.get("/api/v1/health", key=False)

    # Models: full walks over every sort and status, every filter.
    all_models = walk(r, "/api/v1/models", {"status": "all", "limit": 100})
    for sort in SORTS:
        walk(r, "/api/v1/models", {"sort": sort, "limit": 100})
    for status in STATUSES:
        walk(r, "/api/v1/models", {"status": status, "limit": 50, "sort": "price_blended_asc"})
    walk(r, "/api/v1/models", {"limit": 7, "sort": "context_desc"}, max_pages=8)
    for modality in MODALITIES:
        r.get(q("/api/v1/models", modality=modality, status="all"))
    for channel in CHANNELS:
        r.get(q("/api/v1/models", channel=channel, limit=10))
    for params in [{"query": "gpt"}, {"query": "claude sonnet"}, {"query": "zzzz-nothing"},
                   {"provider": "openai"}, {"provider": "anthropic", "status": "all"},
                   {"provider": "openia"}, {"provider": "nope-provider"},
                   {"min_context": 200000}, {"min_context": 1}, {"max_input_price": "0.5"},
                   {"max_input_price": "1.25", "sort": "price_input_asc"},
                   {"max_input_price": "0"}, {"provider": "google", "modality": "text",
                                              "channel": "official", "sort": "price_output_asc"},
                   {"limit": 1}, {"limit": 100}, {"as_of": "2025-06-01T00:00:00Z"},
                   {"as_of": "2025-01-01"}]:
        r.get(q("/api/v1/models", **params))
    for params in [{"limit": 0}, {"limit": 101}, {"limit": "x"}, {"sort": "cheapest"},
                   {"status": "gone"}, {"modality": "smell"}, {"channel": "ebay"},
                   {"min_context": 0}, {"min_context": "-5"}, {"max_input_price": "abc"},
                   {"max_input_price": "-1"}, {"max_input_price": "1e3"}, {"cursor": "garbage"},
                   {"cursor": ""}, {"unknown": "1"}, {"as_of": "yesterday"}]:
        r.get(q("/api/v1/models", **params))
    r.get("/api/v1/models?limit=5&limit=6")
    r.get("/api/v1/models?query=%FF")
    r.get("/api/v1/models?query=" + "a" * 3000)
    # A cursor reused with other filters.
    _, first = r.get(q("/api/v1/models", limit=3, sort="price_input_asc"))
    cursor = ((first or {}).get("pagination") or {}).get("next_cursor")
    if cursor:
        r.get(q("/api/v1/models", limit=3, sort="context_desc", cursor=cursor))
        r.get(q("/api/v1/models", limit=4, sort="price_input_asc", cursor=cursor))
        r.get(q("/api/v1/models", limit=3, sort="price_input_asc", cursor=cursor[:-2]))
    # HEAD and conditional GETs.
    status, doc = r.get("/api/v1/models?limit=3")
    r.send("HEAD", "/api/v1/models?limit=3")
    r.get("/api/v1/models?limit=3", headers={"Accept-Encoding": "gzip"})
    r.get("/api/v1/models?limit=3", headers={"Accept-Encoding": "br;q=0, gzip;q=0"})

    ids = [m.get("id") or m.get("model_id") for m in all_models]
    ids = [i for i in ids if i]
    # Cards, every include, and histories for a spread of models.
    picked = ids[:: max(1, len(ids) // 25)][:25]
    for model in picked:
        r.get(q(f"/api/v1/models/{model}", include=",".join(INCLUDES)))
    for model in picked[:12]:
        r.get(f"/api/v1/models/{model}")
        r.get(q(f"/api/v1/models/{model}/history", since="2025-01-01", until="2025-12-31"))
        r.get(q(f"/api/v1/models/{model}/history", granularity="daily", since="2025-06-01",
                until="2025-07-15", limit=100))
    for include in INCLUDES:
        r.get(q("/api/v1/models/openai:o3", include=include))
    for path in ["/api/v1/models/openai:gpt-4o", "/api/v1/models/openai:gpt-4o-2024-08-06",
                 "/api/v1/models/anthropic:claude-3-5-sonnet-latest",
                 "/api/v1/models/openai:gtp-4o", "/api/v1/models/nope:nothing",
                 "/api/v1/models/no-colon", "/api/v1/models/openai:o3?include=prices",
                 "/api/v1/models/openai:o3?include=pricing,pricing",
                 "/api/v1/models/openai:o3?as_of=2025-05-01T00:00:00Z",
                 "/api/v1/models/openai:o3?as_of=bad", "/api/v1/models/openai:o3?foo=1",
                 "/api/v1/models/" + "x" * 400, "/api/v1/models/openai%3Ao3",
                 "/api/v1/models/%E2%82%AC"]:
        r.get(path)
    r.send("HEAD", "/api/v1/models/openai:o3")
    hist = "/api/v1/models/openai:o3/history"
    for component in COMPONENTS:
        r.get(q(hist, component=component, since="2025-01-01", until="2025-12-31"))
    for channel in CHANNELS:
        r.get(q(hist, channel=channel, since="2025-01-01", until="2025-12-31"))
    walk(r, hist, {"granularity": "daily", "since": "2025-01-01", "until": "2025-12-31",
                   "limit": 100})
    walk(r, hist, {"since": "2024-12-01", "until": "2025-11-30", "limit": 1})
    for params in [{}, {"since": "2025-06-01"}, {"until": "2025-06-30"},
                   {"since": "2024-01-01", "until": "2025-12-31"},
                   {"since": "2025-07-01", "until": "2025-06-01"}, {"since": "2025-13-01"},
                   {"since": "June"}, {"component": "total"}, {"granularity": "hourly"},
                   {"limit": 0}, {"limit": 500}, {"cursor": "zzz"}, {"channel": "ebay"},
                   {"channel": "groq", "since": "2025-01-01", "until": "2025-12-31"}]:
        r.get(q(hist, **params))
    r.get(q("/api/v1/models/nope:nothing/history", since="2025-01-01", until="2025-02-01"))

    # Compare.
    for ids_param in ["openai:gpt-4o,anthropic:claude-3-5-sonnet-20241022",
                      "openai:o3,openai:o4-mini,openai:gpt-4.1",
                      ",".join(picked[:5]), ",".join(picked[5:7])]:
        r.get(q("/api/v1/compare", ids=ids_param))
    for metric in METRICS:
        r.get(q("/api/v1/compare", ids="openai:o3,openai:gpt-4o", metrics=metric))
    for params in [{"ids": "openai:o3"}, {"ids": ",".join(picked[:6])}, {},
                   {"ids": "openai:o3,nope:x"}, {"ids": "openai:o3,openai:o3"},
                   {"ids": "openai:o3,openai:gpt-4o", "metrics": "speed"},
                   {"ids": "openai:o3,openai:gpt-4o", "benchmark": "aggregate"},
                   {"ids": "openai:o3,openai:gpt-4o", "benchmark": "mmlu"},
                   {"ids": "openai:o3,,openai:gpt-4o"}, {"ids": "openai:o3,openai:gpt-4o",
                                                         "metrics": ""}]:
        r.get(q("/api/v1/compare", **params))

    # Changes: walks over every event type, filters, errors.
    since, until = "2025-01-01", "2025-12-31"
    for event_type in EVENT_TYPES:
        walk(r, "/api/v1/changes", {"event_type": event_type, "since": since, "until": until,
                                    "limit": 100})
    walk(r, "/api/v1/changes", {"since": "2025-11-01", "until": "2026-10-31", "limit": 25},
         max_pages=10)
    for params in [{}, {"min_significance": 50}, {"min_significance": 90, "since": since,
                                                  "until": until},
                   {"provider": "openai", "since": since, "until": until},
                   {"provider": "openia"}, {"since": "2024-01-01", "until": "2025-12-31"},
                   {"since": "2025-05-01", "until": "2025-04-01"}, {"min_significance": 101},
                   {"min_significance": -1}, {"event_type": "sale"}, {"limit": 0},
                   {"cursor": "x"}, {"until": "2025-02-30"}, {"since": "2025-01-01T00:00:00Z"}]:
        r.get(q("/api/v1/changes", **params))

    # Feeds and the dump.
    for path in ["/feeds/changes.xml", "/feeds/changes.json"]:
        r.get(path)
        r.send("HEAD", path)
        r.get(q(path, event_type="price_change", min_significance=40))
        r.get(q(path, provider="anthropic", since=since, until=until))
        r.get(q(path, event_type="bad"))
        r.get(q(path, cursor="x"))
        r.get(path, headers={"Accept-Encoding": "gzip"})
    r.get("/dumps/prices.csv")
    r.send("HEAD", "/dumps/prices.csv")
    r.get("/dumps/prices.csv", headers={"Accept-Encoding": "gzip"})
    r.get("/dumps/prices.csv?x=1")

    # Estimates.
    est = "/api/v1/estimate"
    bodies = [{"requests_per_month": 100000, "preset": p} for p in PRESETS]
    bodies += [
        {"requests_per_month": 1},
        {"requests_per_month": 5000, "input_tokens_per_request": 1200,
         "output_tokens_per_request": 300, "cache_hit_rate": 0.5, "batch_share": 0.25,
         "model_ids": ["openai:gpt-4o", "openai:o3", "anthropic:claude-3-5-sonnet-20241022"]},
        {"requests_per_month": 1000000, "preset": "rag_qa", "model_ids": picked[:10]},
        {"requests_per_month": 10, "input_tokens_per_request": 1, "output_tokens_per_request": 1,
         "cache_hit_rate": 1, "batch_share": 1},
        {"requests_per_month": 10, "preset": "chatbot", "input_tokens_per_request": 50},
        {"requests_per_month": 3, "input_tokens_per_request": 10, "model_ids": []},
        {"requests_per_month": 7, "preset": "coding_agent", "model_ids": ["openai:gtp-4o"]},
        {"requests_per_month": 7, "preset": "coding_agent", "model_ids": picked[:11]},
        {"requests_per_month": 0, "preset": "chatbot"},
        {"requests_per_month": -1, "preset": "chatbot"},
        {"requests_per_month": 1.5, "preset": "chatbot"},
        {"requests_per_month": "10", "preset": "chatbot"},
        {"preset": "chatbot"},
        {"requests_per_month": 10, "preset": "poetry"},
        {"requests_per_month": 10, "preset": "chatbot", "cache_hit_rate": 1.5},
        {"requests_per_month": 10, "preset": "chatbot", "batch_share": -0.1},
        {"requests_per_month": 10, "preset": "chatbot", "surprise": 1},
        {"requests_per_month": 10, "input_tokens_per_request": 0},
        {"requests_per_month": 10, "preset": "chatbot", "model_ids": "openai:o3"},
        {"requests_per_month": 10, "preset": "chatbot", "model_ids": [1, 2]},
        {"requests_per_month": 10 ** 15, "input_tokens_per_request": 10 ** 9,
         "output_tokens_per_request": 10 ** 9},
        [1, 2],
    ]
    for body in bodies:
        r.send("POST", est, body=body)
    for raw, ctype in [("{", "application/json"), ("", "application/json"),
                       ('{"requests_per_month": 10, "preset": "chatbot"}', "text/plain"),
                       ('{"requests_per_month": 10, "preset": "chatbot"}', None),
                       ("x" * 70000, "application/json")]:
        r.send("POST", est, body=raw, headers={"Content-Type": ctype} if ctype else {})

    # MCP: the protocol, then each tool with the bodies the REST calls used.
    r.mcp({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "recorder", "version": "1"}}})
    r.mcp({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    r.mcp({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    r.mcp({"jsonrpc": "2.0", "method": "notifications/initialized"})
    r.mcp({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
           "params": {"name": "pricing_list_models", "arguments": {"limit": 2}}}, key=False)
    for raw in ["not json", "", '{"jsonrpc":"2.0"}', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
                '{"jsonrpc":"2.0","id":5,"method":"no/such"}']:
        r.mcp(raw)
    r.send("GET", "/mcp", headers={"Accept": "text/event-stream"})
    r.send("DELETE", "/mcp")
    tools = [
        ("pricing_list_models", {}),
        ("pricing_list_models", {"limit": 3, "sort": "price_input_asc"}),
        ("pricing_list_models", {"provider": "openai", "status": "all", "limit": 100}),
        ("pricing_list_models", {"query": "claude", "channel": "official",
                                 "max_input_price": "3", "min_context": 100000}),
        ("pricing_list_models", {"provider": "openia"}),
        ("pricing_list_models", {"limit": 500}),
        ("pricing_list_models", {"sort": "cheapest"}),
        ("pricing_list_models", {"cursor": "bad"}),
        ("pricing_list_models", {"unknown": 1}),
        ("pricing_get_model", {"model_id": "openai:o3"}),
        ("pricing_get_model", {"model_id": "openai:o3", "include": INCLUDES}),
        ("pricing_get_model", {"model_id": "openai:o3", "include": "pricing,aliases"}),
        ("pricing_get_model", {"model_id": "openai:gtp-4o"}),
        ("pricing_get_model", {}),
        ("pricing_price_history", {"model_id": "openai:o3", "since": "2025-01-01",
                                   "until": "2025-12-31"}),
        ("pricing_price_history", {"model_id": "openai:o3", "granularity": "daily",
                                   "since": "2025-06-01", "until": "2025-06-20",
                                   "component": "input", "channel": "official"}),
        ("pricing_price_history", {"model_id": "openai:o3", "since": "2024-01-01",
                                   "until": "2025-12-31"}),
        ("pricing_price_history", {"model_id": "openai:o3", "channel": "groq",
                                   "since": "2025-01-01", "until": "2025-12-31"}),
        ("pricing_compare", {"ids": ["openai:o3", "openai:gpt-4o"]}),
        ("pricing_compare", {"ids": "openai:o3,openai:gpt-4o", "metrics": ["price_blended"]}),
        ("pricing_compare", {"ids": ["openai:o3"]}),
        ("pricing_compare", {"ids": ["openai:o3", "nope:x"]}),
        ("pricing_recent_changes", {"since": since, "until": until, "limit": 5}),
        ("pricing_recent_changes", {"event_type": "deprecation", "since": since,
                                    "until": until}),
        ("pricing_recent_changes", {"min_significance": 200}),
        ("pricing_recent_changes", {"since": "2024-01-01", "until": "2025-12-31"}),
        ("no_such_tool", {}),
    ]
    for name, args in tools:
        r.tool(name, args)
    # The estimate tool with every body the REST endpoint got that is an object.
    for body in bodies:
        if isinstance(body, dict):
            r.tool("pricing_estimate_cost", body)
    # A cursor walk over MCP.
    cursor = None
    for _ in range(8):
        args = {"limit": 20, "sort": "price_blended_asc"}
        if cursor:
            args["cursor"] = cursor
        _, doc = r.tool("pricing_list_models", args)
        content = ((doc or {}).get("result") or {}).get("structuredContent") or {}
        cursor = (content.get("pagination") or {}).get("next_cursor")
        if not cursor:
            break


def compare(a_path, b_path, shown=5):
    with open(a_path) as f:
        a = [json.loads(line) for line in f]
    with open(b_path) as f:
        b = [json.loads(line) for line in f]
    differences = 0
    for i in range(max(len(a), len(b))):
        left = a[i] if i < len(a) else None
        right = b[i] if i < len(b) else None
        if left == right:
            continue
        differences += 1
        if differences > shown:
            continue
        print(f"--- request {i}: {(left or right)['request']['method']} "
              f"{(left or right)['request']['path'][:200]}")
        if left is None or right is None:
            print("    only in", a_path if right is None else b_path)
            continue
        for field in ["request", "status", "headers", "body_encoding", "body"]:
            if left[field] != right[field]:
                lt, rt = json.dumps(left[field]), json.dumps(right[field])
                at = next((k for k in range(min(len(lt), len(rt))) if lt[k] != rt[k]),
                          min(len(lt), len(rt)))
                start = max(0, at - 80)
                print(f"    {field} differs at character {at}:")
                print(f"      {a_path}: ...{lt[start:at + 120]}")
                print(f"      {b_path}: ...{rt[start:at + 120]}")
    print(f"{len(a)} and {len(b)} requests; {differences} differ")
    return 1 if differences else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "record":
        with open(sys.argv[4], "w") as out:
            r = Recorder(sys.argv[2], sys.argv[3], out)
            record(r)
        print(f"{r.count} requests recorded in {sys.argv[4]}")
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return compare(sys.argv[2], sys.argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
