"""The screen between a price series and its events: what a source shows that did not happen.

Each rule takes a series' steps (with their sources, see series.Step) and returns the steps it
keeps plus what it removed, so the build can list every screened-out figure with its rule in the
quarantine report (data/quarantine.json); nothing is dropped silently. The rules, with a real
example each, are in docs/publishing.md ("Screens"). Standard library only.
"""
from collections import defaultdict
from decimal import Decimal

from .series import Step, days_between, finalize, next_day

UNDO_DAYS = 60          # a move undone within this many days is a correction, not two events
UNDO_TOLERANCE = Decimal("0.05")  # a return within 5% of the figure before the move undoes it (0.68 -> 1.36 -> 0.7)
REGION_PREMIUM = Decimal("1.1")   # a data-zone / regional row is priced 10% above the global row
LIMIT_RESTATEMENT = Decimal("1.05")  # a limit moving by less than this is the same limit written otherwise
BIG_MOVE = Decimal(10)  # a move of this factor or more needs a second source
MAX_MOVE = Decimal(20)  # beyond this no source is believed: the publisher refuses such steps
FIRST_LAUNCH = "2015-01-01"  # no token-priced model launched before: an earlier launch date is a placeholder
PLACEHOLDER_YEARS = 10  # a shutdown this many years after the release stating it is a placeholder
UNIT_SLIP = Decimal(1000)  # a per-1K figure entered as a per-token one reads 1,000 times the price
UNIT_SLIP_TOLERANCE = Decimal("1.1")  # the other figure may differ by 10% (a regional premium, a sibling's price)
UNIT_OUTLIER = Decimal(100)  # every sibling at least this far below the figure: none of them is priced near it
UNIT_SIBLINGS = 2  # the fewest siblings whose agreement makes a family's price

UNDONE = "undone within 60 days: a correction, not two events"
UNBACKED = "move of 10x or more shown by one source only"
IMPLAUSIBLE = "move of more than 20x: a source error"
UNIT = "unit change restated, not an event"
PEAK_RATE = "peak-hour rate of a model billed by time of day: not a price in effect all day"
AFTER_SHUTDOWN = "priced after the channel's shutdown date"
AFTER_ROW_SHUTDOWN = ("figure a release source first gives after the shutdown date its own row states: no offer "
                      "of this model (a retired id priced as the model it redirects to)")
LEDGER_CORRECTION = "llmledger correction flag (likely correction or unit fix): applied retroactively"
LEDGER_REVERTED = "llmledger reverted flag: undone within 30 days"
ROUTING = "aggregator routing change shown by one source: restated, not an event"
UNEVIDENCED = "move one lineage shows and no provider page dates: restated as a source correction, not an event"
UNDATED = "move two sources show and no provider page dates: its day left unknown, not an event"
LIMIT_RESTATED = "limit restated within 5% (64000 as 65536, 8192 as 8000): not a change"
LIMIT_UNDATED = "limit move no provider page dates: restated (the newer figure over the earlier), not an event"
REGION_ROW = "regional or data-zone figure (1.1x the global row): restated to the global row, not an event"
ALIAS_MOVED = "alias moved: a -latest id pointing to another model, history before the move left out"
OUTSIDE_STANDARD = "conditional rate outside its standard series' span: no offer before it starts or after it ends"
UNIT_ERROR = ("figure 1,000 times the same release's price of the model on another channel or of its maker's "
              "other models of its kind on the channel: a unit error (a per-1K figure entered per token), not an offer")
PER_CHARACTER = "billed per character on its channel (a per-character price beside each per-token one): no per-token price"

# channels that list a model per deployment region, the data-zone / regional rows at a premium
REGIONAL_CHANNELS = {"azure", "aws_bedrock"}

# channels whose listed price is that of whichever provider they route to at the moment
AGGREGATORS = {"openrouter"}
# llmledger is a day-dated history of litellm's price file: it dates litellm's figures, it does
# not confirm them
DERIVED_FROM = {"llmledger": "litellm"}


