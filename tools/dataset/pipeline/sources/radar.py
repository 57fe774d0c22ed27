"""OpenRouter's own model catalogue as archived: the Python package `model-price-radar-mcp`.

Its data file (`model_price_radar/data/history.json.gz`, built 2026-10-01) holds 31 archived
copies of OpenRouter's `/api/v1/models`, 2023-07-26 to 2026-09-02, each reduced to
`{openrouter id: [input, output]}` in USD per 1M tokens (rounded by the package to 4 decimals).
The copies carry no `created` field: what they give is when OpenRouter's catalogue is seen to list
a model (first and last copy) and its prices in each copy, each bounded by the copies before and
after it.

- `sightings`: per id, the first copy showing it and the copy before (`after`, None when the first
  copy already shows it), the last copy showing it and the copy after (`until`, None when the
  newest copy still shows it). The launch rule reads the first copy as an upper bound: the model
  was on OpenRouter by that day (launch.py).
- `moves`: per id, each change of its input or output figure between two consecutive copies
  listing it, bounded by the two copies' days. No two copies are 7 days or less apart (the
  closest are 18 days apart), so no move is dated by them: none is published (docs/publishing.md,
  "Screens"); report.py counts them.

Standard library only.
"""
from ..loaders import float_mtok_text
from ..series import days_between

# a move two copies bound further apart than this is not dated by them
DATED_WITHIN = 7


def snapshots(history):
    """[(day, {id: (input, output)})] oldest first, figures as text per 1M tokens."""
    out = []
    for snap in sorted(history["snapshots"], key=lambda s: s["date"]):
        # the package wrote floats: each through its shortest repr, as models.dev's
        out.append((snap["date"], {i: tuple(float_mtok_text(v) for v in p[:2]) for i, p in snap["prices"].items()}))
    return out


def sightings(snaps):
    """{id: {"first", "after", "last", "until"}}: the first and last copies listing the id and the
    copies on either side of them (None: no copy there)."""
    days = [d for d, _p in snaps]
    out = {}
    for i, (day, prices) in enumerate(snaps):
        for mid in prices:
            s = out.setdefault(mid, {"first": day, "after": days[i - 1] if i else None})
            s["last"], s["until"] = day, days[i + 1] if i + 1 < len(days) else None
    return out


def unlisted_after(sights, mid, day):
    """The day of the last archived copy before any listing of the model of `mid` or of a variant
    of it (`x:free`, `x:batch`, ... of `x`), where that copy is later than `day`; else None. A copy
    of that day shows the catalogue without the model: it was not listed on `day` yet, whatever
    else says so (`sights`: sightings())."""
    base = mid.split(":", 1)[0]
    seen = [s for i, s in sights.items() if i == base or i.startswith(base + ":")]
    if not seen:
        return None
    first = min(seen, key=lambda s: s["first"])
    return first["after"] if first["after"] and first["after"] > day else None


def moves(snaps):
    """[(id, component, old, new, after, seen)]: each change of a figure between two consecutive
    copies that both list the id, with the days of the copy before and of the copy showing it."""
    out = []
    for (d0, p0), (d1, p1) in zip(snaps, snaps[1:]):
        for mid in sorted(set(p0) & set(p1)):
            for comp, a, b in zip(("input", "output"), p0[mid], p1[mid]):
                if a is not None and b is not None and a != b:
                    out.append((mid, comp, a, b, d0, d1))
    return out


def dated(move):
    """Whether the two copies bounding a move are close enough to date it."""
    return days_between(move[4], move[5]) <= DATED_WITHIN
