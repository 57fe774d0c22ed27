"""First-party evidence for limit changes: the providers' own pages that date a new context window
or max output (tools/dataset/limit_notices.json), the gate a limits history passes before its
moves become `limit_change` events.

The release sources record a model's limits with no date of their own and often wrongly (a max
output written as the context window, a beta option taken for the listed limit, an alias moving
to a newer model): an audit of every move they showed found most of them artifacts
(tests/fixtures/truth/audit-2026-11-24-limits.md). So a move of a limit is a change only where a
notice dates it, the way a price move is (evidence.py); every other move is restated
(screen.undated_limits). A notice counts as a source of the build (`provider <notice id>`, listed
in the snapshot's `sources[]` with the price notices). Standard library only.
"""
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from evidence import LATE_DAYS, source_of
from screen import LIMIT_RESTATEMENT, factor
from series import Step, days_between, finalize

PATH = Path(__file__).resolve().parent / "limit_notices.json"

REDATED = "limit change dated by the provider's own notice"


def load(path=PATH, as_of=None):
    """The notices; with `as_of`, those a build as of that day could know."""
    notices = json.loads(Path(path).read_text())["notices"]
    return [n for n in notices if not as_of or n["effective"] <= as_of]


def statements(notices):
    """(model id, limit field) -> [(effective, value, source)], oldest first."""
    out = defaultdict(list)
    for n in sorted(notices, key=lambda n: n["effective"]):
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
