"""A model's lifecycle from its price series: status, deprecation date and retirement date.

The build's render stage calls `lifecycle` once per model with every series of the model (the
rules are in docs/snapshot-format.md, section 5.2). A series is a dict with its `steps`
(series.Step, a `None` price ending it) and, where a shutdown is known, `shutdown`
(`(day, row key)`) and `announced` (the day the maker's own notice announced it,
tools/dataset/announcements.json). Standard library only.
"""
from series import value_at


def end_date(steps):
    return steps[-1].date if steps and steps[-1].value is None else None


def lifecycle(rows, gen, recorded, flagged):
    """(status, deprecation_date, retirement_date) of a model on day `gen`.

    rows: [(channel, series)], every series of the model; recorded(series): the day a source
    first recorded the series' shutdown date, or None; flagged: a source marks the model
    deprecated without a date.
    """
    live = [s for _ch, s in rows if value_at(s["steps"], gen) is not None]
    off = [s for ch, s in rows if ch == "official"]
    announced = []
    for s in off or [s for _ch, s in rows]:
        day = s.get("announced") or (recorded(s) if s.get("shutdown") else None)
        # a shutdown first recorded after the day itself was not announced then: its day is
        # not known
        if day and not (s.get("shutdown") and day > s["shutdown"][0]):
            announced.append(day)
    retirement = None
    if not live:
        retirement = max((end_date(s["steps"]) or "") for _ch, s in rows) or None
        status = "retired" if retirement and retirement <= gen else "active"
    else:
        # the maker's own shutdown decides; without an official row, every channel must have
        # announced one (a single cloud retiring a version does not deprecate a model)
        dep_now = any(s.get("shutdown") for s in off) if off else all(s.get("shutdown") for s in live)
        if dep_now and all(s.get("shutdown") for s in live):
            retirement = max(s["shutdown"][0] for s in live)
        status = "deprecated" if (dep_now or flagged) else "active"
    if status == "retired" and retirement and retirement > gen:
        status = "deprecated"
    dep = min(announced) if announced and status != "active" else None
    if dep and (dep > gen or (retirement and dep > retirement)):
        # recorded only after the shutdown: the day it was announced is not known
        dep = None
    return status, dep, retirement
