"""Date the litellm moves no ledger event dates by bisecting litellm's releases; pins bisected.json.

    cd tools/dataset && python3 -m maintenance.bisect_releases   # after fetch.py; then run build.py again

The rule and the bisection are pipeline/bisection.py's (sync.py runs the same on its own list).
Standard library only; pip downloads into the cache directory of fetch.py, outside the repository.
"""
from pipeline import release_dates
from pipeline.bisection import OUT, Releases, bisect, pending, release_day, stable, write
from pipeline.builder import Builder
from pipeline.releases import available_versions


def main():
    b = Builder()
    b.run()
    ledger = release_dates.load_ledger()
    presence = release_dates.ledger_presence(ledger)
    ledger_end = max(e[0] for evs in ledger["events"].values() for e in evs)
    todo = pending(b)
    bisect(todo, stable(available_versions("litellm")), {r[0]: r[1] for r in b.releases},
           Releases({(k, f) for k, f, *_x in todo}),
           lambda version: release_day(version, ledger_end, ledger, presence),
           # after each window: an interrupted run keeps its work
           on_window=write)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
