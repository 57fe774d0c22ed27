"""What a screened price series publishes as its steps, the publisher's events: where it ends at a
shutdown, and which source releases show each step.

The build's finish stage calls these once per series, after resolve and series and before the
provider notices and the screens (docs/snapshot-format.md section 6, docs/publishing.md
"Screens"). Standard library only.
"""
from .series import Step, finalize, value_at

OPEN_END = "9999-12-31"     # the last step is in effect for every later day


def end_at_shutdown(steps, day):
    """A channel stops serving a row on its shutdown day, past or future (a future end is a
    scheduled one): a figure a source records for it after that day is no offer (grok-4-0709's
    cached-only price, listed by litellm after its 2026-05-15 shutdown), and the series ends that
    day with no price. Returns (steps, the figures after the day)."""
    late = [x for x in steps if x.date > day and x.value is not None]
    steps = [x for x in steps if x.date <= day] if late else list(steps)
    if steps and value_at(steps, day) is not None:
        steps.append(Step(day, None))
    return finalize(steps), late


def genai_current(g, genai_date):
    """The figure genai-prices gives for its own release day: its newest dated step up to that
    day, else its undated first price; None without a genai-prices series."""
    dated_past = [v for d, v in g if d and not d.startswith("verified:") and d <= genai_date]
    return dated_past[-1] if dated_past else (g[0][1] if g else None)


def step_sources(steps, obs, versions, genai=None, genai_date=None, genai_src=None, md_src=None):
    """Per step, the source releases that show it, sorted: the step's own sources (the release or
    ledger event that dates it), the litellm releases (`versions`, one per entry of `obs`, the
    series' per-release observations) whose row has the step's price while it is in effect,
    genai-prices where its dated step or its figure on its release day agrees, models.dev for a
    series it alone prices (`md_src`)."""
    gcur = genai_current(genai or [], genai_date)
    out = []
    for j, st in enumerate(steps):
        nxt = steps[j + 1].date if j + 1 < len(steps) else OPEN_END
        srcs = set(st.srcs)
        if st.value is not None:
            for (d, _k, v), ver in zip(obs or [], versions):
                if v == st.value and st.date <= d < nxt:
                    srcs.add(f"litellm {ver}")
            if st.genai or (gcur == st.value and st.date <= genai_date < nxt):
                srcs.add(genai_src)
            if md_src:
                srcs.add(md_src)
        out.append(sorted(srcs))
    return out
