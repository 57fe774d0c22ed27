"""A model's lifecycle from its price series: status, deprecation date and retirement date.

The build's render stage calls `lifecycle` once per model with every series of the model (the
rules are in docs/snapshot-format.md, section 5.2) and the providers' own deprecation notices of
the model (tools/dataset/announcements.json, read by evidence.deprecations). A series is a dict
with its `steps` (series.Step, a `None` price ending it) and, where a shutdown is known,
`shutdown` (`(day, row key)`: a notice's day where one covers the channel, else a source's).

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


def lifecycle(rows, gen, recorded, flagged, pages=None):
    """(status, deprecation_date, retirement_date, withheld) of a model on day `gen`.

    rows: [(channel, series)], every series of the model; recorded(series): the day a source
    first recorded the series' shutdown date, or None; flagged: a source marks the model
    deprecated without a date; pages: {channel: (announced or None, shutdown, source)}, the
    providers' notices of the model. withheld: [(rule, field, day)], the dates the release
    sources give that no provider page states (left null).
    """
    pages = pages or {}
    live = [s for _ch, s in rows if value_at(s["steps"], gen) is not None]
    off = [s for ch, s in rows if ch == "official"]
    # only the maker deprecates a model: its own page dates the deprecation, even of a model
    # only a cloud sold; a reseller's notice (Novita's changelog) ends that channel only
    announced = [a for a, shut, _src in [pages["official"]] if a and a <= shut] if "official" in pages else []
    undated = []
    if not announced:
        for s in off or [s for _ch, s in rows]:
            day = recorded(s) if s.get("shutdown") else None
            # a shutdown first recorded after the day itself was not announced then
            if day and day <= s["shutdown"][0]:
                undated.append(day)
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
        if source_dep:
            withheld.append((DEP_UNDATED, "deprecation_date", source_dep))
    if retirement and not any(abs(days_between(shut, retirement)) <= PAGE_DAYS for _a, shut, _src in pages.values()):
        withheld.append((RET_UNDATED, "retirement_date", retirement))
        retirement = None
    return status, dep, retirement, withheld
