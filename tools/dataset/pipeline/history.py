"""Stage 3a, litellm's series: which of a model's litellm rows each release prices it by on a
channel (LitellmRows), and the history of each of their fields (LitellmHistory): every move
between two pinned releases dated by llmledger's event, else by the first release that carries it
(bisected.json), else approximate; a row's first price pulled back to the start of its listing;
llmledger's corrections and reverted moves screened. The limits' history is read the same way
(Limits).
The rules are docs/snapshot-format.md 6.2, 6.4 and 6.5. Standard library only.
"""
from collections import defaultdict

from . import limit_evidence, screen, take
from .resolve import CHANNELS
from .series import Step, finalize, merge_genai, value_at
from .sources import litellm
from .sources.litellm import (CHANNEL_TIERS, LIMIT_FIELDS, TIERS, cache_ttl, field_value, off_peak_value,
                              parse_field, region_name)
from .sources.llmledger import kind_of


def series_key(ec, field, window=None):
    """The series a litellm field of `ec` ((entity, channel), or (entity, channel, region) for
    a region's rows) builds: (entity, channel, component, tier) for a rate of prices[], with
    (above_input_tokens, cache_ttl, region, time_window) after it for a conditional rate
    (conditional_prices[]); `window`: the time window of a peak-hour series."""
    f = parse_field(field)
    key = (ec[0], ec[1], f.component, f.tier)
    region = ec[2] if len(ec) > 2 else None
    if f.conditional or region or window:
        return key + (f.above_input_tokens, cache_ttl(ec[0][0], f), region, window)
    return key


class LitellmRows:
    """`lit_best`: per (entity, channel) and release, the row (rank, key, entry, ref) that prices
    the model there; `region_best`: the same per other region; `keys_of`: every key of a model on
    a channel."""

    def __init__(self, inputs, entities, tally):
        take(self, inputs, "releases")
        take(self, entities, "lit_ref", "entity_of")
        self.tally = tally
        self.litellm_series()

    def litellm_series(self):
        """(entity, channel) -> per release best key; then per field observations."""
        best = defaultdict(dict)        # (ent, ch) -> {release index: (rank, key, entry, ref)}
        regional = defaultdict(dict)    # (ent, ch, region) -> the same, of that region's rows
        self.keys_of = defaultdict(set)  # (ent, ch) -> {(key, ref)}
        linked_rows = set()
        # a maker's secondary (China-region) API prices a model only where its main API has no row
        primary = {(self.entity_of(r.maker, r.mkey), r.channel) for r in self.lit_ref.values() if not r.fallback}
        for i, (_v, _d, data) in enumerate(self.releases):
            for key, e in data.items():
                ref = self.lit_ref.get((key, e.get("litellm_provider")))
                if not ref:
                    continue
                ent = self.entity_of(ref.maker, ref.mkey)
                ec = (ent, ref.channel)
                self.keys_of[ec].add((key, ref))
                linked_rows.add((key, e.get("litellm_provider")))
                if ref.fallback and ec in primary:
                    continue
                rank = litellm.key_rank(key, ref)
                region = region_name(key, ref)
                for per in (best[ec],) + ((regional[ec + (region,)],) if region else ()):
                    cur = per.get(i)
                    if cur is None or rank < cur[0]:
                        per[i] = (rank, key, e, ref)
        # one region class per series: a release that lists the model only in another region (an
        # EU or data-zone premium) is not a price move of the default region's listing
        for ec, per in best.items():
            cls = min(r[0][0] for r in per.values())
            best[ec] = {i: r for i, r in per.items() if r[0][0] == cls}
        # every other region's rows are its own conditional series (region_series), unless the
        # standard series reads them (a model the channel lists in no default region)
        self.region_best = {}
        for rc, per in sorted(regional.items()):
            if {r[1] for r in per.values()} & {r[1] for r in best[rc[:2]].values()}:
                self.tally.left_out["litellm: regional rows that set the standard series (no default-region row)"] += 1
                continue
            self.region_best[rc] = per
        self.tally.linked["litellm"] = len(linked_rows)
        self.lit_best = best

    def rows_of(self, ec):
        """Per release index, the litellm row (rank, key, entry, ref) a series of `ec` reads:
        (entity, channel) the default region's, (entity, channel, region) that region's."""
        return self.lit_best[ec] if len(ec) == 2 else self.region_best[ec]

    def observe(self, ec, field, read=field_value):
        """Per release (day, key, the figure `read` gives of the field: the listed one by default)."""
        out = []
        rows = self.rows_of(ec)
        for i, (_v, d, _data) in enumerate(self.releases):
            b = rows.get(i)
            if not b:
                out.append((d, None, None))
                continue
            out.append((d, b[1], read(b[2], field)))
        return out

    def conditional_fields(self, ec):
        """The conditional price fields (parse_field) that the rows of `ec` carry in any release,
        on the tiers the channel sells: of (entity, channel) its context tiers and cache writes,
        of (entity, channel, region) every price field (each is a rate of that region); a cache
        write no conditional row can carry (cache_ttl) is counted in left_out, once per series."""
        names = sorted({f for _r, _k, e, _ref in self.rows_of(ec).values() for f in e})
        out = []
        for name in names:
            f = parse_field(name)
            if not f or not (f.conditional or len(ec) > 2) or f.tier not in CHANNEL_TIERS.get(ec[1], TIERS):
                continue
            try:
                cache_ttl(ec[0][0], f)
            except LookupError as why:
                self.tally.left_out[f"litellm: {why}"] += 1
                continue
            out.append(name)
        return out

    def unit_restated(self, ec, lo_i, hi_i):
        """The row gains or loses a per-character price between the two releases: litellm restated
        the figure in another unit (Vertex's textembedding-gecko: per character, then per token)."""
        def per_char(i):
            b = self.rows_of(ec).get(i)
            return bool(b) and any(f.endswith("_cost_per_character") and b[2][f] for f in b[2])
        return per_char(lo_i) != per_char(hi_i)

    def newest_release_of(self, key):
        """Index of the newest pinned litellm release that lists `key`."""
        return max(i for i, rel in enumerate(self.releases) if key in rel[2])


