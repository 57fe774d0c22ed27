"""The series: steps (series.py), litellm's rows and histories (history.py) of standard,
conditional, peak-hour and regional rates, a conditional rate within its standard series
(finish.py).

Each test on a real excerpt of the sources (the source and release are named in it).
Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import unittest
from collections import defaultdict
from decimal import Decimal
from types import SimpleNamespace

from pipeline import render, screen
from pipeline.entities import Entities
from pipeline.finish import Finisher
from pipeline.history import LitellmHistory, LitellmRows, series_key
from pipeline.resolve import litellm_ref
from pipeline.series import Step, finalize, value_at
from pipeline.sources import genai_prices, litellm, llmledger
from pipeline.tally import Tally

from .helpers import NO_PEAKS, chosen_rows, litellm_inputs, prices, steps


class Series(unittest.TestCase):
    def test_finalize_merges_equal_prices_and_keeps_their_sources(self):
        s = [Step("2025-01-01", "1", srcs={"litellm 1.59.12"}), Step("2025-02-01", "1", srcs={"llmledger 0.2.0"}),
             Step("2025-03-01", None)]
        out = finalize(s)
        self.assertEqual(prices(out), [("2025-01-01", "1"), ("2025-03-01", None)])
        self.assertEqual(out[0].srcs, {"litellm 1.59.12", "llmledger 0.2.0"})
        self.assertEqual(value_at(out, "2025-02-15"), "1")


class ConditionalRates(unittest.TestCase):
    """Conditional rates (conditional_prices[]): the price fields of litellm 1.109.1's rows of
    `gemini-2.5-pro`, `claude-sonnet-4-5` and `gpt-5.6`, and the series they build."""

    # litellm 1.109.1 `claude-sonnet-4-5`: every price field of the row
    SONNET_FIELDS = ["cache_creation_input_token_cost", "cache_creation_input_token_cost_above_1hr",
                     "cache_read_input_token_cost", "input_cost_per_token", "cache_creation_input_token_cost_batches",
                     "cache_read_input_token_cost_batches", "input_cost_per_token_batches", "output_cost_per_token",
                     "output_cost_per_token_batches"]

    def test_the_field_parser_reads_component_duration_threshold_and_tier(self):
        F = litellm.PriceField
        self.assertEqual(litellm.parse_field("input_cost_per_token_above_200k_tokens"),
                         F("input", "standard", 200000, None))
        self.assertEqual(litellm.parse_field("cache_read_input_token_cost_above_200k_tokens_priority"),
                         F("cached_input", "priority", 200000, None))
        self.assertEqual(litellm.parse_field("cache_creation_input_token_cost_above_1hr"),
                         F("cache_write", "standard", None, "1hr"))
        self.assertEqual(litellm.parse_field("cache_creation_input_token_cost_above_12hr_above_272k_tokens_flex"),
                         F("cache_write", "flex", 272000, "12hr"))
        self.assertEqual(litellm.parse_field("output_cost_per_token_batches"), F("output", "batch", None, None))
        self.assertFalse(litellm.parse_field("output_cost_per_token_batches").conditional)
        self.assertTrue(litellm.parse_field("cache_creation_input_token_cost").conditional)
        # no token-price series: another tier, another unit, a duration on a component that has none
        for name in ("input_cost_per_token_above_272k_tokens_ultrafast", "input_cost_per_character_above_128k_tokens",
                     "cache_read_input_token_cost_above_1hr", "search_context_cost_per_query"):
            self.assertIsNone(litellm.parse_field(name), name)

    def test_a_cache_write_names_its_duration_only_where_a_page_states_it(self):
        # Anthropic's pricing page: 5-minute writes at 1.25x input, 1-hour writes at 2x
        write, hour = (litellm.parse_field(f) for f in ("cache_creation_input_token_cost",
                                                      "cache_creation_input_token_cost_above_1hr"))
        self.assertEqual(litellm.cache_ttl("anthropic", write), "5m")
        self.assertEqual(litellm.cache_ttl("anthropic", hour), "1h")
        self.assertIsNone(litellm.cache_ttl("openai", write))          # gpt-5.6: no duration stated
        self.assertIsNone(litellm.cache_ttl("anthropic", litellm.parse_field("input_cost_per_token_above_200k_tokens")))
        with self.assertRaises(LookupError):
            litellm.cache_ttl("openai", litellm.parse_field("cache_creation_input_token_cost_above_12hr"))
        with self.assertRaises(LookupError):    # gemini-2.5-pro's figure is its cached-input rate
            litellm.cache_ttl("google", litellm.parse_field("cache_creation_input_token_cost_above_200k_tokens"))

    def test_the_fields_of_a_row_are_distinct_series(self):
        ec = (("anthropic", "claude-sonnet-4-5"), "official")
        keys = [series_key(ec, f) for f in self.SONNET_FIELDS]
        self.assertEqual(len(set(keys)), len(keys))
        self.assertIn((ec[0], "official", "cache_write", "batch", None, "5m", None, None), keys)
        self.assertIn((ec[0], "official", "input", "standard"), keys)

    def test_a_conditional_series_is_built_from_two_releases_by_the_standard_code(self):
        # litellm 1.100.5 and 1.104.5 `gemini-2.5-pro` (Vertex); llmledger 0.2.0 dates the
        # priority tier's arrival 2026-09-14
        row = {"litellm_provider": "vertex_ai-language-models", "mode": "chat", "input_cost_per_token": 1.25e-06,
               "input_cost_per_token_above_200k_tokens": 2.5e-06}
        later = dict(row, input_cost_per_token_priority=2.25e-06,
                     input_cost_per_token_above_200k_tokens_priority=4.5e-06)
        ec = (("google", "gemini-2.5-pro"), "vertex")
        releases = [("1.100.5", "2026-08-31", {"gemini-2.5-pro": row}),
                    ("1.104.5", "2026-09-26", {"gemini-2.5-pro": later})]
        ledger = llmledger.Ledger({"built": "2026-10-21T00:00:00+00:00", "models": [], "events": {"gemini-2.5-pro": [
            ["2025-06-20", "added", "", None, None, "", 675],
            ["2026-09-14", "price", "input_cost_per_token_above_200k_tokens_priority", None, 4.5e-06, "", 326]]}})
        tally = Tally()
        rows = chosen_rows(releases, {ec: {i: ((0,), "gemini-2.5-pro", e, None) for i, e in enumerate((row, later))}},
                           tally)
        h = LitellmHistory(litellm_inputs(releases, ledger), rows, NO_PEAKS, tally)
        self.assertEqual(rows.conditional_fields(ec), ["input_cost_per_token_above_200k_tokens",
                                                       "input_cost_per_token_above_200k_tokens_priority"])
        got, _obs = h.litellm_history(ec, "input_cost_per_token_above_200k_tokens_priority")
        self.assertEqual(prices(got), [("2026-09-14", "4.5")])
        got, _obs = h.litellm_history(ec, "input_cost_per_token_above_200k_tokens")
        self.assertEqual(prices(got), [("2025-06-20", "2.5")])

    def within(self, std, cond, key):
        """(the Tally, the steps) of Finisher.within_standard with the standard series `std`."""
        f = Finisher.__new__(Finisher)
        f.tally = Tally()
        f.series = {key[:2] + ("input", key[3]): {"steps": std}} if std else {}
        return f.tally, f.within_standard(key, cond)

    def test_a_conditional_series_ends_with_its_standard_series(self):
        # claude-sonnet-4-5 on Anthropic's API: input 3 from 2025-09-29, shutdown 2026-11-30; its
        # 5-minute cache write 3.75 is priced against the input series
        ent = ("anthropic", "claude-sonnet-4-5")
        key = (ent, "official", "cache_write", "standard", None, "5m")
        b, got = self.within(steps(("2025-09-29", "3"), ("2026-11-30", None)),
                             steps(("2025-09-29", "3.75"), ("2026-12-01", "3.75")), key)
        self.assertEqual(prices(got), [("2025-09-29", "3.75"), ("2026-11-30", None)])
        self.assertEqual([(rule, [(d, v) for d, v, _s in xs]) for _k, rule, xs, _d in b.screened],
                         [(screen.OUTSIDE_STANDARD, [("2026-12-01", "3.75")])])
        b, got = self.within(None, steps(("2025-09-29", "3.75")), key)
        self.assertEqual(got, [])
        self.assertEqual(b.screened[0][3], "no standard series")

    def test_a_conditional_series_starts_with_its_standard_series(self):
        # qwen-plus on OpenRouter: the input series starts 2026-10-19 (after the screens), litellm
        # shows the 256k tier's 0.78 from 2026-09-26
        key = (("alibaba", "qwen-plus"), "openrouter", "input", "standard", 256000, None)
        b, got = self.within(steps(("2026-10-19", "0.26")), steps(("2026-09-26", "0.78")), key)
        self.assertEqual(prices(got), [("2026-10-19", "0.78")])
        self.assertEqual(b.screened[0][1], screen.OUTSIDE_STANDARD)

    def test_conditional_rows_sort_by_threshold_then_duration_nulls_first(self):
        def row(above, ttl, tier="standard"):
            return {"model": "anthropic:claude-sonnet-4-5", "channel": "official", "component": "cache_write",
                    "tier": tier, "condition": render.condition(above, ttl)}
        rows = [row(200000, "5m"), row(None, "5m"), row(200000, "1h"), row(None, "1h"), row(None, None, "batch")]
        got = [(r["tier"], r["condition"]["above_input_tokens"], r["condition"]["cache_ttl"])
               for r in sorted(rows, key=render.conditional_order)]
        self.assertEqual(got, [("batch", None, None), ("standard", None, "1h"), ("standard", None, "5m"),
                               ("standard", 200000, "1h"), ("standard", 200000, "5m")])
        self.assertLess(render.condition_order(render.condition(None, None)),
                        render.condition_order(render.condition(None, "1h")))
        counts = render.conditional_counts(rows)
        self.assertEqual((counts["rows"], counts["models_by_threshold"], counts["models_by_cache_ttl"]),
                         (5, {"200000": 1}, {"1h": 1, "5m": 1, "unknown": 1}))

    def test_region_and_time_window_sort_after_the_other_keys_nulls_first(self):
        peak = ("peak", (((1, 2, 3, 4, 5), "01:00", "04:00"), ((1, 2, 3, 4, 5), "06:00", "10:00")))

        def row(above, region, window=None):
            return {"model": "anthropic:claude-sonnet-4-5", "channel": "aws_bedrock", "component": "input",
                    "tier": "standard", "condition": render.condition(above, None, region, window)}
        rows = [row(200000, "eu"), row(None, "us"), row(200000, None), row(None, "eu"), row(None, None, peak)]
        got = [(r["condition"]["above_input_tokens"], r["condition"]["region"], bool(r["condition"]["time_window"]))
               for r in sorted(rows, key=render.conditional_order)]
        self.assertEqual(got, [(None, None, True), (None, "eu", False), (None, "us", False),
                               (200000, None, False), (200000, "eu", False)])
        # a condition written before region and time_window existed reads them as null
        self.assertEqual(render.condition_order({"above_input_tokens": None, "cache_ttl": "1h"}),
                         render.condition_order(render.condition(None, "1h")))
        self.assertEqual(rows[-1]["condition"]["time_window"],
                         {"name": "peak", "spans": [{"weekdays": [1, 2, 3, 4, 5], "from": "01:00", "to": "04:00"},
                                                    {"weekdays": [1, 2, 3, 4, 5], "from": "06:00", "to": "10:00"}]})
        counts = render.conditional_counts(rows)
        self.assertEqual((counts["rows_by_region"], counts["models_by_region"]), ({"eu": 2, "us": 1}, {"eu": 1, "us": 1}))
        self.assertEqual(counts["rows_by_time_window"], {"peak 1-5 01:00-04:00, 1-5 06:00-10:00": 1})


class PeakRates(unittest.TestCase):
    """DeepSeek V4 Pro on DeepSeek's API: genai-prices 0.2.3's model and litellm's
    `deepseek/deepseek-v4-pro` row (cached input) in the pinned releases, with llmledger's events."""

    GENAI = {"id": "deepseek-v4-pro", "prices": [
        {"prices": {"input_mtok": "0.435", "cache_read_mtok": "0.003625", "output_mtok": "0.87"}},
        {"constraint": {"__t": "StartDateConstraint", "start_date": "2026-08-17"},
         "prices": {"input_mtok": "0.66", "cache_read_mtok": "0.022", "output_mtok": "1.98"}},
        {"constraint": {"__t": "TimeOfDateConstraint", "start_time": "01:00:00Z", "end_time": "04:00:00Z"},
         "prices": {"input_mtok": "1.32", "cache_read_mtok": "0.044", "output_mtok": "3.96"}}]}
    # genai-prices 0.2.3 `deepseek-flash` (V4.1 Flash, released 2026-09-10): time-of-day from its first price
    GENAI_FLASH = {"id": "deepseek-flash", "prices": [
        {"prices": {"input_mtok": "0.15", "cache_read_mtok": "0.003", "output_mtok": "0.6"}},
        {"constraint": {"__t": "TimeOfDateConstraint", "start_time": "01:00:00Z", "end_time": "04:00:00Z"},
         "prices": {"input_mtok": "0.3", "cache_read_mtok": "0.006", "output_mtok": "1.2"}}]}
    ROW = {"litellm_provider": "deepseek", "mode": "chat", "input_cost_per_token": 4.35e-07}
    RELEASES = [("1.91.5", "2026-06-25", 3.625e-09, False), ("1.95.1", "2026-07-29", 3.625e-09, False),
                ("1.100.5", "2026-08-31", 4.4e-08, False), ("1.104.5", "2026-09-26", 4.4e-08, True)]

    def builder(self):
        """(the LitellmHistory of these releases, the series' (entity, channel))."""
        ec = (("deepseek", "deepseek-v4-pro"), "official")
        releases, best = [], {}
        for i, (v, d, cached, off_peak) in enumerate(self.RELEASES):
            e = dict(self.ROW, cache_read_input_token_cost=cached)
            if off_peak:
                e["off_peak_pricing"] = {"cache_read_input_token_cost": 2.2e-08}
            releases.append((v, d, {"deepseek/deepseek-v4-pro": e}))
            best[i] = ((0,), "deepseek/deepseek-v4-pro", e, None)
        ledger = llmledger.Ledger({"built": "2026-10-21T00:00:00+00:00", "models": [], "events": {
            "deepseek/deepseek-v4-pro": [
                ["2026-06-21", "added", "", None, None, "", 230],
                ["2026-08-21", "price", "cache_read_input_token_cost", 3.625e-09, 4.4e-08, "likely", 4]]}})
        peaks = SimpleNamespace(
            peak_since={ec: genai_prices.time_of_day_since(self.GENAI)},
            peak_window={ec: ("peak", (((1, 2, 3, 4, 5), "01:00", "04:00"), ((1, 2, 3, 4, 5), "06:00", "10:00")))},
            # genai-prices 0.2.3's dated off-peak cached input: on the day the flat rate ended
            off_peak_genai={ec: {"cache_read_input_token_cost": [("2026-08-17", "0.022")]}})
        tally = Tally()
        return LitellmHistory(litellm_inputs(releases, ledger, "0.2.3"), chosen_rows(releases, {ec: best}, tally),
                              peaks, tally), ec

    def test_time_of_day_billing_starts_at_genai_prices_first_dated_price(self):
        self.assertTrue(genai_prices.time_of_day_priced(self.GENAI))
        self.assertEqual(genai_prices.time_of_day_since(self.GENAI), "2026-08-17")
        self.assertIsNone(genai_prices.time_of_day_since(self.GENAI_FLASH))

    def test_a_row_with_an_off_peak_rate_lists_its_peak_rate(self):
        self.assertTrue(litellm.peak_listed({"input_cost_per_token": 1.32e-06, "off_peak_pricing": {}}))
        self.assertFalse(litellm.peak_listed(self.ROW))

    def test_from_the_day_time_of_day_billing_began_the_standard_rate_is_off_peak(self):
        # without the rule: 0.044 from 2026-06-21 (the ledger's likely-correction flag carries the
        # peak figure back); DeepSeek's page lists 0.003625 until peak hours began. From then the
        # off-peak figure 0.022, first shown by litellm 1.104.5: the days between are unknown
        b, ec = self.builder()
        got, obs = b.off_peak_history(ec, "cache_read_input_token_cost")
        self.assertEqual(prices(got), [("2026-06-21", "0.003625"), ("2026-08-17", None), ("2026-09-26", "0.022")])
        self.assertEqual([v for _d, _k, v in obs], ["0.003625", "0.003625", None, "0.022"])
        self.assertEqual(b.tally.screened, [])

    def test_without_a_peak_window_no_off_peak_rate_is_standard(self):
        # litellm 1.104.5 `tencent/deepseek-v4-pro-0813` counts weekdays in Beijing time: no window
        b, ec = self.builder()
        b.peak_window[ec] = None
        got, _obs = b.off_peak_history(ec, "cache_read_input_token_cost")
        self.assertEqual(prices(got), [("2026-06-21", "0.003625"), ("2026-08-17", None)])
        self.assertEqual([(rule, [(d, v) for d, v, _s in xs]) for _k, rule, xs, _d in b.tally.screened],
                         [(screen.PEAK_RATE, [("2026-08-31", "0.044"), ("2026-09-26", "0.044")])])

    def test_a_genai_prices_date_after_that_day_dates_the_off_peak_figure(self):
        # genai-prices 0.2.3 deepseek-v4-flash: off-peak 0.003 (V4.1 Flash's) from 2026-09-10, and
        # 0.007 from 2026-08-17 that no litellm release shows; here litellm's off-peak figure is
        # V4.1 Flash's 0.003 from 1.104.5
        b, ec = self.builder()
        for _v, _d, rows in b.releases[3:]:
            rows["deepseek/deepseek-v4-pro"]["off_peak_pricing"] = {"cache_read_input_token_cost": 3e-09}
        b.off_peak_genai[ec]["cache_read_input_token_cost"] = [("2026-08-17", "0.007"), ("2026-09-10", "0.003")]
        got, _obs = b.off_peak_history(ec, "cache_read_input_token_cost")
        self.assertEqual(prices(got), [("2026-06-21", "0.003625"), ("2026-08-17", None), ("2026-09-10", "0.003")])
        self.assertTrue(got[-1].genai)

    def test_the_peak_series_is_the_list_figure_from_that_day(self):
        b, ec = self.builder()
        got, _obs = b.peak_history(ec, "cache_read_input_token_cost")
        self.assertEqual(prices(got), [("2026-08-31", "0.044")])
        self.assertEqual(sorted(got[0].srcs), ["litellm 1.100.5"])
        b.peak_since[ec] = None
        got, _obs = b.peak_history(ec, "cache_read_input_token_cost")
        self.assertEqual(prices(got), [("2026-06-25", "0.003625"), ("2026-08-31", "0.044")])

    def test_the_peak_window_is_the_complement_of_litellms_off_peak_windows(self):
        # litellm 1.104.5 `deepseek/deepseek-v4-pro` off_peak_pricing.windows
        off_peak = {"cache_read_input_token_cost": 2.2e-08, "input_cost_per_token": 6.6e-07,
                    "output_cost_per_token": 1.98e-06,
                    "windows": [{"hours_utc": ["00:00-01:00", "04:00-06:00", "10:00-00:00"], "weekdays": [1, 2, 3, 4, 5]},
                                {"hours_utc": "00:00-00:00", "weekdays": [6, 7]}]}
        self.assertEqual(litellm.peak_window(off_peak),
                         ("peak", (((1, 2, 3, 4, 5), "01:00", "04:00"), ((1, 2, 3, 4, 5), "06:00", "10:00"))))
        self.assertEqual(litellm.off_peak_value({"off_peak_pricing": off_peak}, "input_cost_per_token"), "0.66")
        # litellm 1.104.5 `tencent/deepseek-v4-pro-0813`: weekdays counted in Beijing time
        self.assertIsNone(litellm.peak_window(dict(off_peak, weekday_timezone="Asia/Shanghai")))
        # litellm 1.104.5 `openrouter/deepseek/deepseek-v4.1-flash`: weekdays by name
        self.assertIsNone(litellm.peak_window({"windows": [{"weekdays": ["saturday", "sunday"], "hours_utc": "00:00-00:00"}]}))
        # genai-prices 0.2.3: the peak figure of both windows (its data holds Decimals)
        peak = {"input_mtok": Decimal("1.32"), "cache_read_mtok": Decimal("0.044"), "output_mtok": Decimal("3.96")}
        windows = [{"constraint": {"__t": "TimeOfDateConstraint", "start_time": t}, "prices": peak}
                   for t in ("01:00:00Z", "06:00:00Z")]
        self.assertEqual(genai_prices.genai_peak_figures({"prices": self.GENAI["prices"][:2] + windows}),
                         {"input": "1.32", "output": "3.96", "cached_input": "0.044"})

    def test_a_peak_series_key_carries_its_window(self):
        b, ec = self.builder()
        window = ("peak", (((1, 2, 3, 4, 5), "01:00", "04:00"),))
        self.assertEqual(series_key(ec, "input_cost_per_token", window),
                         (ec[0], "official", "input", "standard", None, None, None, window))
        self.assertEqual(series_key(ec, "input_cost_per_token"), (ec[0], "official", "input", "standard"))


