"""Price series as lists of steps: the shape every stage of the build passes along.

A step is one price in effect from its date until the next step's date (`None`: no longer
offered). Standard library only.
"""
import datetime as dt


def days_between(a: str, b: str) -> int:
    return (dt.date.fromisoformat(b) - dt.date.fromisoformat(a)).days


def next_day(day: str) -> str:
    return (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()


def prev_day(day: str) -> str:
    return (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()


class Step:
    __slots__ = ("date", "value", "kind", "exact", "lo", "genai", "srcs")

    def __init__(self, date, value, kind="obs", exact=True, lo=None, genai=False, srcs=()):
        self.date, self.value, self.kind, self.exact, self.lo = date, value, kind, exact, lo
        self.genai = genai          # dated by genai-prices (an independent, exact-dated source)
        self.srcs = set(srcs)       # "<source id> <version>" of the releases that show this step

    def __repr__(self):
        return f"Step({self.date},{self.value},{self.kind},{'exact' if self.exact else 'approx'})"


def finalize(steps):
    """Apply correction / drop kinds, sort, and merge steps that do not change the price."""
    steps = sorted(steps, key=lambda s: s.date)
    out = []
    for s in steps:
        if s.kind == "drop":
            continue
        if s.kind == "correction" and out and out[-1].value is not None and s.value is not None:
            out[-1].value = s.value            # the earlier figure was a data error
            out[-1].srcs |= s.srcs
            continue
        if out and out[-1].date == s.date:
            out[-1].value = s.value
            out[-1].genai = out[-1].genai or s.genai
            out[-1].srcs |= s.srcs
            continue
        out.append(Step(s.date, s.value, "obs", s.exact, s.lo, s.genai, s.srcs))
    merged = []
    for s in out:
        if merged and merged[-1].value == s.value:
            merged[-1].srcs |= s.srcs
            continue
        merged.append(s)
    while merged and merged[0].value is None:
        merged.pop(0)
    return merged


class Shown:
    """What first-party evidence says of a step: the last day a provider's page shows its figure
    in effect (`through`), and whether a page dates the move into it (`dated`)."""
    __slots__ = ("through", "dated")

    def __init__(self, through, dated):
        self.through, self.dated = through, dated

    def __repr__(self):
        return f"Shown({self.through},{'dated' if self.dated else 'shown'})"


def value_at(steps, day):
    v = None
    for s in steps:
        if s.date <= day:
            v = s.value
        else:
            break
    return v


MATCH_DAYS = 62                             # a genai-prices start date re-dates a litellm step this close


def merge_genai(steps, g):
    """genai-prices' exact start dates win; its scheduled steps are appended."""
    steps = [Step(s.date, s.value, "obs", s.exact, s.lo, s.genai, s.srcs) for s in steps]
    dated = [(d, v) for d, v in g if d and not d.startswith("verified:")]
    if not steps:
        g = list(g)
        while g and g[0][1] is None:       # a component the first price did not list yet
            g.pop(0)
        if not g:
            return []
        first = g[0]
        if first[0] and first[0].startswith("verified:"):
            steps = [Step(first[0].split(":", 1)[1], first[1], "obs", False, "genai")]
        elif first[0] is None:
            steps = [Step(None, first[1], "obs", False, "genai")]
        for d, v in dated:
            steps.append(Step(d, v, "obs", True, None, True))
        if steps[0].date is None:
            steps[0].date = dated[0][0] if dated and steps[0].value == dated[0][1] else None
        return [s for s in steps if s.date is not None] if steps[0].date else steps
    for d, v in dated:
        cands = [s for s in steps if s.value == v and abs(days_between(s.date, d)) <= MATCH_DAYS]
        if cands:
            c = min(cands, key=lambda s: abs(days_between(s.date, d)))
            c.date, c.exact, c.genai = d, True, True
        elif value_at(steps, d) != v:
            steps.append(Step(d, v, "obs", True, None, True))
    return finalize(steps)
