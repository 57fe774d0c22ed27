"""Choose about one litellm release per month and pin it (with its date) in sources.json.

A release's date comes from the package itself where it carries one (the CycloneDX SBOM
timestamp of maturin-built wheels, else the newest file time in the sdist tarball) and, for the
releases that carry neither, from its content matched against llmledger's day-dated history
(release_dates.content_date). For each month the newest release dated inside it is pinned.

    cd tools/dataset && python3 -m maintenance.select_releases [--write]
"""
import argparse
import datetime as dt
import json
import re

from pipeline import FACTS, release_dates
from pipeline.releases import available_versions, fetch, load_sources, release_date, version_key

MEMBER = "litellm/model_prices_and_context_window_backup.json"


def dated(v, ledger, presence):
    fetch("litellm", v, MEMBER)
    info = release_date("litellm", v, MEMBER)
    if info:
        return info["released"], info["method"]
    day, _miss = release_dates.content_date(v, ledger, presence)
    return day, "content"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--first", default="1.53.1")
    ap.add_argument("--last", default="1.109.1")
    args = ap.parse_args()
    ledger = release_dates.load_ledger()
    presence = release_dates.ledger_presence(ledger)
    lo, hi = version_key(args.first), version_key(args.last)
    vs = sorted((v for v in available_versions("litellm") if re.fullmatch(r"[\d.]+", v)
                 and lo <= version_key(v) <= hi), key=version_key)
    known = {}
    for v in (args.first, args.last):
        known[v] = dated(v, ledger, presence)
    # anchor points: the first release of every minor version
    firsts = {}
    for v in vs:
        firsts.setdefault(version_key(v)[:2], v)
    for v in firsts.values():
        known[v] = dated(v, ledger, presence)
    start = dt.date.fromisoformat(known[args.first][0])
    end = dt.date.fromisoformat(known[args.last][0])
    months = []
    m = dt.date(start.year, start.month, 1)
    while m <= end:
        months.append(m.isoformat()[:7])
        m = dt.date(m.year + (m.month == 12), m.month % 12 + 1, 1)
    picks = {}
    for month in months:
        before = [version_key(v) for v, (d, _m) in known.items() if d[:7] < month]
        after = [version_key(v) for v, (d, _m) in known.items() if d[:7] > month]
        floor = max(before) if before else lo
        ceiling = min(after) if after else (hi[0], hi[1], hi[2] + 1)
        cands = [v for v in vs if floor < version_key(v) < ceiling]
        # newest first: the last release cut in the month stands for the month
        for v in reversed(cands):
            if v not in known:
                known[v] = dated(v, ledger, presence)
            if known[v][0][:7] == month:
                picks[month] = v
                break
        print(month, picks.get(month), known.get(picks.get(month)), flush=True)
    if args.write:
        cfg = load_sources()
        for s in cfg["sources"]:
            if s["id"] == "litellm":
                s["releases"] = [{"version": v, "released": known[v][0], "method": known[v][1]}
                                 for _m, v in sorted(picks.items())]
        (FACTS / "sources.json").write_text(json.dumps(cfg, indent=1) + "\n")


if __name__ == "__main__":
    main()