class RegionalRows(unittest.TestCase):
    """litellm 1.109.1 rows of Claude Sonnet 4.5 on Bedrock (the global row, its `eu.` and
    `bedrock/us-gov-west-1/` rows) and of GPT-4o (2024-11-20) on Azure (`azure/` and `azure/eu/`)."""

    GLOBAL = ("anthropic.claude-sonnet-4-5-20250929-v1:0",
              {"input_cost_per_token": 3e-06, "input_cost_per_token_above_200k_tokens": 6e-06,
               "deprecation_date": "2027-04-08", "litellm_provider": "bedrock_converse", "mode": "chat",
               "output_cost_per_token": 1.5e-05})
    EU = ("eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
          {"input_cost_per_token": 3.3e-06, "input_cost_per_token_above_200k_tokens": 6.6e-06,
           "deprecation_date": "2027-04-08", "litellm_provider": "bedrock_converse", "mode": "chat",
           "output_cost_per_token": 1.65e-05})
    GOV = ("bedrock/us-gov-west-1/anthropic.claude-sonnet-4-5-20250929-v1:0",
           {"deprecation_date": "2027-04-08", "input_cost_per_token": 3.6e-06, "litellm_provider": "bedrock",
            "mode": "chat", "output_cost_per_token": 1.8e-05})
    AZURE = ("azure/gpt-4o-2024-11-20", {"deprecation_date": "2027-04-14", "input_cost_per_token": 2.5e-06,
                                         "litellm_provider": "azure", "mode": "chat", "output_cost_per_token": 1e-05})
    AZURE_EU = ("azure/eu/gpt-4o-2024-11-20", {"deprecation_date": "2027-04-14", "input_cost_per_token": 2.75e-06,
                                               "litellm_provider": "azure", "mode": "chat",
                                               "output_cost_per_token": 1.1e-05})

    def region(self, row):
        ref, _why = litellm_ref(row[0], row[1], None)
        return litellm.region_name(row[0], ref)

    def test_a_regional_row_names_its_region(self):
        self.assertEqual([self.region(r) for r in (self.GLOBAL, self.EU, self.GOV, self.AZURE, self.AZURE_EU)],
                         [None, "eu", "us-gov-west-1", None, "eu"])
        ref, _why = litellm_ref("global.anthropic.claude-sonnet-4-5-20250929-v1:0", self.GLOBAL[1], None)
        self.assertIsNone(litellm.region_name("global.anthropic.claude-sonnet-4-5-20250929-v1:0", ref))
        ref, _why = litellm_ref("bedrock_mantle/openai.gpt-5.6-sol", {"litellm_provider": "bedrock", "mode": "chat"}, None)
        self.assertIsNone(litellm.region_name("bedrock_mantle/openai.gpt-5.6-sol", ref))

    def builder(self, rows, releases=None, ledger=None):
        """(LitellmRows, LitellmHistory) of `rows` listed by litellm 1.109.1 (the rows are
        chosen by that release; `releases` and `ledger`: what the history reads, if other)."""
        chosen = [("1.109.1", "2026-11-12", dict(rows))]
        entities = Entities.__new__(Entities)
        entities.lit_ref = {(k, e["litellm_provider"]): litellm_ref(k, e, None)[0] for k, e in rows}
        entities.tags, entities.tagged, entities.present, entities.latest_own = defaultdict(set), {}, set(), set()
        tally = Tally()
        ledger = ledger or llmledger.Ledger({"built": "2026-10-21T00:00:00+00:00", "models": [], "events": {}})
        b = LitellmRows(litellm_inputs(chosen, ledger), entities, tally)
        if releases:
            b.releases = releases
        return b, LitellmHistory(litellm_inputs(releases or chosen, ledger), b, NO_PEAKS, tally)

    def test_the_global_row_sets_the_standard_series_and_each_region_its_own(self):
        b, h = self.builder([self.GLOBAL, self.EU, self.GOV])
        [ec] = b.lit_best
        ent = ec[0]
        self.assertEqual(ec, (("anthropic", "claude-sonnet-4-5-20250929"), "aws_bedrock"))
        self.assertEqual([r[1] for r in b.lit_best[ec].values()], [self.GLOBAL[0]])
        self.assertEqual(sorted(b.region_best), [ec + ("eu",), ec + ("us-gov-west-1",)])
        eu = ec + ("eu",)
        self.assertEqual(b.conditional_fields(eu), ["input_cost_per_token", "input_cost_per_token_above_200k_tokens",
                                                    "output_cost_per_token"])
        self.assertEqual(b.conditional_fields(ec), ["input_cost_per_token_above_200k_tokens"])
        self.assertEqual(series_key(eu, "input_cost_per_token_above_200k_tokens"),
                         (ent, "aws_bedrock", "input", "standard", 200000, None, "eu", None))
        got, _obs = h.history_from_litellm(eu, "input_cost_per_token_above_200k_tokens")
        self.assertEqual(prices(got), [("2026-11-12", "6.6")])
        got, _obs = h.history_from_litellm(ec, "input_cost_per_token")
        self.assertEqual(prices(got), [("2026-11-12", "3")])

    def test_an_azure_eu_row_is_a_regional_series(self):
        b, h = self.builder([self.AZURE, self.AZURE_EU])
        [ec] = b.lit_best
        eu = ec + ("eu",)
        self.assertEqual(list(b.region_best), [eu])
        got, _obs = h.history_from_litellm(eu, "output_cost_per_token")
        self.assertEqual(prices(got), [("2026-11-12", "11")])

    def test_a_region_whose_rows_set_the_standard_series_is_no_conditional_series(self):
        b, h = self.builder([self.EU])
        self.assertEqual(b.region_best, {})
        self.assertEqual(sum(b.tally.left_out.values()), 1)

    def test_a_row_that_leaves_the_source_goes_stale_and_does_not_end(self):
        # Fireworks' gpt-oss-120b: litellm 1.100.5 drops `fireworks_ai/accounts/fireworks/models/
        # gpt-oss-120b` (0.15 / 0.60) and llmledger records the removal on 2026-10-09, while
        # Fireworks' own pricing page still lists it at $0.15 / $0.60 (read 2026-11-24): no end
        row = ("fireworks_ai/accounts/fireworks/models/gpt-oss-120b",
               {"input_cost_per_token": 1.5e-07, "litellm_provider": "fireworks_ai", "mode": "chat",
                "output_cost_per_token": 6e-07})
        b, h = self.builder([row], [("1.95.1", "2026-09-26", dict([row])), ("1.100.5", "2026-10-20", {})],
                            llmledger.Ledger({"built": "2026-10-21T00:00:00+00:00", "models": [],
                                              "events": {row[0]: [["2026-10-09", "removed", None, None, None, None, "x"]]}}))
        [ec] = b.lit_best
        got, _obs = h.history_from_litellm(ec, "input_cost_per_token")
        self.assertEqual(prices(got), [("2026-09-26", "0.15")])

    def test_a_multiplier_row_derives_no_regional_series(self):
        # litellm 1.109.1 `gpt-5.4` (OpenAI) and `vertex_ai/claude-sonnet-4-5`: no page read says
        # which components the 1.1 uplift applies to, so neither field is a series of any region
        gpt = ("gpt-5.4", {"input_cost_per_token": 2.5e-06, "litellm_provider": "openai", "mode": "chat",
                           "output_cost_per_token": 1.5e-05, "regional_processing_uplift_multiplier_eu": 1.1,
                           "regional_processing_uplift_multiplier_us": 1.1})
        vertex = ("vertex_ai/claude-sonnet-4-5", {"input_cost_per_token": 3e-06, "mode": "chat",
                                                  "litellm_provider": "vertex_ai-anthropic_models",
                                                  "output_cost_per_token": 1.5e-05,
                                                  "regional_endpoint_uplift_multiplier": 1.1})
        for row in (gpt, vertex):
            b, h = self.builder([row])
            [ec] = b.lit_best
            self.assertEqual((b.region_best, b.conditional_fields(ec)), ({}, []), row[0])
            for field in row[1]:
                if "uplift" in field:
                    self.assertIsNone(litellm.parse_field(field), field)

    def test_a_regional_series_keeps_its_own_figure_through_the_screen(self):
        # a 1.1x move in a series of one region's rows is no region flip: the premium screen skips it
        got, removed = screen.screen(steps(("2025-11-22", "3.3"), ("2026-11-12", "3.63")), "aws_bedrock", one_region=True)
        self.assertEqual(removed, [])
        got, removed = screen.screen(steps(("2025-11-22", "3"), ("2026-11-12", "3.3")), "aws_bedrock")
        self.assertEqual([r for r, _s in removed], [screen.REGION_ROW])


if __name__ == "__main__":
    unittest.main()
