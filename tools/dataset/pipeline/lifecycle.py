"""A model's lifecycle from the providers' own statements: status, deprecation and retirement
dates, successor, and the statements the card shows.

The build's render stage calls `lifecycle` once per model with every series of the model (the
rules are in docs/snapshot-format.md, section 5.2) and the providers' statements of the model per
channel (evidence.Statement, from tools/dataset/notices/ and announcements.json). A series is a
dict with its `steps` (series.Step, a `None` price ending it) and `last_verified`.

Status follows from dated evidence only (docs/publishing.md "The lifecycle gate"): `deprecated`
and `retired` need a provider's statement, and the card names it. The maker's own page (a
statement on `official`) dates the model: its announcement day is the deprecation date, its
shutdown day the retirement date, its replacement the successor. A cloud's or a reseller's page
ends that channel's series only. A model no statement covers stays `active` whatever its sources
do: a source that stops listing it, or carries a shutdown date no page states, makes its prices
stale (`is_stale`), never the model retired. What the release sources alone give is withheld and
returned with its rule for the quarantine report. Standard library only.
"""
from .evidence import states_deprecation
from .series import days_between, value_at

# a listing is fresh while the newest source release confirming it is at most this old: a price
# last confirmed earlier is stale (api._is_stale, sql/25_prices.sql: the same 30 days)
STALE_DAYS = 30

DEP_UNDATED = "deprecation day no provider page states: unknown (null), not an event"
SHUTDOWN_OVERRULED = "shutdown day a release source gives where the provider's own page states another: the page's day kept"
SHUTDOWN_UNSTATED = "shutdown day only a release source gives: no end of the series (it goes stale), not an event"
SHUTDOWN_MOVED = "shutdown day a newer statement of the provider moves: the newer day kept, not an event"


def end_date(steps):
    return steps[-1].date if steps and steps[-1].value is None else None


def fresh(series, gen):
    """The series has a price in effect on `gen` that a source confirmed within STALE_DAYS."""
    return (value_at(series["steps"], gen) is not None
            and days_between(series["last_verified"], gen) <= STALE_DAYS)


def lifecycle(rows, gen, pages, recorded=lambda _s: None):
    """(status, deprecation_date, retirement_date, successor, statements, withheld) of a model on
    day `gen`.

    rows: [(channel, series)], every series of the model; pages: {channel: evidence.Statement}, the
    providers' statements of the model; recorded(series): the day a source first recorded the
    series' own shutdown date, or None. statements: the snapshot's `lifecycle` entries (the maker's
    and those of the channels the model is sold on), the one the status rests on marked `decides`.
    withheld: [(rule, channel, field, day, sources, detail)], the dates the release sources give that
    no page states, and the shutdown days a newer statement moved.
    """
    sold = {ch for ch, _s in rows}
    said = {ch: st for ch, st in pages.items() if ch == "official" or ch in sold}
    maker = said.get("official")
    if maker and not states_deprecation(maker):
        maker = None            # a planned end ("not sooner than") is no deprecation
    offered = [ch for ch, s in rows if fresh(s, gen)]
    ended = {ch: st.shutdown for ch, st in said.items() if st.shutdown and st.shutdown <= gen}
    status, dep, retirement, successor, decides = "active", None, None, None, None
    if maker:
        decides, successor = "official", maker.successor
        dep = maker.announced if maker.announced and maker.announced <= gen else None
        retirement = maker.shutdown
        # retired once the maker's shutdown has passed and no channel still sells it (a cloud on
        # its own schedule, a reseller still confirming a price)
        status = "retired" if "official" in ended and not [ch for ch in offered if ch not in ended] else "deprecated"
    else:
        # a model its maker does not deprecate: its channels' own pages, all of them
        channel = {ch: st for ch, st in said.items() if ch != "official" and states_deprecation(st)}
        if channel:
            last = max(channel, key=lambda ch: (channel[ch].shutdown or "9999", ch))
            left = [ch for ch in offered if ch not in ended]
            if not left and ended:
                status, retirement, decides = "retired", max(ended.values()), max(ended, key=ended.get)
            elif left and all(ch in channel for ch in left):
                shuts = [channel[ch].shutdown for ch in left]
                status, decides = "deprecated", last
                retirement = max(shuts) if all(shuts) else None
            names = {st.successor for st in channel.values()}
            if status != "active" and len(names) == 1:
                successor = names.pop()
    withheld = []
    if status != "active" and not dep:
        days = [recorded(s) for _ch, s in rows if s.get("source_shutdown")]
        day = min((d for d in days if d and d <= gen), default=None)
        if day:
            withheld.append((DEP_UNDATED, "all", "deprecation_date", day, (), None))
    for ch, st in sorted(said.items()):
        said_end = st.shutdown or f"a planned end not before {st.not_before}"
        for day, src, newer in st.superseded:
            withheld.append((SHUTDOWN_MOVED, ch, "retirement_date", day, (src,), f"the newer statement ({newer}) states {said_end}"))
    statements = [{"channel": ch, "announced": st.announced, "shutdown": st.shutdown,
                   "not_before": st.not_before, "successor": st.successor, "source": st.source,
                   "url": st.url, "decides": ch == decides}
                  for ch, st in sorted(said.items())]
    return status, dep, retirement, successor, statements, withheld
