#!/usr/bin/env python3
"""Draws the price_change events to audit from a running pricing server.

Prints two Markdown tables, ready to be filled with evidence:

1. a seeded random sample of N published price_change events dated in the
   last 24 months (the same seed and the same publish give the same sample);
2. the top K price_change events of the last 365 days by significance.

The window ends on the day of the served publish (its `as_of`), not today,
so a sample stays reproducible while the data does not change.

    python3 scripts/sample_events.py --base-url http://127.0.0.1:8080 \
        [--seed 13] [-n 40] [--top 20] [--key pr_live_...]

Standard library only. Anonymous callers may send 60 requests an hour; a
full draw over the bundled dataset needs about a dozen.
"""

import argparse
import datetime as dt
import json
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# The API refuses windows over 365 days (WINDOW_TOO_LARGE).
MAX_WINDOW_DAYS = 365
PAGE_LIMIT = 100
MAX_ATTEMPTS = 5


def get_json(base_url, path, params, key):
    url = base_url.rstrip("/") + path
    if params:
        url += "?" + urllib.parse.urlencode(params)
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if key:
        request.add_header("X-API-Key", key)
    for _ in range(MAX_ATTEMPTS):
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")
            # The per-second limit answers 429 with the wait in Retry-After.
            if e.code == 429 and e.headers.get("Retry-After", "").isdigit():
                time.sleep(int(e.headers["Retry-After"]))
                continue
            sys.exit(f"GET {url}: HTTP {e.code}: {body}")
        except urllib.error.URLError as e:
            sys.exit(f"GET {url}: {e.reason} (is the server running? see README 'Run it')")
    sys.exit(f"GET {url}: still rate limited after {MAX_ATTEMPTS} attempts: pass --key")


def publish_day(base_url, key):
    health = get_json(base_url, "/api/v1/health", None, key)
    as_of = health.get("as_of")
    if not as_of:
        sys.exit("the server has no published data (health.as_of is null): publish a snapshot first")
    return dt.date.fromisoformat(as_of[:10])


def windows(first, last):
    """Consecutive inclusive [since, until] windows of at most 365 days."""
    start = first
    while start <= last:
        end = min(last, start + dt.timedelta(days=MAX_WINDOW_DAYS - 1))
        yield start, end
        start = end + dt.timedelta(days=1)


def price_changes(base_url, key, first, last):
    """Every published price_change event dated first..last (inclusive)."""
    events = {}
    for since, until in windows(first, last):
        params = {
            "event_type": "price_change",
            "since": since.isoformat(),
            "until": until.isoformat(),
            "limit": PAGE_LIMIT,
        }
        while True:
            body = get_json(base_url, "/api/v1/changes", params, key)
            for event in body["data"]["items"]:
                events[event["id"]] = event
            cursor = body["pagination"].get("next_cursor")
            if not body["pagination"].get("has_more") or not cursor:
                break
            params = dict(params, cursor=cursor)
    # Ordered by what the event says, not by its database id, so that the
    # same snapshot published into another database draws the same sample.
    return sorted(events.values(), key=event_key)


def event_key(event):
    return (
        event["effective_date"], event["model_id"], event.get("channel") or "",
        event.get("component") or "", event.get("tier") or "", event["id"],
    )


def sources(event):
    detail = event.get("detail") or {}
    found = detail.get("sources")
    if isinstance(found, list) and found:
        return "; ".join(str(s) for s in found)
    return ""


COLUMNS = [
    "#", "event", "model", "channel", "component", "tier", "date", "old", "new",
    "change %", "significance", "sources", "verdict", "real date", "evidence",
]


def table(events):
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for n, e in enumerate(events, 1):
        cells = [
            str(n), str(e["id"]), e["model_id"], e.get("channel") or "", e.get("component") or "",
            e.get("tier") or "", e["effective_date"], e.get("old_value") or "",
            e.get("new_value") or "", e.get("change_pct") or "", str(e.get("significance", "")),
            sources(e), "", "", "",
        ]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--key", help="an API key (X-API-Key); anonymous when omitted")
    parser.add_argument("--seed", type=int, default=13, help="random seed of the sample (default 13)")
    parser.add_argument("-n", type=int, default=40, help="events in the random sample (default 40)")
    parser.add_argument("--months", type=int, default=24, help="sample window in months (default 24)")
    parser.add_argument("--top", type=int, default=20, help="most significant events of the last 365 days (default 20)")
    args = parser.parse_args()
    if args.n < 1 or args.top < 0 or args.months < 1:
        parser.error("-n and --months must be at least 1, --top at least 0")

    last = publish_day(args.base_url, args.key)
    first = last - dt.timedelta(days=round(args.months * 365.25 / 12))
    events = price_changes(args.base_url, args.key, first, last)
    sample = random.Random(args.seed).sample(events, min(args.n, len(events)))
    sample.sort(key=event_key)

    year_start = last - dt.timedelta(days=MAX_WINDOW_DAYS - 1)
    recent = [e for e in events if e["effective_date"] >= year_start.isoformat()]
    top = sorted(recent, key=lambda e: (-e["significance"], event_key(e)))[: args.top]

    print(f"Publish day {last}; price_change events {first}..{last}: {len(events)}; "
          f"of them since {year_start}: {len(recent)}.\n")
    print(f"## Random sample: {len(sample)} of {len(events)}, seed {args.seed}\n")
    print(table(sample))
    print(f"\n## Top {len(top)} by significance, {year_start}..{last}\n")
    print(table(top))


if __name__ == "__main__":
    main()
