#!/usr/bin/env python3
"""The data-quality report of a built snapshot: what its events will be and how well they are backed.

    python3 tools/dataset/report.py [SNAPSHOT] [--since 2024-11-01]

Reads the snapshot (default data/snapshot.json.gz) and the quarantine report the build wrote
beside it (quarantine.json), and prints: the events a first publish emits, per type, channel and
source (as publish derives them: docs/publishing.md); the conditional rates (rows per tier, models
per context threshold, cache-write duration, tier, region and time window; rows per region and time
window); the models per kind and channel and where the sources disagree on a model's kind
(kinds.py); the share of price changes that two or more
sources show (corroborated), and of the limit changes those a provider's own page dates; what
each screen rule removed; the checks the history must pass (no uncorroborated move of 10x or
more, none undone within 60 days, no current price after a shutdown, deprecation not after
retirement, no launch before 2015, no active model without a current price); and coverage: the models any
source lists with a current price on the nine channels against those served. Exits non-zero when
a check fails. Standard library only.
"""
import argparse
import gzip
import json
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import kinds  # noqa: E402
from render import conditional_counts  # noqa: E402
from series import days_between  # noqa: E402
from screen import BIG_MOVE, FIRST_LAUNCH, UNDO_DAYS, independent_sources, placeholder_shutdown  # noqa: E402


def source_ids(step):
    return sorted({s.split(" ", 1)[0] for s in step.get("sources", ())})


def price_events(snap, since):
    """(type, channel, step, previous step, series) for every price step after another price."""
    gen = snap["generated_at"][:10]
    for p in snap["prices"]:
        h = p["history"]
        for a, b in zip(h, h[1:]):
            if a["price"] is None or b["price"] is None or a["price"] == b["price"] or b["from"] < since:
                continue
            yield ("price_change_scheduled" if b["from"] > gen else "price_change"), p["channel"], b, a, p


def limit_events(snap, since):
    for m in snap["models"]:
        lim = m.get("limits") or []
        for a, b in zip(lim, lim[1:]):
            if b["from"] < since:
                continue
            if any(a[f] is not None and b[f] is not None and a[f] != b[f] for f in ("context_window", "max_output_tokens")):
                yield m, b