def placeholder_shutdown(day, stated_on):
    """A shutdown date `PLACEHOLDER_YEARS` or more after the day of the release that states it is
    no date but a placeholder for "none known" (litellm's OpenRouter rows of GLM-5 Turbo, GLM-5V
    Turbo and GLM-5.3 FlashX carry 2098-12-31, litellm 1.103.0 to 1.106.1): unknown, not a
    scheduled end."""
    return int(day[:4]) - int(stated_on[:4]) >= PLACEHOLDER_YEARS


def after_row_shutdown(steps, day, row_from=None):
    """A new figure a release source gives a row after the shutdown date the same row states is
    not this model's price: the maker retired the id and sends it elsewhere (xAI: "requests to
    the retired model slugs ... will automatically redirect to grok-4.3 ... billed at grok-4.3
    pricing", https://docs.x.ai/developers/migration/may-15-retirement), and the source prices
    the id at the target's figure (litellm 1.100.0 gives `xai/grok-4`, shutdown 2026-05-15,
    grok-4.3's 1.25 / 2.5 where xAI sold grok-4 at 3 / 15). Screened: a move of a series priced
    before that day, and a rate (another component, a conditional rate) the row first gains after
    it where the row's input price on the channel (from `row_from`) was priced before the day
    (grok-4's cached input 0.2 and above-200k rates 2.5 / 5, grok-4.3's); a row the source first
    prices after the day is no move and stays. Not a step genai-prices dates (another lineage's own statement). The
    figures before the day stay; with no provider's page stating the shutdown the series is not
    ended (it goes stale). Returns (steps, the figures left out)."""
    if not (row_from and row_from <= day) and not any(x.date <= day and x.value is not None for x in steps):
        return steps, []
    late = [x for x in steps if x.date > day and x.value is not None and not x.genai]
    return (finalize([x for x in steps if x not in late]), late) if late else (steps, [])


def unit_errors(figures):
    """The figures a release source gives 1,000 times too high (a per-1K price entered as a
    per-token one). `figures`: {release label: {series key: (price per 1M, the row's kind)}}, the
    key (entity, channel, component, tier, condition...) with entity (maker, model). In the same
    release, a figure is a unit error where
      (a) the same model, component, tier and condition on another channel is priced at 1/1,000 of
          it (within UNIT_SLIP_TOLERANCE), or
      (b) UNIT_SIBLINGS or more other models of the same maker and kind are priced on the same
          channel, component, tier and condition, every one at least UNIT_OUTLIER times below it,
          and the figure / 1,000 lies within their span (widened by UNIT_SLIP_TOLERANCE): the
          family agrees on the price the figure is 1,000 times of.
    litellm 1.80.6 to 1.109.1 give Cohere's `embed-multilingual-light-v3.0` 0.0001 per token (100
    per 1M), its own `oci/` row 1e-07 (a channel not published, so not compared) and every other
    Cohere embedding model on Cohere's API 0.08 to 0.12 per 1M.
    Returns {series key: {price: [(release label, what it was compared with)]}}."""
    lo, hi = UNIT_SLIP / UNIT_SLIP_TOLERANCE, UNIT_SLIP * UNIT_SLIP_TOLERANCE
    out = defaultdict(lambda: defaultdict(list))
    for release, rows in figures.items():
        rows = {key: vk for key, vk in rows.items() if vk[0]}
        by_model, by_family = defaultdict(dict), defaultdict(dict)
        for (ent, ch, *rest), (v, kind) in rows.items():
            by_model[(ent, *rest)][ch] = v
            by_family[(ent[0], ch, kind, *rest)][ent[1]] = v
        for key, (v, kind) in rows.items():
            (maker, model), ch, *rest = key
            other = sorted((c, w) for c, w in by_model[(key[0], *rest)].items() if c != ch and lo <= v / w <= hi)
            if other:
                out[key][v].append((release, "the model on " + ", ".join(f"{c} at {w}" for c, w in other)))
                continue
            sib = sorted((m, w) for m, w in by_family[(maker, ch, kind, *rest)].items() if m != model)
            ws = [w for _m, w in sib]
            if (len(sib) >= UNIT_SIBLINGS and all(w * UNIT_OUTLIER <= v for w in ws)
                    and min(ws) / UNIT_SLIP_TOLERANCE <= v / UNIT_SLIP <= max(ws) * UNIT_SLIP_TOLERANCE):
                out[key][v].append((release, f"the other {kind or 'unlabelled'} models of {maker} on {ch}: "
                                             + ", ".join(f"{m} {w}" for m, w in sib)))
    return {k: dict(v) for k, v in out.items()}