class LitellmHistory:
    """The steps of one field of a model's litellm rows on a channel (litellm_history), with the
    releases that show each."""

    def __init__(self, inputs, rows, peaks, tally):
        """`peaks`: the models billed by time of day (Collected: peak_since, peak_window,
        off_peak_genai)."""
        take(self, inputs, "releases", "ledger", "ledger_src", "bisected", "genai_version")
        take(self, rows, "observe", "unit_restated")
        take(self, peaks, "peak_since", "peak_window", "off_peak_genai")
        self.tally = tally

    def litellm_history(self, ec, field):
        """(steps, obs) of a field of (entity, channel) `ec` from litellm's releases."""
        if ec in self.peak_since:
            return self.off_peak_history(ec, field)
        return self.history_from_litellm(ec, field)

    def history_from_litellm(self, ec, field, until=None):
        """The series of a field from litellm's releases (and llmledger's dated events between
        them); with `until`, only the releases dated before that day are read."""
        obs = [o if until is None or o[0] < until else (o[0], None, None) for o in self.observe(ec, field)]
        if not any(v for _d, _k, v in obs):
            return [], None
        L = self.ledger
        led = {self.ledger_src}
        steps = []
        prev_i, prev_d, prev_k, prev_v = None, None, None, None
        last_seen = None
        for i, (d, k, v) in enumerate(obs):
            if v is not None:
                last_seen = (d, v)
            if k is None:
                # the row left litellm: no end of offer (a source that stops listing a row is no
                # statement that the channel stopped selling it; the price goes stale instead)
                prev_i, prev_d = i, d
                continue
            if v == prev_v:
                prev_i, prev_d, prev_k = i, d, k
                continue
            if v is None:
                # the field vanished from a present row (e.g. a tier removed)
                evs = L.window({k, prev_k} - {None}, field, prev_d, d) if prev_d else []
                gone = [e for e in evs if e[2] is None]
                if gone and prev_v is not None:
                    steps.append(Step(gone[-1][0], None, kind_of(gone[-1][3]), srcs=led))
                    prev_v = None
                prev_i, prev_d, prev_k = i, d, k
                continue
            if prev_d is None:
                steps += self.prehistory(k, field, v, d)
            elif prev_v is None:
                evs = L.window({k}, field, prev_d, d)
                if evs and evs[-1][2] == v:
                    start = evs[0][0] if evs[0][1] is None else (L.added_in(k, prev_d, d) or evs[0][0])
                    steps.append(Step(start, evs[0][2] if evs[0][1] is None else evs[0][1], "obs", True, srcs=led))
                    for e in evs:
                        steps.append(Step(e[0], e[2], kind_of(e[3]), srcs=led))
                else:
                    added = L.added_in(k, prev_d, d)
                    steps.append(Step(added, v, "obs", True, srcs=led) if added
                                 else self.first_release_with(k, field, v, prev_i, i, move=False))
            else:
                evs = L.move({k, prev_k} - {None}, field, prev_d, d, prev_v, v, steps[-1].date if steps else None)
                if evs:
                    for e in evs:
                        steps.append(Step(e[0], e[2], kind_of(e[3]), srcs=led))
                elif self.unit_restated(ec, prev_i, i):
                    steps.append(Step(d, v, "correction", False, srcs={f"litellm {self.releases[i][0]}"}))
                else:
                    steps.append(self.first_release_with(k, field, v, prev_i, i))
            prev_i, prev_d, prev_k, prev_v = i, d, k, v
        for st in steps:
            if st.kind != "obs":
                rule = (screen.LEDGER_REVERTED if st.kind == "drop" else
                        screen.LEDGER_CORRECTION if self.ledger_src in st.srcs else screen.UNIT)
                self.tally.quarantine(series_key(ec, field), rule, [st])
        steps = finalize(steps)
        if last_seen and value_at(steps, last_seen[0]) != last_seen[1]:
            # dropped / corrected moves must not contradict the newest observation
            steps.append(Step(last_seen[0], last_seen[1], "obs", False))
            steps = finalize(steps)
        return steps, obs

    def off_peak_history(self, ec, field):
        """The series of a field of a model billed by time of day (`peak_since`: the day its
        litellm list figures became peak-hour rates, None: always): litellm's list figures up to
        that day, ending there with no price; from then the off-peak figure of the row's
        `off_peak_pricing` (the rate outside the peak windows, a standard rate; none where no
        peak window is known), from the first release that shows it: the days between are unknown, so the end of the flat rate and
        the off-peak rate make no move (no page dates one). From that day no ledger event is read
        (its correction flags would carry a peak figure back over the list price: DeepSeek V4
        Pro's cached input 0.003625 -> 0.044). The list figures from that day are the peak series
        (peak_history) of the standard rates; of any other field they are listed as left out.
        Returns (steps, obs)."""
        since = self.peak_since[ec]
        full = self.observe(ec, field)
        steps, obs = [], [(d, None, None) for d, _k, _v in full]
        if since is not None:
            steps, obs = self.history_from_litellm(ec, field, until=since)
            steps = [st for st in steps if st.date < since]
            if steps and steps[-1].value is not None:
                steps.append(Step(since, None, srcs={f"genai-prices {self.genai_version}"}))
        later = [o if since is None or o[0] >= since else (o[0], None, None)
                 for o in self.observe(ec, field, read=off_peak_value)]
        obs = [o if o[0] < (since or "") else lo for o, lo in zip(obs or later, later)]
        # without a peak window no row says when the off-peak rate does not apply: no standard
        # rate from that day
        off = self.release_steps(later) if self.peak_window.get(ec) else []
        # genai-prices' start date of an off-peak figure litellm shows dates it, where it falls
        # after the flat rate's end (V4 Flash's 0.15 from 2026-09-10); one on that day would make
        # a move of the flat rate (V4 Pro's 0.66 from 2026-08-17), one litellm does not show is
        # genai-prices' alone (V4 Flash's 0.22)
        dated = [(d, v) for d, v in self.off_peak_genai.get(ec, {}).get(field, ())
                 if d > (since or "") and v in {st.value for st in off}]
        steps = finalize(steps + (merge_genai(off, dated) if dated else off))
        f = parse_field(field)
        left = [Step(d, v, srcs={f"litellm {self.releases[i][0]}"}) for i, (d, _k, v) in enumerate(full)
                if v is not None and (since is None or d >= since)]
        if left and (self.peak_window.get(ec) is None or f.conditional or f.tier != "standard"):
            self.tally.quarantine(series_key(ec, field), screen.PEAK_RATE, left)
        return steps, obs

    def peak_history(self, ec, field):
        """The peak-hour series of a standard rate of a model billed by time of day: litellm's
        list figures from the day time-of-day billing began (`peak_since`), each from the first
        release that shows it; no ledger event is read (off_peak_history). Returns (steps, obs)."""
        since = self.peak_since[ec]
        obs = [o if since is None or o[0] >= since else (o[0], None, None) for o in self.observe(ec, field)]
        return self.release_steps(obs), obs

    def release_steps(self, obs):
        """The steps per-release observations (day, key, figure) show alone: each new figure from
        the first release that shows it (approximate: after the release before it); a release
        without a figure says nothing."""
        steps, prev, prev_d = [], None, None
        for i, (d, _k, v) in enumerate(obs):
            if v is not None and v != prev:
                steps.append(Step(d, v, "obs", False, prev_d, srcs={f"litellm {self.releases[i][0]}"}))
                prev = v
            prev_d = d
        return steps

    def first_release_with(self, key, field, value, lo_i, hi_i, move=True):
        """The step of a value that release hi_i shows and release lo_i does not, where no ledger
        event dates it: dated by the first litellm release that carries it (bisected over every
        release between the two pins by bisect_releases.py, pinned in bisected.json); without a
        pinned bisection, dated by release hi_i (approximate). Price moves are bisected; the start
        of a listing (`move` false) only keeps a bisection pinned for it."""
        lo_v, hi_v = self.releases[lo_i][0], self.releases[hi_i][0]
        hit = self.bisected.get((key, field, value, lo_v, hi_v))
        if hit:
            return Step(hit["released"], value, "obs", True, srcs={f"litellm {hit['first']}"})
        if move:
            self.tally.unbisected.append({"key": key, "field": field, "value": value, "after": lo_v, "until": hi_v})
        return Step(self.releases[hi_i][1], value, "obs", False, self.releases[lo_i][1])

    def prehistory(self, key, field, v0, d0):
        """Steps up to the first release for a row already present in it, from the ledger."""
        L = self.ledger
        evs = [e for e in L.field_events.get((key, field), ()) if e[0] <= d0]
        run = L.start_of(key, d0)
        if run:
            evs = [e for e in evs if e[0] >= run[1]]
        if evs and evs[-1][2] != v0:
            evs = []
        if run is None:
            return [Step(d0, v0, "obs", False, None)]
        led = {self.ledger_src}
        start_kind, start = run
        exact = start_kind == "added"
        if evs:
            first = evs[0]
            if first[1] is None:
                out = [Step(first[0], first[2], "obs", True, srcs=led)]
                evs = evs[1:]
            else:
                out = [Step(start, first[1], "obs", exact, None, srcs=led)]
        else:
            out = [Step(start, v0, "obs", exact, None, srcs=led if exact else ())]
        for e in evs:
            out.append(Step(e[0], e[2], kind_of(e[3]), srcs=led))
        return out


