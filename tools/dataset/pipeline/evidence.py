"""First-party evidence: the providers' own dated notices, a source of the build.

tools/dataset/announcements.json holds what a provider's own page says, with its URL and the day
it was read: price lists in effect from a stated day (DeepSeek's pricing page), and deprecation
notices with the announcement and shutdown days (OpenAI's deprecations page). A notice counts as
an independent source (`provider <notice id>` in a step's sources) and outranks the release
sources on what it states:

- it dates a change: the source step that records the notice's figure late (the next step after
  the notice's day) or early (a page stating the figure from its day) is moved to the day, and a source figure that is the notice's figure rounded
  to fewer decimals (DeepSeek's 0.56 recorded as 0.6) takes the notice's figure;
- a notice that dates a repricing without figures (`reprices`: DeepSeek's change log of
  2026-08-13, "The new prices will take effect at 16:00 (UTC Time) on August 16, 2026") dates the
  sources' next move of the series from its day on, in either direction, the way a stated cut does;
- a notice that states a cut without figures (`cuts`: DeepSeek's "API price cut by more than 50%"
  of 2025-09-29) dates the sources' next move of the series from its day on when that move is a
  cut of at least the stated size (any cut where the page gives no size: `cut_at_least` 0): the
  figures are the sources', the day is the provider's; a cut
  of a price list the provider stated (`of`: DeepSeek's change log lists no change between its
  2025-09-05 list and the 2025-09-29 cut) shows that list in effect until the day before;
- it corroborates the step in effect on its day when that step already shows its figure;
- a figure the page states from its day (`dated`) that no source records within LATE_DAYS stands
  from that day on a channel the notice covers while the channel sells the model: the sources'
  earlier figure is stale from then on (Anthropic's "across all platforms" of 2024-12-03: Vertex
  AI's rows of Claude 3.5 Haiku kept the old 1 / 5 until the shutdown);
- it contradicts: a source step moving away from the notice's figure on a day the page shows that
  figure still in effect (after `effective`, up to `through`) is not an offer and is left out;
- a page that shows a source's figure wrong without stating the channel's price in USD
  (`contradicts`: Azure's pricing page in Korean won of 2024-07-08 gives GPT-3.5-Turbo-0301's input
  the same price as its output, where litellm has input 0.2 against output 2 per 1M) leaves out the
  source step at that figure in effect on a day of the notice: the whole step, since a source's
  constant row is one claim, not a price that changed; no figure takes its place (`contradictions`);
- a deprecation notice sets the model's deprecation date (the announcement day) and the shutdown
  day of the channels its page covers (the official channel unless it names others), with the
  replacement it names (`successor`). Lifecycle notices live in tools/dataset/notices/ (one file per
  publisher, schema in its README) beside the price notices of announcements.json.

Only a price the page states from a given day (`dated` in the notice, or a cut it dates) makes the
move into it a change the provider dates; a page that merely shows a price in effect on the day it
was read confirms that price, not when it began. `apply_prices` returns which steps are which, for
the evidence gate (screen.unevidenced_moves).

Everything moved or left out is returned with its rule for the quarantine report
(docs/publishing.md "Screens"). Standard library only.
"""
import json
from collections import defaultdict, namedtuple
from decimal import Decimal
from pathlib import Path

from .series import Shown, Step, days_between, finalize, prev_day
from . import FACTS

PATH = FACTS / "announcements.json"
NOTICES = FACTS / "notices"
SOURCE_ID = "provider"
# a monthly-sampled source records a change up to about a quarter late (DeepSeek V4's launch
# prices: on DeepSeek's page 2026-04-26, first in litellm 1.91.5 on 2026-06-21)
LATE_DAYS = 92

REDATED = "dated or restated by the provider's own notice"
CONTRADICTED = "contradicts the provider's own price list: not an offer"
STALE = "stale after the provider's dated notice: no source records the figure it states"


def load(path=PATH, folder=NOTICES):
    """The notices of announcements.json, then those of every publisher's file in `folder`."""
    notices = json.loads(Path(path).read_text())["notices"]
    for f in sorted(Path(folder).glob("*.json")) if folder else ():
        notices += json.loads(f.read_text())["notices"]
    return notices


