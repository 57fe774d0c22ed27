"""Print the day each litellm release in the cache (or each VERSION given) is dated by its content.

    cd tools/dataset && python3 -m maintenance.release_dates [VERSION ...]   # prints version -> date

The rule is pipeline/release_dates.py's. Standard library only.
"""
import datetime as dt
import json
import sys

from pipeline.release_dates import date_release, ledger_presence, load_ledger
from pipeline.releases import cache_dir, version_key


def main(argv) -> None:
    ledger = load_ledger()
    presence = ledger_presence(ledger)
    base = cache_dir() / "extracted" / "litellm"
    versions = argv or sorted((p.name for p in base.iterdir()), key=version_key)
    lo, hi = dt.date(2024, 9, 1), dt.date(2026, 10, 17)
    for v in versions:
        keys = set(json.loads((base / v / "model_prices_and_context_window_backup.json").read_text()))
        day, miss = date_release(keys, presence, lo, hi)
        print(v, day, miss, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
