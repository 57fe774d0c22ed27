"""The render stage: models and price series as the snapshot writes them (pricing-snapshot v1,
docs/snapshot-format.md), its counts, and the bytes of the file.

The build's Builder.render calls these once the series are final; the output is deterministic
(sorted keys, a gzip header without a time). Standard library only.
"""
import gzip
import io
import json
import sys
from collections import Counter

MODALITIES = ("text", "image", "audio", "video")


def modalities(md_modalities, entry):
    """(input modalities, output modalities, modality) of a model: models.dev's own where it
    gives them, else what the litellm row supports (text, plus image / audio / video input and
    audio output where flagged); an embedding model outputs vectors, none of the four."""
    mods = md_modalities or {}
    inp = [x for x in MODALITIES if x in (mods.get("input") or [])]
    outp = [x for x in MODALITIES if x in (mods.get("output") or [])]
    mode = entry.get("mode") if entry else None
    if not inp:
        inp = ["text"]
        if entry and entry.get("supports_vision"):
            inp.append("image")
        if entry and entry.get("supports_audio_input"):
            inp.append("audio")
        if entry and entry.get("supports_video_input"):
            inp.append("video")
    if mode == "embedding":
        outp = []
    elif not outp:
        outp = ["text"] + (["audio"] if entry and entry.get("supports_audio_output") else [])
    return inp, outp, ("text" if "text" in inp else inp[0])


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


def condition(above_input_tokens, cache_ttl):
    """A conditional row's `condition` object."""
    return {"above_input_tokens": above_input_tokens, "cache_ttl": cache_ttl}


def condition_order(cond):
    """Sort key of a condition (None: a standard rate, first): above_input_tokens nulls first,
    then cache_ttl nulls first."""
    if cond is None:
        return (False,)
    above, ttl = cond["above_input_tokens"], cond["cache_ttl"]
    return (True, above is not None, above or 0, ttl is not None, ttl or "")


def conditional_order(row):
    """The order of conditional_prices[]: (model, channel, component, tier, condition)."""
    return (row["model"], row["channel"], row["component"], row["tier"], condition_order(row["condition"]))


def conditional_counts(rows):
    """report.conditional_counts: conditional rows, and the models per condition kind (context
    tiers by threshold, cache writes by duration, "unknown" where no page states it) and per tier."""
    by_threshold, by_ttl, by_tier = {}, {}, {}
    for r in rows:
        above, ttl = r["condition"]["above_input_tokens"], r["condition"]["cache_ttl"]
        if above is not None:
            by_threshold.setdefault(str(above), set()).add(r["model"])
        if r["component"] == "cache_write":
            by_ttl.setdefault(ttl or "unknown", set()).add(r["model"])
        by_tier.setdefault(r["tier"], set()).add(r["model"])

    def sizes(d, key=None):
        return {k: len(d[k]) for k in sorted(d, key=key)}
    return {"rows": len(rows), "rows_by_tier": dict(sorted(Counter(r["tier"] for r in rows).items())),
            "models_by_threshold": sizes(by_threshold, int), "models_by_cache_ttl": sizes(by_ttl),
            "models_by_tier": sizes(by_tier)}


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