def known_since(row, notice):
    """The first day a build knows a lifecycle row: its announcement day, else (a page naming no
    announcement day) its shutdown day at the latest, else the day the page was read."""
    return row.get("announced") or row.get("shutdown") or notice["read"]


def known_by(notices, day):
    """The notices as they stood on `day` (a build as of a past day knows no later notice)."""
    out = []
    for n in notices:
        if ("prices" in n or "cuts" in n or "reprices" in n or "contradicts" in n) and n["effective"] <= day:
            out.append(dict(n, through=min(n["through"], day)))
        elif "deprecations" in n:
            deps = [d for d in n["deprecations"] if known_since(d, n) <= day]
            if deps:
                out.append(dict(n, deprecations=deps))
    return out


def source_block(notices):
    """The snapshot's `sources[]` entry of the notices (no package: they are the providers' pages)."""
    return {"id": SOURCE_ID, "package": None, "versions": sorted(n["id"] for n in notices),
            "license": None, "released": max(n["read"] for n in notices)}


def source_of(notice):
    return f"{SOURCE_ID} {notice['id']}"


def price_statements(notices):
    """(model id, channel, component, tier) -> [(effective, through, price, source, dated)],
    oldest first; `price` is a figure, or for a stated cut ("cuts") the factor the new price is at
    most of the old. A notice states prices of the maker's own API (`official`) unless it names
    the platforms it covers (`channels`: Anthropic's "across all platforms" of 2024-12-03 covers
    Amazon Bedrock and Google Vertex AI too), and of the standard tier unless it names the tiers
    (a price's `tier`; a cut's `tiers`: OpenAI's "GPT-5.6 Luna costs 80% less" of 2026-07-30 is
    said of the model, so of every tier it sells, each still held to the stated size)."""
    out = defaultdict(list)
    # a cut of a stated price list (`of`) shows that list in effect until the day before the cut
    until = {n["of"]: prev_day(n["effective"]) for n in notices if n.get("of")}
    for n in notices:
        through = max(n.get("through", ""), until.get(n["id"], ""))
        for ch in n.get("channels", ("official",)):
            for p in n.get("prices", ()):
                out[(p["model"], ch, p["component"], p.get("tier", "standard"))].append(
                    (n["effective"], through, p["price"], source_of(n), bool(p.get("dated"))))
            for c in n.get("cuts", ()):
                for tier in n.get("tiers", ("standard",)):
                    out[(c["model"], ch, c["component"], tier)].append(
                        (n["effective"], n["through"], None, source_of(n), Decimal(1) - Decimal(n["cut_at_least"])))
            # a change the page dates without figures or a direction: the sources' next figure
            for c in n.get("reprices", ()):
                out[(c["model"], ch, c["component"], "standard")].append(
                    (n["effective"], n["through"], None, source_of(n), Decimal("Infinity")))
    return {k: sorted(v, key=lambda x: x[:2]) for k, v in out.items()}


def contradictions(notices):
    """(model id, channel, component, tier) -> [(effective, through, figure)]: the source figures a
    notice's page shows wrong (`contradicts`), on the notice's channels (official unless it names
    them) and the standard tier unless a row names one."""
    out = defaultdict(list)
    for n in notices:
        for ch in n.get("channels", ("official",)):
            for c in n.get("contradicts", ()):
                out[(c["model"], ch, c["component"], c.get("tier", "standard"))].append(
                    (n["effective"], n["through"], Decimal(c["price"])))
    return dict(out)


def drop_contradicted(steps, rows):
    """Leaves out the steps at a figure a page contradicts (`rows`, from `contradictions`) that are
    in effect on a day from the notice's `effective` to its `through`. Returns (steps, removed)."""
    removed = []
    for k, s in enumerate(steps):
        until = steps[k + 1].date if k + 1 < len(steps) else None
        if s.value is not None and any(
                Decimal(s.value) == figure and s.date <= through and (until is None or until > effective)
                for effective, through, figure in rows):
            removed.append(s)
    return ([s for s in steps if s not in removed], removed) if removed else (steps, [])


