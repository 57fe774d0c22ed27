"""A model's lifecycle from its price series: status, deprecation date and retirement date.

The build's render stage calls `lifecycle` once per model with every series of the model (the
rules are in docs/snapshot-format.md, section 5.2). A series is a dict with its `steps`
(series.Step, a `None` price ending it) and, where a shutdown is known, `shutdown`
(`(day, row key)`); where a provider's own page states that shutdown, `page` (the notice's
source) and `announced` (the day the page announced it, None when the page names no such day;
tools/dataset/announcements.json).

The lifecycle gate (docs/publishing.md "The lifecycle gate"): a deprecation or retirement date,
and so the event behind it, is published only where a provider's own page states the day. What
the release sources alone give (the day a source first recorded a shutdown, a channel's listing
ending) still decides the status and ends the price series, but its date is withheld (null) and
returned with its rule for the quarantine report. Standard library only.
"""
from series import days_between, value_at

# a listing that ends within a week of the day a page states is that shutdown (a noon shutdown, a
# source that drops the row a few days early or late)
PAGE_DAYS = 7

DEP_UNDATED = "deprecation day no provider page states: unknown (null), not an event"
RET_UNDATED = "retirement day no provider page states: unknown (null), not an event"
SHUTDOWN_OVERRULED = "shutdown day a release source gives where the provider's own page states another: the page's day kept"


def end_date(steps):
    return steps[-1].date if steps and steps[-1].value is None else None


def page_states(rows, day):
    """A provider's page states a shutdown within PAGE_DAYS of `day` on one of the model's
    channels."""
    return any(s.get("page") and s.get("shutdown") and abs(days_between(s["shutdown"][0], day)) <= PAGE_DAYS
               for _ch, s in rows)


def lifecycle(rows, gen, recorded, flagged):
    """(status, deprecation_date, retirement_date, withheld) of a model on day `gen`.

    rows: [(channel, series)], every series of the model; recorded(series): the day a source
    first recorded the series' shutdown date, or None; flagged: a source marks the model
    deprecated without a date. withheld: [(rule, field, day)], the dates the release sources give
    that no provider page states (left null).
    """
    live = [s for _ch, s in rows if value_at(s["steps"], gen) is not None]
    off = [s for ch, s in rows if ch == "official"]
    announced, undated = [], []
    for s in off or [s for _ch, s in rows]:
        if not s.get("shutdown"):
            continue
        # a page that states the shutdown but no announcement day leaves that day to the sources
        page_day = s.get("announced") if s.get("page") else None
        day = page_day or recorded(s)
        # a shutdown first recorded after the day itself was not announced then: its day is
        # not known
        if day and day <= s["shutdown"][0]:
            (announced if page_day else undated).append(day)
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
    withheld = []
    dep = None
    if status != "active":
        dep = min(announced) if announced else None
        if dep and (dep > gen or (retirement and dep > retirement)):
            # recorded only after the shutdown: the day it was announced is not known
            dep = None
        source_dep = min((d for d in undated if d <= gen and not (retirement and d > retirement)), default=None)
        if dep is None and source_dep:
            withheld.append((DEP_UNDATED, "deprecation_date", source_dep))
    if retirement and not page_states(rows, retirement):
        withheld.append((RET_UNDATED, "retirement_date", retirement))
        retirement = None
    return status, dep, retirement, withheld
