"""The render stage: models and price series as the snapshot writes them (pricing-snapshot v1,
docs/snapshot-format.md), its counts, and the bytes of the file.

snapshot.py's Snapshot.render calls these once the series are final; the output is deterministic
(sorted keys, a gzip header without a time). Standard library only.
"""
import gzip
import io
import json
import sys
from collections import Counter

def history(steps):
    """A series' `history`: one entry per step, with the sources that show it where known."""
    hist = [{"from": st.date, "price": st.value} for st in steps]
    for h, st in zip(hist, steps):
        if st.srcs:
            h["sources"] = sorted(st.srcs)
    return hist


def value_at_hist(hist, day):
    v = None
    for h in hist:
        if h["from"] <= day:
            v = h["price"]
    return v


def price_changes(prices, lo, gen):
    """(price changes dated lo..gen, scheduled changes after gen, series per channel)."""
    changes, scheduled, per_channel = 0, 0, Counter()
    for p in prices:
        per_channel[p["channel"]] += 1
        h = p["history"]
        for a, b in zip(h, h[1:]):
            if a["price"] is not None and b["price"] is not None and a["price"] != b["price"]:
                if lo <= b["from"] <= gen:
                    changes += 1
                elif b["from"] > gen:
                    scheduled += 1
    return changes, scheduled, per_channel


def condition(above_input_tokens, cache_ttl, region=None, time_window=None):
    """A conditional row's `condition` object: all four keys, always. `time_window` is the series
    key's form, (name, ((weekdays, from, to), ...)), or None."""
    window = None
    if time_window is not None:
        name, spans = time_window
        window = {"name": name, "spans": [{"weekdays": list(days), "from": lo, "to": hi} for days, lo, hi in spans]}
    return {"above_input_tokens": above_input_tokens, "cache_ttl": cache_ttl, "region": region,
            "time_window": window}


def window_label(window):
    """A time window as one line: its name, then each span (`peak 1-5 01:00-04:00, 1-5 06:00-10:00`)."""
    def days(ds):
        return f"{ds[0]}-{ds[-1]}" if len(ds) > 1 and ds == list(range(ds[0], ds[-1] + 1)) else ",".join(map(str, ds))
    return window["name"] + " " + ", ".join(f"{days(s['weekdays'])} {s['from']}-{s['to']}" for s in window["spans"])


def condition_order(cond):
    """Sort key of a condition (None: a standard rate, first): above_input_tokens, cache_ttl,
    region, then time_window, each nulls first (a condition written before region and time_window
    existed reads them as null)."""
    if cond is None:
        return (False,)
    above, ttl = cond["above_input_tokens"], cond["cache_ttl"]
    region, window = cond.get("region"), cond.get("time_window")
    return (True, above is not None, above or 0, ttl is not None, ttl or "", region is not None, region or "",
            window is not None, window_label(window) if window else "")


def conditional_order(row):
    """The order of conditional_prices[]: (model, channel, component, tier, condition)."""
    return (row["model"], row["channel"], row["component"], row["tier"], condition_order(row["condition"]))


def conditional_counts(rows):
    """report.conditional_counts: conditional rows, and the models per condition kind (context
    tiers by threshold, cache writes by duration, "unknown" where no page states it, regions,
    time windows) and per tier; rows too per tier, region and time window."""
    by_threshold, by_ttl, by_tier, by_region, by_window = {}, {}, {}, {}, {}
    rows_region, rows_window = Counter(), Counter()
    for r in rows:
        above, ttl = r["condition"]["above_input_tokens"], r["condition"]["cache_ttl"]
        region, window = r["condition"].get("region"), r["condition"].get("time_window")
        if above is not None:
            by_threshold.setdefault(str(above), set()).add(r["model"])
        if r["component"] == "cache_write":
            by_ttl.setdefault(ttl or "unknown", set()).add(r["model"])
        if region is not None:
            by_region.setdefault(region, set()).add(r["model"])
            rows_region[region] += 1
        if window is not None:
            by_window.setdefault(window_label(window), set()).add(r["model"])
            rows_window[window_label(window)] += 1
        by_tier.setdefault(r["tier"], set()).add(r["model"])

    def sizes(d, key=None):
        return {k: len(d[k]) for k in sorted(d, key=key)}
    return {"rows": len(rows), "rows_by_tier": dict(sorted(Counter(r["tier"] for r in rows).items())),
            "models_by_threshold": sizes(by_threshold, int), "models_by_cache_ttl": sizes(by_ttl),
            "models_by_tier": sizes(by_tier), "rows_by_region": dict(sorted(rows_region.items())),
            "models_by_region": sizes(by_region), "rows_by_time_window": dict(sorted(rows_window.items())),
            "models_by_time_window": sizes(by_window)}


def launch_fields(launched):
    """A model's launch as models[] writes it: day, basis, source and precision, all null when
    no source dates it (docs/snapshot-format.md section 5.5)."""
    if launched is None:
        return {"launch_date": None, "launch_basis": None, "launch_source": None, "launch_precision": None}
    return {"launch_date": launched.day, "launch_basis": launched.basis, "launch_source": launched.source,
            "launch_precision": launched.precision}


def dump(snapshot) -> bytes:
    text = json.dumps(snapshot, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as f:
        f.write(text.encode("utf-8"))
    return buf.getvalue()


def print_report(snap, out=sys.stdout):
    rep = snap["report"]
    print("linked source rows:", file=out)
    for k, v in rep["linked"].items():
        print(f"  {k:40s} {v:6d}", file=out)
    print("left out (reason: rows):", file=out)
    for k, v in sorted(rep["left_out"].items(), key=lambda x: (-x[1], x[0])):
        print(f"  {k:60s} {v:6d}", file=out)
    print("counts:", file=out)
    print(json.dumps(rep["counts"], indent=2), file=out)
    print("conditional rates (conditional_prices):", file=out)
    print(json.dumps(rep["conditional_counts"], indent=2), file=out)