def promotions(notices):
    """(model id, channel, component) -> [(price, from, until, url)]: the prices a notice calls
    promotional (introductory), with the day the promotion began where the page names one and the
    last day it names (None: not named), on the notice's channels (official unless it names
    them)."""
    out = defaultdict(list)
    for n in notices:
        for ch in n.get("channels", ("official",)):
            for p in n.get("promotions", ()):
                out[(p["model"], ch, p["component"])].append(
                    (Decimal(p["price"]), p.get("from"), p["until"], n["url"]))
    return dict(out)


def mark_promotions(hist, offers):
    """Marks each history entry at a price a notice calls promotional (`offers`, from
    `promotions`) that starts within the promotion (on or after its `from`, on or before its
    `until`): `promotion` {until, url}. An entry at another price (the standard price after an
    introductory one), or one that began before the promotion, stays regular."""
    for h in hist:
        for price, since, until, url in offers:
            if (h["price"] is not None and Decimal(h["price"]) == price
                    and (since is None or h["from"] >= since) and (until is None or h["from"] <= until)):
                h["promotion"] = {"until": until, "url": url}
    return hist


# What the publishers' pages say of a model on one channel: the day the deprecation was first
# announced, the shutdown day, a planned end that is no shutdown (`not_before`: "not sooner than",
# "earliest possible"), the replacement named, the notices (`provider <id>`, oldest first, joined by
# "; ") and the newest one's URL, and the older shutdown days a newer notice moved ((day, its
# notice, the notice moving it), listed in the quarantine report). Unknown: None.
Statement = namedtuple("Statement", "announced shutdown not_before successor source url superseded")


def states_deprecation(st):
    """A statement (or a notice's row) says the model is deprecated (or shut down), not only when it
    may end: it has an announcement or a shutdown day, or neither (a page calling the model
    deprecated without a day)."""
    return bool(st.announced or st.shutdown or not st.not_before)


SOURCES_SEP = "; "


def deprecations(notices):
    """(model id, channel) -> Statement, from every row of the model on the channel, oldest first
    (by its announcement day, else the day its page was read). A model deprecated stays deprecated:
    its announcement day is the earliest a deprecating row states, and a later notice restating the
    deprecation moves no day (OpenAI deprecated gpt-4o-realtime-preview-2025-06-03 on 2025-09-15;
    its family notice of 2026-07-20 deprecates it again). The end (shutdown day or planned end) and
    the successor come from the newest row naming them: a later notice may move a shutdown (the
    same model's 2026-05-07, moved to 2027-01-20), the older day kept in `superseded`; a row naming
    a replacement no source prices (`named` without `successor`: gpt-realtime-2.1 of that notice)
    leaves the successor unknown. A row covers its own `channels`, else its notice's, else the
    maker's own API (`official`): Amazon Bedrock's model cards, Microsoft's Azure OpenAI
    retirements and Novita's changelog end their channel only."""
    rows = [(d.get("announced") or n["read"], n["id"], n, d) for n in notices for d in n.get("deprecations", ())]
    said = defaultdict(list)
    for _day, _id, n, d in sorted(rows, key=lambda r: r[:2]):
        row = Statement(d.get("announced"), d.get("shutdown"), d.get("not_before"), d.get("successor"),
                        source_of(n), n["url"], ())
        for ch in d.get("channels") or n.get("channels", ("official",)):
            said[(d["model"], ch)].append((row, bool(d.get("successor") or d.get("named"))))
    return {key: merge(rs) for key, rs in said.items()}


def merge(rows):
    """One Statement of a model on a channel from its rows, oldest first, each with whether it
    names a replacement (see `deprecations`)."""
    announced = min((r.announced for r, _n in rows if r.announced and states_deprecation(r)), default=None)
    end = next((r for r, _n in reversed(rows) if r.shutdown or r.not_before), None)
    successor = next((r for r, names in reversed(rows) if names), None)
    used = [r for r, _n in rows if (announced and r.announced == announced and states_deprecation(r))
            or r is end or r is successor] or [rows[-1][0]]
    superseded = tuple(dict.fromkeys((r.shutdown, r.source, end.source) for r, _n in rows
                                     if r.shutdown and end and r.shutdown != end.shutdown))
    return Statement(announced, end and end.shutdown, end and end.not_before,
                     successor and successor.successor, SOURCES_SEP.join(dict.fromkeys(r.source for r in used)),
                     used[-1].url, superseded)


