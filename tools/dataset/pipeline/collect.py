"""Stage 3, the series: every price series of the snapshot as steps, from litellm's histories
(history.py), genai-prices' dated figures (merged: its exact start dates win, series.merge_genai)
and models.dev's listings (only on a channel no other source prices): the series of prices[] per
(model, channel, component, tier) and the conditional ones (context tiers, cache writes, each
region's rows, peak hours) of conditional_prices[]. The rules are docs/snapshot-format.md 6.2, 6.4
and 6.5. Standard library only.
"""
import re
from collections import defaultdict

from . import take
from .history import LitellmHistory, series_key
from .loaders import float_mtok_text, mtok_text
from .resolve import CHANNELS
from .series import Step, merge_genai
from .sources import genai_prices
from .sources.genai_prices import GENAI_COMPONENTS, genai_peak_figures, time_of_day_priced, time_of_day_since
from .sources.litellm import CHANNEL_TIERS, COMPONENTS, TIERS, peak_listed, peak_window
from .sources.modelsdev import MODELSDEV_COMPONENTS


def genai_as_of(g, as_of):
    """genai-prices' figures `g` ((day or None, value), as genai_series gives them) as they were
    known on `as_of` (the fixtures' earlier build)."""
    out = []
    for d, v in g:
        if d is None:
            # an undated genai figure is a 2026 observation: usable before as_of only as the
            # price that preceded a dated step
            if any(dd and not dd.startswith("verified:") for dd, _ in g):
                out.append((d, v))
        elif not d.startswith("verified:") and d <= as_of:
            out.append((d, v))
    return out


class Collected:
    """`series`: (entity, channel, component, tier) -> {steps, obs, genai[, md]}; `cond_series`:
    the same keyed with (above_input_tokens, cache_ttl, region, time_window) after it; `gen_of`,
    `md_priced`: the genai-prices models and models.dev ids behind them; the models billed by
    time of day (`peak_since`, `peak_window`, `peak_genai`, `off_peak_genai`)."""

    def __init__(self, inputs, entities, rows, tally):
        take(self, inputs, "as_of", "genai_date", "genai_version")
        take(self, entities, "entity_of", "gen_rows", "gen_batch", "md_rows")
        self.rows = rows
        take(self, rows, "lit_best", "region_best")
        self.tally = tally
        gseries = self.genai_series()
        self.set_peak_windows()
        self.history = LitellmHistory(inputs, rows, self, tally)
        self.collect(gseries)

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
                    self.tally.left_out["genai-prices: priced by time of day, litellm's off-peak and peak rates kept"] += 1
                    since = time_of_day_since(m)
                    self.peak_since[ec] = min(since, self.peak_since.get(ec) or since) if since else None
                    self.peak_genai[ec] = genai_peak_figures(m)
                    self.off_peak_genai[ec] = {COMPONENTS[comp]: [(d, mtok_text(pr.get(f))) for d, pr in genai_prices.prices_of(m) if d]
                                               for comp, f in GENAI_COMPONENTS.items()}
                else:
                    self.tally.left_out["genai-prices: priced by time of day, litellm's list price kept"] += 1
                continue
            std = genai_prices.prices_of(m)
            # a row whose own note says its figure is not the maker's USD price (OpenRouter's, or
            # a yuan price converted) is collected like any other: its ids, name and first listing
            # are true of the row; Snapshot.kept screens its series (genai_prices.not_the_makers_price)
            self.gen_of[ec].append((p, m, ref))
            tier0 = "batch" if (p["id"], m["id"]) in self.gen_batch else "standard"
            if tier0 not in CHANNEL_TIERS.get(ref.channel, TIERS):
                self.tally.left_out["genai-prices: tier not sold on the channel"] += 1
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
                    self.tally.left_out["genai-prices: tier not sold on the channel"] += 1
                    continue
                con = var.get("constraint") or {}
                d = con.get("start_date") if con.get("__t") == "StartDateConstraint" else None
                for comp, f in GENAI_COMPONENTS.items():
                    v = mtok_text(var["prices"].get(f))
                    if v and v != "0":
                        series[ec].setdefault((comp, tier), []).append(("verified:" + d if d else None, v))
        self.tally.linked["genai-prices"] = len(self.gen_rows)
        return series

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

    def collect(self, gseries):
        """The price series of prices[] (`series`) and conditional_prices[] (`cond_series`) from
        litellm's histories, genai-prices' and models.dev's figures."""
        ecs = sorted(set(self.lit_best) | set(gseries))
        self.series = {}        # (ent, ch, comp, tier) -> dict
        for ec in ecs:
            for comp, base in COMPONENTS.items():
                for tier, sfx in TIERS.items():
                    if tier not in CHANNEL_TIERS.get(ec[1], TIERS):
                        continue
                    steps, obs = self.history.litellm_history(ec, base + sfx) if ec in self.lit_best else ([], None)
                    g = gseries.get(ec, {}).get((comp, tier))
                    if g and self.as_of:
                        g = genai_as_of(g, self.as_of)
                    if not steps and not g:
                        continue
                    steps = merge_genai(steps, g) if g else steps
                    if not steps:
                        continue
                    self.series[(ec[0], ec[1], comp, tier)] = {"steps": steps, "obs": obs, "genai": g}
        # conditional rates (context tiers, cache writes, each region's rows): litellm's alone,
        # built like its standard rates
        self.cond_series = {}   # (ent, ch, comp, tier, above_input_tokens, cache_ttl, region, time_window) -> dict
        for ec in sorted(self.lit_best) + sorted(self.region_best):
            for field in self.rows.conditional_fields(ec):
                steps, obs = self.history.litellm_history(ec, field)
                if steps:
                    self.cond_series[series_key(ec, field)] = {"steps": steps, "obs": obs, "genai": None}
        # peak-hour rates: litellm's list figures of a model billed by time of day, in its peak window
        for ec, window in sorted(self.peak_window.items()):
            for comp, field in COMPONENTS.items() if window else ():
                steps, obs = self.history.peak_history(ec, field)
                peak = self.peak_genai.get(ec, {}).get(comp)
                if steps:
                    self.cond_series[series_key(ec, field, window)] = {
                        "steps": steps, "obs": obs, "genai": [(None, peak)] if peak else None}
        # models.dev: one dated observation per listing, used only on a channel no other source prices
        self.md_priced = {}     # (ent, ch) -> the models.dev id priced there
        for ec, comps in sorted(self.modelsdev_series().items()):
            if ec in self.lit_best or ec in gseries:
                continue
            self.tally.linked["models-dev (listings priced)"] += 1
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
                self.tally.left_out["models-dev: openrouter_variant_id"] += 1
                continue
            outs = (m.get("modalities") or {}).get("output") or []
            if ("text" not in outs and "embedding" not in mid) or re.search(r"realtime|asr|transcri|tts", mid.lower()):
                self.tally.left_out["models-dev: not_token_priced (speech, realtime, image output)"] += 1
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
