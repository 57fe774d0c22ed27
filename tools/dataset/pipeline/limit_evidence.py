"""First-party evidence for limit changes and lifecycle dates: the providers' own pages in
tools/dataset/limit_notices.json, read with their URL and the day read.

Limit notices date a new context window or max output, the gate a limits history passes before its
moves become `limit_change` events. The release sources record a model's limits with no date of
their own and often wrongly (a max output written as the context window, a beta option taken for
the listed limit, an alias moving to a new model): an audit of every move they showed found most
of them artifacts (tests/fixtures/truth/audit-2026-11-24-limits.md). So a move of a limit is a
change only where a notice dates it, the way a price move is (evidence.py); every other move is
restated (screen.undated_limits).

Deprecation notices have the shape of evidence.py's (`deprecations`: the day the maker announced a
shutdown and the shutdown day) and are read with them (evidence.deprecations): a maker's own
deprecation table, where the release sources record a shutdown months late or a "not sooner than"
estimate as the shutdown (Anthropic's). A notice counts as a source of the build (`provider
<notice id>`, listed in the snapshot's `sources[]` with the price notices). Standard library only.
"""
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from .evidence import LATE_DAYS, known_by, source_of
from .screen import LIMIT_RESTATEMENT, factor
from .series import Step, days_between, finalize
from . import FACTS

PATH = FACTS / "limit_notices.json"

REDATED = "limit change dated by the provider's own notice"


def load(path=PATH, as_of=None):
    """The notices; with `as_of`, what a build as of that day could know of them."""
    notices = json.loads(Path(path).read_text())["notices"]
    if not as_of:
        return notices
    limits = [n for n in notices if "limits" in n and n["effective"] <= as_of]
    return limits + known_by([n for n in notices if "limits" not in n], as_of)


def statements(notices):
    """(model id, limit field) -> [(effective, value, source)], oldest first."""
    out = defaultdict(list)
    for n in sorted((n for n in notices if "limits" in n), key=lambda n: n["effective"]):
        for lim in n["limits"]:
            for model in lim["models"]:
                out[(model, lim["field"])].append((n["effective"], lim["value"], source_of(n)))
    return out


def states(value, figure):
    """A source's `value` is the notice's `figure` written its own way: within 5% (DeepSeek's
    "128K" recorded as 131072), as the limit restatement rule reads two figures."""
    return value is not None and factor(value, Decimal(figure)) < LIMIT_RESTATEMENT


def apply(steps, said):
    """Date a limits series' moves by the notices of its model and field.

    The source step that moves to a notice's figure, recorded from a week before the notice's
    day up to LATE_DAYS after it, is the change the notice dates: it moves to the notice's day
    (not before the step ahead of it) and gains the notice as a source; its figure stays the
    source's. Returns (steps, the dated (day, value) pairs, the source steps moved)."""
    steps = [Step(s.date, s.value, s.kind, s.exact, s.lo, s.genai, s.srcs) for s in steps]
    dated, moved = set(), []
    for day, figure, src in said:
        for j in range(1, len(steps)):
            st, before = steps[j], steps[j - 1]
            if (states(st.value, figure) and not states(before.value, figure)
                    and -7 <= days_between(day, st.date) <= LATE_DAYS and before.date < day):
                if st.date != day:
                    moved.append(Step(st.date, st.value, srcs=st.srcs))
                st.date = day
                st.srcs = set(st.srcs) | {src}
                dated.add((day, st.value))
                break
    return finalize(steps), dated, moved