def records(value, figure):
    """A source's `value` records the notice's `figure`: the same, or the figure rounded to the
    value's own decimals (0.6 for 0.56, 1.7 for 1.68)."""
    if value is None:
        return False
    v, f = Decimal(value), Decimal(figure)
    if v == f:
        return True
    exp = v.as_tuple().exponent
    return v != 0 and exp < 0 and f.as_tuple().exponent < exp and f.quantize(Decimal(1).scaleb(exp)) == v


def apply_cut(steps, day, at_most, src):
    """A stated cut of `day`: the sources' next move from the day on (on the day itself, or
    recorded late), when the new price is at most `at_most` x the one in effect the day before,
    is that cut, moved to the day (a repricing, `at_most` infinite, in either direction). Days
    the sources leave unknown (a null step) between the day and the figure they record late are
    the new price's: the page dates it. Returns the moved step, or None."""
    # a source with dated steps (genai-prices) records the cut on its own day: OpenAI's o3 of
    # 2025-06-10
    i = max((k for k, s in enumerate(steps) if s.date < day), default=None)
    j = None if i is None else next((k for k in range(i + 1, len(steps)) if steps[k].value is not None), None)
    if j is None or steps[i].value is None:
        return None
    nxt = steps[j]
    if Decimal(nxt.value) > Decimal(steps[i].value) * at_most:
        return None
    # DeepSeek's V4 repricing of 2026-08-16: the flat rate's end and the off-peak figure first
    # recorded on 2026-09-10 leave no day unknown once the page dates the change
    del steps[i + 1:j]
    nxt.srcs = set(nxt.srcs) | {src}
    return nxt


def apply_prices(steps, statements):
    """Apply a series' first-party price statements (see the module doc).
    Returns (steps, [(rule, [removed or moved source steps])], {(date, price): Shown} of the steps
    the provider's pages show)."""
    steps = [Step(s.date, s.value, s.kind, s.exact, s.lo, s.genai, s.srcs) for s in steps]
    removed = []
    shown = {}
    for day, through, figure, src, dated in statements:
        if figure is None:
            hit = apply_cut(steps, day, dated, src)
            if hit is not None:
                if hit.date != day:
                    removed.append((REDATED, [Step(hit.date, hit.value, srcs=hit.srcs)]))
                    hit.date = day
                shown[(hit.date, hit.value)] = Shown(through, True)
            steps = finalize(steps)
            continue
        i = max((k for k, s in enumerate(steps) if s.date <= day), default=None)
        j = 0 if i is None else i + 1
        hit = None
        if i is not None and steps[i].value is not None and Decimal(steps[i].value) == Decimal(figure):
            hit = steps[i]          # the sources already show the figure in effect that day
            if (dated and hit.date < day and i > 0 and steps[i - 1].value is not None
                    and days_between(hit.date, day) <= LATE_DAYS):
                # ... from before the day the page says it applies from: recorded early
                removed.append((REDATED, [Step(hit.date, hit.value, srcs=hit.srcs)]))
                hit.date = day
        elif j < len(steps) and records(steps[j].value, figure) and days_between(day, steps[j].date) <= LATE_DAYS:
            hit = steps[j]          # the sources' next step is this change, recorded late or rounded
            removed.append((REDATED, [Step(hit.date, hit.value, srcs=hit.srcs)]))
            hit.date, hit.value = day, figure
        elif dated and i is not None and steps[i].value is not None:
            # no source records the figure the page states from its day: the sources' figure in
            # effect that day is stale from then on (the channel sells the model: a step is in effect)
            removed.append((STALE, [Step(day, steps[i].value, srcs=steps[i].srcs)]))
            hit = Step(day, figure)
            steps.insert(j, hit)
        if hit is not None:
            hit.srcs = set(hit.srcs) | {src}
            was = shown.get((hit.date, hit.value))
            shown[(hit.date, hit.value)] = Shown(max(through, was.through) if was else through,
                                                 (dated and hit.date == day) or bool(was and was.dated))
        late = [s for s in steps
                if day < s.date <= through and s.value is not None and Decimal(s.value) != Decimal(figure)]
        if late:
            removed.append((CONTRADICTED, late))
            steps = [s for s in steps if s not in late]
        steps = finalize(steps)
    return steps, removed, shown