class Limits:
    """The limits' history of each model, read from litellm's rows as the prices are, dated by the
    providers' limit notices (limit_evidence.py) and screened."""

    def __init__(self, inputs, rows, history, tally):
        take(self, inputs, "releases", "step_sources", "limit_statements")
        take(self, rows, "lit_best", "observe")
        take(self, history, "first_release_with")
        self.tally = tally

    def limits_history(self, ent, model_id, series):
        """The context window / max output history of model `ent` (its id `model_id`; `series`: the
        finished price series) from its limits row (the first channel in channel order that litellm
        lists it on), dated like prices; None without such a row.

        The first entry holds the first known values from the start of that channel's series; each
        later entry is a change of a known value to another (dated by the first release carrying
        it) or a value becoming known. A release without the row, or a row without the field, says
        nothing: the last known value stands."""
        ch = next((c for c in CHANNELS if self.lit_best.get((ent, c))), None)
        starts = [s["steps"][0].date for k, s in series.items() if k[:2] == (ent, ch) and s["steps"]]
        if not ch or not starts:
            return None
        ec = (ent, ch)
        fields = {}
        for f in LIMIT_FIELDS:
            obs = self.observe(ec, f)
            steps, prev_i, prev_v = [], None, None
            for i, (_d, k, v) in enumerate(obs):
                if k is None or v is None:
                    continue
                if prev_i is None:
                    # the first known value is shown by the release that first carries it, which
                    # may predate the series start this entry is dated by
                    steps.append(Step(min(starts), v, srcs={f"litellm {self.releases[i][0]}"}))
                elif v != prev_v:
                    steps.append(self.first_release_with(k, f, v, prev_i, i))
                prev_i, prev_v = i, v
            for st, srcs in zip(steps, self.step_sources(steps, {"obs": obs})):
                st.srcs |= set(srcs)
            steps, restated = screen.restated_limits(steps)
            if restated:
                self.tally.quarantine((ent, ch, f, None), screen.LIMIT_RESTATED, restated)
            steps, undone = screen.undone_moves(steps)
            if undone:
                self.tally.quarantine((ent, ch, f, None), screen.UNDONE, undone)
            steps, dated, moved = limit_evidence.apply(steps, self.limit_statements.get((model_id, f), []))
            if moved:
                self.tally.quarantine((ent, ch, f, None), limit_evidence.REDATED, moved)
            steps, undated = screen.undated_limits(steps, dated)
            if undated:
                self.tally.quarantine((ent, ch, f, None), screen.LIMIT_UNDATED, undated)
            fields[f] = steps
        days = sorted({st.date for steps in fields.values() for st in steps if st.date >= min(starts)} | {min(starts)})
        out = []
        for day in days:
            row = {f: value_at(fields[f], day) for f in LIMIT_FIELDS}
            srcs = set().union(*(st.srcs for f in LIMIT_FIELDS for st in fields[f]
                                 if st.date == day or (day == days[0] and st.date <= day)))
            unknown = all(row[f] is None for f in LIMIT_FIELDS)
            if unknown or (out and all(out[-1][f] == row[f] for f in LIMIT_FIELDS)):
                continue                # unknown limits are no entry; an unchanged row is no change
            out.append({"from": day, **row, "sources": sorted(srcs)})
        for e in out:
            for f in LIMIT_FIELDS:
                e[f] = int(e[f]) if e[f] is not None else None
        return out
