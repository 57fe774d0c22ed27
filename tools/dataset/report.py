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
retirement, no launch before 2015, no launch date without its basis, source and precision, no active
model without a current price); launch-date coverage of the active models per basis, source,
provider and channel, what each launch source gave and what the launch rule passed over and why;
and coverage: the models any source lists with a current price on the nine channels against those
served. Exits non-zero when
a check fails. The measures are pipeline/quality.py's. Standard library only.
"""
import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

from pipeline import REPO, kinds
from pipeline.quality import (checks, launch_report, lifecycle_events, lifecycle_report, limit_events, price_events,
                              source_ids)
from pipeline.render import conditional_counts
from pipeline.screen import independent_sources


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("snapshot", nargs="?", default=str(REPO / "data" / "snapshot.json.gz"))
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
    for kind, _m, _st in lifecycle_events(snap, args.since):
        by_type[kind] += 1

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

    lifecycle_report(snap, args.since)
    launch_report(snap, quarantine)
    unpriced = sorted(m["id"] for m in snap["models"] if m["status"] == "active" and m["id"] not in
                      {p["model"] for p in snap["prices"]
                       if ([x for x in p["history"] if x["from"] <= gen][-1:] or [{"price": None}])[0]["price"] is not None})
    print(f"\nactive models without a current price (a source's row no longer prices them; no provider "
          f"statement ends them): {len(unpriced)} {unpriced[:10]}")

    bad = checks(snap)
    print("\nchecks:", "all hold" if not bad and not cov["not_served"] else "FAILED")
    for name, rows in sorted(bad.items()):
        print(f"  {name}: {len(rows)}, e.g. {rows[:5]}")
    sys.exit(1 if bad or cov["not_served"] else 0)


if __name__ == "__main__":
    main()
