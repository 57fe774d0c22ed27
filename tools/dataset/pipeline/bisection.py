"""Date the litellm price moves (and first listings) that no ledger event dates, by bisecting
litellm's release list.

The build reads one litellm release per month. Where a row's value differs between two pinned
releases and llmledger's day-dated history has no event for it (OpenRouter rows, which the ledger
does not track, and every move after the ledger's last day), the move happened in one of the
releases between the two pins. This script finds the first release that carries the new value by
bisection over every release in between (a release is about 40 MB, so it downloads about log2(n)
of them, not all), dates that release, and pins the result in ``bisected.json``; build.py reads
only that file, so fetch.py then build.py rebuild the snapshot without bisecting again. The same
goes for the first listing of a key the ledger does not date (field `listed`): the first release
between two pins that lists the key is the day litellm's price file first listed it, a launch
candidate of basis `source_listed` (launch.py).

    cd tools/dataset && python3 -m maintenance.bisect_releases   # after fetch.py; then run build.py again

A release is dated by what the package carries (releases.release_date: the wheel's SBOM, else the
sdist's file times), else, inside the ledger's span, by its content matched against the ledger
(release_dates.content_date), else by the wheel's file time (when it was built: its data existed
by then). The day is kept inside the two pins' dates. Standard library only; pip downloads into
the cache directory of fetch.py, outside the repository.
"""
import datetime as dt
import json
import re
import subprocess
from collections import defaultdict

from . import FACTS, launch, release_dates
from .sources.litellm import field_value, load_litellm
from .releases import built_day, fetch, release_date, version_key

MEMBER = "litellm/model_prices_and_context_window_backup.json"
OUT = FACTS / "bisected.json"


def value_in(data, key, field):
    """The value a release shows for (key, field); for the field `listed` (launch.LISTED),
    whether the release lists the key at all."""
    if field == launch.LISTED:
        return launch.LISTED_VALUE if key in data else None
    return field_value(data.get(key) or {}, field)


def fetch_release(version):
    """A litellm release's data, downloaded into fetch.py's cache unless it is there."""
    return load_litellm(fetch("litellm", version, MEMBER))


class Releases:
    """Values of the fields asked about, per release, read once per downloaded release; `load`
    reads a release (the registry by default; `pricing sync` passes its own)."""

    def __init__(self, wanted, load=fetch_release):
        self.wanted = wanted            # {(key, field)}
        self.load = load
        self.values = {}

    def value(self, version, key, field):
        """The value, or None when the release has no wheel for this platform (a yanked or
        sdist-only release) or cannot be read: such a release is skipped."""
        if version not in self.values:
            try:
                data = self.load(version)
            except (subprocess.CalledProcessError, SystemExit, OSError, ValueError) as e:
                print(f"skipping litellm=={version}: {e}", flush=True)
                self.values[version] = None
                return None
            self.values[version] = {kf: value_in(data, *kf) for kf in self.wanted}
        return self.values[version] and self.values[version][(key, field)]

    def readable(self, version):
        return self.values.get(version, {}) is not None


def release_day(version, ledger_end, ledger, presence):
    """(day, method) for one litellm release."""
    info = release_date("litellm", version, MEMBER)
    if info:
        return info["released"], info["method"]
    built = built_day("litellm", version, MEMBER)
    if built <= ledger_end:
        day, _miss = release_dates.content_date(version, ledger, presence)
        if day < built:
            return day, "content"
    return built, "wheel file time"


def pending(builder):
    """The moves a build could not date: (key, field, value, after, until), after its run."""
    return {(u["key"], u["field"], u["value"], u["after"], u["until"]) for u in builder.unbisected}


def stable(versions):
    """The final releases among `versions` (no pre-releases), oldest first."""
    return sorted((v for v in versions if re.fullmatch(r"\d+\.\d+\.\d+(\.post\d+)?", v)), key=version_key)


def bisect(todo, versions, pins, rel, day_of, on_window=lambda found: None):
    """Dates each move of `todo` by the first release among `versions` (oldest first) between its
    two pins that carries the new value, read through `rel` (Releases); `pins`: version -> day
    of the pinned releases; `day_of(version)` -> (day, method). The day is kept inside the two
    pins' dates. `on_window(found)` runs after each pair of pins. Returns the rows found."""
    days = {}
    found = []
    by_window = defaultdict(list)
    for item in sorted(todo):
        by_window[(item[3], item[4])].append(item)
    for (after, until), items in sorted(by_window.items(), key=lambda w: version_key(w[0][0])):
        between = [v for v in versions if version_key(after) < version_key(v) <= version_key(until)]
        print(f"{after} .. {until}: {len(items)} moves over {len(between)} releases", flush=True)
        for key, field, value, _a, _u in items:
            cands = list(between)
            lo, hi = -1, len(cands) - 1            # `after` lacks the value, `until` has it
            while hi - lo > 1:
                mid = (lo + hi) // 2
                v = rel.value(cands[mid], key, field)
                if not rel.readable(cands[mid]):
                    del cands[mid]
                    hi -= 1
                elif v == value:
                    hi = mid
                else:
                    lo = mid
            first = cands[hi]
            if first not in days:
                days[first] = day_of(first)
            day, method = days[first]
            lo_day = (dt.date.fromisoformat(pins[after]) + dt.timedelta(days=1)).isoformat()
            day = min(max(day, lo_day), pins[until])
            found.append({"key": key, "field": field, "value": value, "after": after, "until": until,
                          "first": first, "released": day, "method": method})
        on_window(found)
    print(f"{len(found)} moves dated, {len(days)} releases read", flush=True)
    return found


def write(found, out=OUT):
    """Adds `found` to the bisection results in `out` (a move found again replaces its row)."""
    kept = json.loads(out.read_text())["litellm"] if out.exists() else []
    new_ids = {(f["key"], f["field"], f["value"], f["after"], f["until"]) for f in found}
    rows = [k for k in kept if (k["key"], k["field"], k["value"], k["after"], k["until"]) not in new_ids] + found
    rows.sort(key=lambda r: (r["key"], r["field"], version_key(r["after"]), r["value"]))
    out.write_text(json.dumps({
        "about": "First litellm release carrying each price move that no ledger event dates, found by "
                 "bisect_releases.py over every release between two pinned releases; read by build.py.",
        "litellm": rows}, indent=1, sort_keys=True) + "\n")