def drop_unit_errors(steps, wrong):
    """Leaves out the steps at a figure `unit_errors` found (`wrong`: {price: [(release, compared
    with)]}) unless a source of another lineage (genai-prices, a provider's page) gives it too.
    Returns (steps, removed, the detail: each comparison with the releases that show it)."""
    removed = [st for st in steps if st.value is not None and Decimal(st.value) in wrong
               and independent_sources(st.srcs) <= {"litellm"}]
    if not removed:
        return steps, [], None
    seen = defaultdict(list)
    for st in removed:
        for release, against in wrong[Decimal(st.value)]:
            if release not in seen[(st.value, against)]:
                seen[(st.value, against)].append(release)
    detail = "; ".join(f"{v} against {against} ({', '.join(rels)})" for (v, against), rels in seen.items())
    return [st for st in steps if st not in removed], removed, detail


def independent_sources(srcs):
    """The independent sources among "<source id> <version>" strings: llmledger counts as litellm."""
    ids = {s.split(" ", 1)[0] for s in srcs}
    return {DERIVED_FROM.get(i, i) for i in ids}


def factor(a, b):
    a, b = Decimal(a), Decimal(b)
    return max(a, b) / min(a, b)


def returns_to(a, c):
    """c is a's figure again: the same, or within UNDO_TOLERANCE of it (a rounded restatement)."""
    if a is None or c is None:
        return False
    return a == c or abs(Decimal(c) - Decimal(a)) <= UNDO_TOLERANCE * Decimal(a)


def undone_moves(steps, dated=frozenset()):
    """A -> B -> A with the return within UNDO_DAYS: B never was the price. A return within 5% of
    A (A -> B -> A', A' a rounded A) undoes the move too; A' is restated over A from A's date (the
    newer statement of the same price), so no small step is left behind. Returns (steps, removed)."""
    steps = list(steps)
    removed = []
    i = 1
    while i + 1 < len(steps):
        a, b, c = steps[i - 1], steps[i], steps[i + 1]
        if (None not in (a.value, b.value)
                and (c.value == a.value or (not returns_to(a.value, b.value) and returns_to(a.value, c.value)))
                and days_between(b.date, c.date) <= UNDO_DAYS
                # a move the provider dates happened, however soon another follows
                and not dated & {(b.date, b.value), (c.date, c.value)}):
            removed += [b, c]
            a.value = c.value
            a.srcs |= c.srcs
            steps = steps[:i] + steps[i + 2:]
            i = max(1, i - 1)
            continue
        i += 1
    return finalize(steps), removed


def big_moves(steps):
    """Moves of more than MAX_MOVE, and moves of BIG_MOVE or more that one source alone shows.

    Which figure is wrong: if a later figure comes back within the limit of the earlier price,
    the departure (every step until then) is the glitch; otherwise the earlier figure is the
    error, and when it opened the series the next figure takes over its date, so the series keeps
    its start. Repeated until no such move is left. Returns (steps, [(rule, removed steps)]).
    """
    def bad(a, b):
        # both figures must be shown by two sources: a stale placeholder one source carries is
        # not the earlier price of a move the second source never saw
        f = factor(a.value, b.value)
        return f > MAX_MOVE or (f >= BIG_MOVE and min(len(independent_sources(x.srcs)) for x in (a, b)) < 2)

    steps = list(steps)
    out = []
    while True:
        pair, prev = None, None
        for i, st in enumerate(steps):
            if st.value is None:
                continue
            if prev is not None and bad(steps[prev], st):
                pair = (prev, i)
                break
            prev = i
        if not pair:
            return steps, out
        a_i, b_i = pair
        rule = IMPLAUSIBLE if factor(steps[a_i].value, steps[b_i].value) > MAX_MOVE else UNBACKED
        a = steps[a_i]
        back = next((j for j in range(b_i + 1, len(steps))
                     if steps[j].value is not None and factor(a.value, steps[j].value) < BIG_MOVE), None)
        if back is not None:
            drop = {j for j in range(b_i, back) if steps[j].value is not None}
        else:
            drop = {a_i}
            if a_i == 0:
                b = steps[b_i]
                steps[b_i] = Step(a.date, b.value, b.kind, a.exact, a.lo, a.genai, b.srcs)
                drop |= set(range(0, b_i))
        out.append((rule, [steps[j] for j in sorted(drop) if steps[j].value is not None]))
        steps = finalize([st for j, st in enumerate(steps) if j not in drop])