def checks(snap):
    """Names of the failed history checks, each with its offenders (empty: all hold)."""
    gen = snap["generated_at"][:10]
    bad = {}
    for p in snap["prices"]:
        h = p["history"]
        name = f'{p["model"]} {p["channel"]} {p["component"]} {p["tier"]}'
        prices = [x for x in h if x["price"] is not None]
        for a, b in zip(prices, prices[1:]):
            lo, hi = sorted((Decimal(a["price"]), Decimal(b["price"])))
            if lo > 0 and hi / lo >= BIG_MOVE and min(len(independent_sources(x.get("sources", ()))) for x in (a, b)) < 2:
                bad.setdefault("move of 10x or more with one independent source", []).append(f'{name} {b["from"]}')
        for a, b, c in zip(h, h[1:], h[2:]):
            if None not in (a["price"], b["price"]) and c["price"] == a["price"] and days_between(b["from"], c["from"]) <= UNDO_DAYS:
                bad.setdefault("move undone within 60 days", []).append(f'{name} {b["from"]}')
    shut = {}
    for m in snap["models"]:
        if m["deprecation_date"] and m["retirement_date"] and m["deprecation_date"] > m["retirement_date"]:
            bad.setdefault("deprecation after retirement", []).append(m["id"])
        if m["launch_date"] and m["launch_date"] < FIRST_LAUNCH:
            bad.setdefault("launch before 2015", []).append(m["id"])
        if m["status"] == "retired":
            shut[m["id"]] = m["retirement_date"]
    priced = set()
    for p in snap["prices"]:
        last = [x for x in p["history"] if x["from"] <= gen][-1:]
        if last and last[0]["price"] is not None:
            priced.add(p["model"])
        if p["model"] in shut and last and last[0]["price"] is not None:
            bad.setdefault("current price of a retired model", []).append(f'{p["model"]} {p["channel"]}')
        if any(placeholder_shutdown(x["from"], gen) for x in p["history"]):
            bad.setdefault("a step 10 or more years after the snapshot (a placeholder date)", []).append(
                f'{p["model"]} {p["channel"]} {p["component"]} {p["tier"]}')
    # a model no channel prices any more is retired (its day may be unknown), never active
    for m in snap["models"]:
        if m["status"] == "active" and m["id"] not in priced:
            bad.setdefault("active model with no current price", []).append(m["id"])
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("snapshot", nargs="?", default=str(HERE.parent.parent / "data" / "snapshot.json.gz"))
    ap.add_argument("--since", default="2024-11-01", help="count events from this day (default 2024-11-01)")
    args = ap.parse_args()
    snap = json.loads(gzip.decompress(Path(args.snapshot).read_bytes()))
    quarantine = json.loads(Path(args.snapshot).with_name("quarantine.json").read_text())["screened"]
    gen = snap["generated_at"][:10]

    by_type, by_channel, by_source = Counter(), Counter(), Counter()
    corroborated = total = 0
    for kind, ch, step, _prev, _p in price_events(snap, args.since):
        by_type[kind] += 1
        by_channel[(kind, ch)] += 1
        ids = source_ids(step)
        for sid in ids or ["(none)"]:
            by_source[(kind, sid)] += 1
        if kind == "price_change":
            total += 1
            corroborated += len(independent_sources(step.get("sources", ()))) >= 2
    by_type["limit_change"] = sum(1 for _ in limit_events(snap, args.since))
    for m in snap["models"]:
        by_type["model_launch"] += bool(m["launch_date"] and m["launch_date"] >= args.since)
        by_type["deprecation"] += bool(m["deprecation_date"] and m["deprecation_date"] >= args.since)
        by_type["retirement"] += bool(m["retirement_date"] and args.since <= m["retirement_date"] <= gen)

    print(f"snapshot {args.snapshot} (as of {gen}); events from {args.since}")
    print("\nevents per type:")
    for k, v in sorted(by_type.items()):
        print(f"  {k:28s} {v:6d}")
    print("\nprice events per channel:")
    for (kind, ch), v in sorted(by_channel.items()):
        print(f"  {kind:24s} {ch:12s} {v:6d}")
    print("\nprice events per source (a step shown by several sources counts for each):")
    for (kind, sid), v in sorted(by_source.items()):
        print(f"  {kind:24s} {sid:14s} {v:6d}")
    share = f"{100 * corroborated / total:.1f}%" if total else "n/a"
    print(f"\ncorroborated price changes (two or more independent sources; llmledger counts as litellm): "
          f"{corroborated} of {total} ({share})")
    limits = list(limit_events(snap, args.since))
    dated = sum(1 for _m, entry in limits if "provider" in source_ids(entry))
    print(f"limit changes dated by a provider's own page: {dated} of {len(limits)}")

    print("\nscreened out (quarantine.json), per rule: entries / steps")
    rules = Counter()
    steps = Counter()
    for q in quarantine:
        rules[q["rule"]] += 1
        steps[q["rule"]] += len(q["steps"])
    for r in sorted(rules):
        print(f"  {r:80s} {rules[r]:5d} / {steps[r]:5d}")

    # a snapshot without conditional_prices has no conditional rates
    cond = conditional_counts(snap.get("conditional_prices", []))
    print(f"\nconditional rates (conditional_prices): {cond['rows']} rows; per tier "
          + ", ".join(f"{k} {v}" for k, v in cond["rows_by_tier"].items()))
    for kind, label in (("models_by_threshold", "context tier above N input tokens"),
                        ("models_by_cache_ttl", "cache write held for"), ("models_by_tier", "tier")):
        print(f"  models per {label}: " + (", ".join(f"{k}: {v}" for k, v in cond[kind].items()) or "none"))
    for kind, label in (("region", "region"), ("time_window", "time window")):
        rows, models = cond[f"rows_by_{kind}"], cond[f"models_by_{kind}"]
        print(f"  rows / models per {label}: " + (", ".join(f"{k}: {rows[k]} / {models[k]}" for k in rows) or "none"))

    promo = [(p["model"], h) for p in snap["prices"] for h in p["history"] if "promotion" in h]
    print(f"\npromotional prices (a provider page calls them promotional): {len(promo)} entries, "
          f"{len({m for m, _h in promo})} models; ending "
          + (", ".join(f"{k or 'unstated'}: {v}" for k, v in
                       sorted(Counter(h["promotion"]["until"] for _m, h in promo).items(), key=lambda x: x[0] or ""))
             or "none"))

    print()
    print("\n".join(kinds.report_lines(snap)))

    cov = snap["report"]["coverage"]
    active = snap["report"]["counts"]["active_models_with_prices"]
    print(f"\ncoverage: {cov['listed_with_a_current_price']} models listed with a current price by a source, "
          f"{cov['served_with_a_current_price']} served with one; {active} active models with prices")
    for mid in cov["not_served"]:
        print(f"  not served: {mid}")

    bad = checks(snap)
    print("\nchecks:", "all hold" if not bad and not cov["not_served"] else "FAILED")
    for name, rows in sorted(bad.items()):
        print(f"  {name}: {len(rows)}, e.g. {rows[:5]}")
    sys.exit(1 if bad or cov["not_served"] else 0)


if __name__ == "__main__":
    main()