def restated_limits(steps):
    """A context window or max output moving by less than 5% is the same limit written another
    way (a power of two for a round thousand, a rounded figure): the newer figure applies from the
    earlier step's date, no change. Returns (steps, restated steps)."""
    out, removed = [], []
    for st in steps:
        if out and None not in (out[-1].value, st.value) and factor(out[-1].value, st.value) < LIMIT_RESTATEMENT:
            removed.append(st)
            prev = out[-1]
            out[-1] = Step(prev.date, st.value, "obs", prev.exact, prev.lo, st.genai, prev.srcs | st.srcs)
            continue
        out.append(st)
    return finalize(out), removed


def undated_limits(steps, dated):
    """The limit gate: a move of a context window or max output is a `limit_change` only where a
    provider's page dates it (`dated`: (day, value) pairs, limit_evidence.apply). Every other
    move is restated, the newer figure over the earlier from the earlier's date: the release
    sources' limits are undated and mostly corrections of their own figures (a max output set to
    the context window, a beta option, an alias's new model), and the newer one is the source's
    better statement. Returns (steps, the source figures no longer in them as given)."""
    out, restated, _unknown = restated_moves(steps, lambda _before, after: (after.date, after.value) in dated)
    return out, restated


def restated_moves(steps, backed, known=None):
    """Every move `backed(before, after)` rejects is restated: the newer figure over the one before
    it, from that one's date, with its own sources (no event is made of it, and the current price
    stays the newest figure), repeated while the move now left is still rejected. Where
    `known(before, after)` gives the last day the earlier figure is known to be in effect, the
    earlier figure is kept instead: its days after that one are made unknown (a `None` step, which
    ends it with no price and makes the newer figure no change of it) and the newer figure stays
    from its own date. Returns (steps, the source figures no longer in them as given, the newer
    figures of the moves whose day was left unknown)."""
    out, unknown = [], []
    for st in steps:
        out.append(st)
        while (len(out) > 1 and None not in (out[-2].value, out[-1].value) and out[-1].value != out[-2].value
               and not backed(out[-2], out[-1])):
            last = out.pop()
            prev = out[-1]
            until = known(prev, last) if known else None
            if until is not None and next_day(until) < last.date:
                out += [Step(next_day(until), None), last]
                unknown.append(Step(last.date, last.value, srcs=last.srcs))
                break
            out[-1] = Step(prev.date, last.value, "obs", prev.exact, prev.lo, last.genai, last.srcs)
    out = finalize(out)
    kept = {(st.date, st.value) for st in out}
    return out, [st for st in steps if (st.date, st.value) not in kept], unknown


def routing_changes(steps, dated=frozenset()):
    """On an aggregator channel, a move that one independent source alone shows is a change of
    the provider the aggregator routes to, not a price change: restated (restated_moves), unless a
    provider's page dates it (`dated`: Anthropic's cut of Claude 3.5 Haiku "across all platforms"
    of 2024-12-03, which OpenRouter resells)."""
    out, restated, _unknown = restated_moves(
        steps, lambda _before, after: len(independent_sources(after.srcs)) >= 2 or (after.date, after.value) in dated)
    return out, restated


def unevidenced_moves(steps, shown, day_of=None):
    """The evidence gate: a move is a price change only where a provider's own page dates it
    (`shown[(date, price)].dated`, see evidence.apply_prices). Every other move is no event:

    - a move one lineage alone shows (litellm, or llmledger's history of it) is most often an edit
      of that source's file (a corrected figure, a renamed row): restated as a source correction;
    - a move two independent sources show, or away from a figure a provider's page shows, most
      often happened, on a day no first-party page gives: the earlier figure is kept up to the
      last day a page or a source release (`day_of`: "<source id> <version>" -> its day) shows it
      in effect, the days from then until the newer figure are unknown.

    Returns (steps, [(rule, steps)]: the source figures restated, and the newer figures of the
    moves whose day was left unknown)."""
    day_of = day_of or {}

    def dated(_before, after):
        page = shown.get((after.date, after.value))
        return page is not None and page.dated

    def known(before, after):
        # a restated figure keeps what the pages show of it: same price, shown from a later day
        pages = [page.through for (d, v), page in shown.items() if v == before.value and before.date <= d < after.date]
        seen = [day_of[x] for x in before.srcs if x in day_of and before.date <= day_of[x] < after.date]
        if pages or len(independent_sources(after.srcs)) >= 2:
            return max(pages + seen + [before.date])
        return None

    out, restated, unknown = restated_moves(steps, dated, known)
    return out, [(rule, xs) for rule, xs in ((UNEVIDENCED, restated), (UNDATED, unknown)) if xs]


def is_premium(hi, lo):
    """hi is lo x 1.1 (the regional premium), exactly or rounded to hi's own decimals."""
    hi, lo = Decimal(hi), Decimal(lo)
    want = lo * REGION_PREMIUM
    if hi == want:
        return True
    exp = hi.as_tuple().exponent
    return exp < 0 and want.quantize(Decimal(1).scaleb(exp)) == hi and abs(hi - want) < abs(hi - lo) / 10


def region_rows(steps):
    """On a channel with regional rows, a figure exactly 1.1x its neighbour's is the data-zone or
    regional row's price of the same listing, the lower one the global row's: the series keeps
    the global row for its whole life, the premium figure is restated to it (the move to or from
    it is no event). Returns (steps, the premium figures removed)."""
    steps = [Step(s.date, s.value, s.kind, s.exact, s.lo, s.genai, s.srcs) for s in steps]
    removed = []
    changed = True
    while changed:
        changed = False
        for i in range(1, len(steps)):
            a, b = steps[i - 1], steps[i]
            if None in (a.value, b.value) or a.value == b.value:
                continue
            if is_premium(b.value, a.value):
                removed.append(Step(b.date, b.value, srcs=b.srcs))
                b.value = a.value
            elif is_premium(a.value, b.value):
                removed.append(Step(a.date, a.value, srcs=a.srcs))
                a.value = b.value
            else:
                continue
            steps = finalize(steps)
            changed = True
            break
    return steps, removed


def alias_moves(steps):
    """A `-latest` id is a pointer to the maker's current model of a line: a move of its series is
    the pointer moving to another model (Mistral's mistral-large-latest from Large 2 at 2 / 6 to
    Large 3 at 0.5 / 1.5), not a price change of a model. The sources give no map of where the
    pointer went when, so every move is taken as one: the series starts at its last move, and what
    came before (another model's figures, under this id) is left out, not restated, so the alias
    claims no price on a day it pointed elsewhere and makes no event.
    Returns (steps, the source figures no longer in them as given)."""
    out = []
    for st in steps:
        if out and None not in (out[-1].value, st.value) and st.value != out[-1].value:
            out = []
        out.append(st)
    out = finalize(out)
    kept = {(st.date, st.value) for st in out}
    return out, [st for st in steps if (st.date, st.value) not in kept]


def screen(steps, channel, alias=False, dated=frozenset(), one_region=False):
    """All value rules in order: regional rows on a channel with regions (not on a series of one
    region's rows, `one_region`: no other region's figure is mixed into it), routing changes on an
    aggregator, alias moves on a `-latest` series, then undone moves (a glitch that came back is
    not a big move), then big moves. Returns (steps, [(rule, removed steps)])."""
    removed = []
    if channel in REGIONAL_CHANNELS and not one_region:
        steps, regional = region_rows(steps)
        removed += [(REGION_ROW, regional)] if regional else []
    if channel in AGGREGATORS:
        steps, routed = routing_changes(steps, dated)
        removed += [(ROUTING, routed)] if routed else []
    if alias:
        steps, moved = alias_moves(steps)
        removed += [(ALIAS_MOVED, moved)] if moved else []
    steps, undone = undone_moves(steps, dated)
    removed += [(UNDONE, undone)] if undone else []
    steps, big = big_moves(steps)
    return steps, removed + big
