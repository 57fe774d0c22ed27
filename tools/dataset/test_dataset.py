"""Unit tests of the dataset build's stages, each on a real excerpt of the sources.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'

No source files are needed: the excerpts are copied here from the pinned releases (the source and
release are named in each test); BundledConditionalRates reads the bundled data/snapshot.json.gz.
Standard library only.
"""
import gzip
import json
import unittest
from collections import defaultdict
from types import SimpleNamespace
from decimal import Decimal

from pipeline import REPO, events, evidence, limit_evidence, render, screen
from pipeline.entities import Entities
from pipeline.finish import Finisher
from pipeline.history import LitellmHistory, LitellmRows, series_key
from pipeline.tally import Tally
from pipeline.sources import genai_prices, litellm, llmledger
from pipeline.lifecycle import lifecycle
from pipeline.resolve import litellm_ref
from pipeline.series import Step, finalize, value_at


def steps(*pairs, srcs=None):
    return [Step(d, v, srcs=(srcs or {}).get(d, ())) for d, v in pairs]


def litellm_inputs(releases, ledger, genai_version=None):
    """What the litellm stages read of Inputs: the releases and llmledger (no pinned bisection)."""
    return SimpleNamespace(releases=releases, ledger=ledger, ledger_src="llmledger 0.2.0", bisected={},
                           genai_version=genai_version, step_sources=None, limit_statements={})


def chosen_rows(releases, lit_best, tally):
    """LitellmRows with the rows of each release already chosen (`lit_best`), no regional rows."""
    rows = LitellmRows.__new__(LitellmRows)
    rows.releases, rows.lit_best, rows.region_best, rows.tally = releases, lit_best, {}, tally
    return rows


NO_PEAKS = SimpleNamespace(peak_since={}, peak_window={}, off_peak_genai={})


def prices(xs):
    return [(s.date, s.value) for s in xs]


class RegionClass(unittest.TestCase):
    """litellm 1.109.1 keys of Claude Haiku 4.5 on Bedrock and of GPT-4o on Azure."""

    def cls(self, key, provider):
        ref, _why = litellm_ref(key, {"litellm_provider": provider, "mode": "chat"}, None)
        return litellm.region_class(key, ref)

    def test_plain_row_is_the_default_region(self):
        self.assertEqual(self.cls("anthropic.claude-haiku-4-5-20251001-v1:0", "bedrock_converse"), 0)

    def test_global_routes_price_as_the_default_region(self):
        self.assertEqual(self.cls("global.anthropic.claude-haiku-4-5-20251001-v1:0", "bedrock_converse"), 1)
        self.assertEqual(self.cls("azure/global-standard/gpt-4o-2024-08-06", "azure"), 1)

    def test_us_data_zone_and_cross_region_rank_after(self):
        self.assertEqual(self.cls("us.anthropic.claude-haiku-4-5-20251001-v1:0", "bedrock_converse"), 2)
        self.assertEqual(self.cls("azure/us/gpt-4o-2024-08-06", "azure"), 2)

    def test_eu_rows_are_regional_premiums(self):
        self.assertEqual(self.cls("eu.anthropic.claude-haiku-4-5-20251001-v1:0", "bedrock_converse"), 3)
        self.assertEqual(self.cls("azure/eu/gpt-4o-2024-08-06", "azure"), 3)

    def test_bedrock_mantle_rows_are_the_us_data_zone(self):
        # litellm: a bedrock_mantle/ row carries the us. row's figure (39 of 39 pairs in one
        # release), 1.1x the global. row's (1.109.1: gpt-6.1-terra input 1.1 / us. 1.1 / global. 1)
        self.assertEqual(self.cls("bedrock_mantle/openai.gpt-5.6-sol", "bedrock_mantle"), 2)
        self.assertEqual(self.cls("global.openai.gpt-5.6-sol", "bedrock_converse"), 1)


class KeyRank(unittest.TestCase):
    """litellm 1.65.0: claude-3-5-haiku-20241022 at 0.8 / 4, claude-3-5-haiku-latest still at 1 / 5."""

    def test_a_dated_snapshot_row_beats_the_latest_alias(self):
        rows = []
        for key in ("claude-3-5-haiku-latest", "claude-3-5-haiku-20241022"):
            ref, _why = litellm_ref(key, {"litellm_provider": "anthropic", "mode": "chat"}, None)
            rows.append((litellm.key_rank(key, ref), key))
        self.assertEqual(min(rows)[1], "claude-3-5-haiku-20241022")


class FieldValue(unittest.TestCase):
    def test_prices_are_decimal_text_per_million_and_zero_is_missing(self):
        e = {"input_cost_per_token": 3.0001999999999996e-07, "output_cost_per_token": 0, "mode": "chat"}
        self.assertEqual(litellm.field_value(e, "input_cost_per_token"), "0.30002")
        self.assertIsNone(litellm.field_value(e, "output_cost_per_token"))

    def test_limits_are_integer_text_and_embeddings_use_max_tokens(self):
        self.assertEqual(litellm.field_value({"max_input_tokens": 200000, "max_output_tokens": 64000},
                                           "context_window"), "200000")
        self.assertEqual(litellm.field_value({"max_tokens": 2048, "mode": "embedding"}, "context_window"), "2048")
        self.assertIsNone(litellm.field_value({"max_output_tokens": None}, "max_output_tokens"))


class Screens(unittest.TestCase):
    def test_a_shutdown_ten_years_out_is_a_placeholder(self):
        # litellm 1.106.1 (2026-10-13): openrouter/z-ai/glm-5-turbo deprecation_date 2098-12-31;
        # Azure's text-embedding-3-large row in the same release names 2028-02-09, a real date
        self.assertTrue(screen.placeholder_shutdown("2098-12-31", "2026-10-13"))
        self.assertFalse(screen.placeholder_shutdown("2028-02-09", "2026-10-13"))

    def test_a_move_undone_within_60_days_is_a_correction(self):
        # litellm 1.104.5 / 1.106.1 list Qwen3.5-397B output on OpenRouter at 3.5, genai-prices 0.2.3
        # has 3.6 again from 2026-10-19
        s = steps(("2026-02-16", "3.6"), ("2026-09-26", "3.5"), ("2026-10-19", "3.6"))
        kept, removed = screen.undone_moves(s)
        self.assertEqual(prices(kept), [("2026-02-16", "3.6")])
        self.assertEqual(prices(removed), [("2026-09-26", "3.5"), ("2026-10-19", "3.6")])

    def test_a_change_that_stays_is_kept(self):
        # o3 on OpenAI: 10 -> 2 on 2025-06-10, never back
        s = steps(("2025-04-16", "10"), ("2025-06-10", "2"))
        self.assertEqual(prices(screen.undone_moves(s)[0]), prices(s))

    def test_a_10x_move_one_source_shows_is_dropped(self):
        # Claude 3.5 Haiku cached input: 0.1, then litellm 1.65.0 alone 0.8, then 0.08 from 1.67.5
        s = steps(("2024-10-22", "0.1"), ("2025-03-03", "0.8"), ("2025-04-30", "0.08"),
                  srcs={"2025-03-03": {"litellm 1.65.0"}, "2025-04-30": {"litellm 1.67.5"}})
        kept, removed = screen.big_moves(s)
        self.assertEqual(prices(kept), [("2024-10-22", "0.1"), ("2025-04-30", "0.08")])
        self.assertEqual(removed[0][0], screen.UNBACKED)

    def test_a_10x_move_two_sources_show_is_kept(self):
        s = steps(("2025-01-01", "1"), ("2025-06-01", "0.1"),
                  srcs={"2025-01-01": {"litellm 1.71.3", "genai-prices 0.2.3"},
                        "2025-06-01": {"litellm 1.73.6", "genai-prices 0.2.3"}})
        self.assertEqual(prices(screen.big_moves(s)[0]), prices(s))

    def test_a_placeholder_opening_a_series_gives_way_to_the_next_figure(self):
        # genai-prices 0.2.3: OpenRouter mythomax-l2-13b output 1.875 until 0.11 on 2026-10-19
        # litellm 1.109.1 shows 0.11 too, but never showed 1.875 with a second source
        s = steps(("2023-07-02", "1.875"), ("2026-10-19", "0.11"),
                  srcs={"2023-07-02": {"litellm 1.53.1"}, "2026-10-19": {"genai-prices 0.2.3", "litellm 1.109.1"}})
        kept, removed = screen.big_moves(s)
        self.assertEqual(prices(kept), [("2023-07-02", "0.11")])
        self.assertEqual(prices(removed[0][1]), [("2023-07-02", "1.875")])

    def test_beyond_20x_even_two_sources_are_not_believed(self):
        s = steps(("2026-09-26", "0.08"), ("2026-10-08", "0.0028"), ("2026-11-03", "0.08"),
                  srcs={"2026-10-08": {"litellm 1.106.1", "genai-prices 0.2.3"}})
        kept, removed = screen.big_moves(s)
        self.assertEqual(prices(kept), [("2026-09-26", "0.08")])
        self.assertEqual(removed[0][0], screen.IMPLAUSIBLE)

    def test_independent_sources_count_sources_not_releases_and_the_ledger_as_litellm(self):
        self.assertEqual(screen.independent_sources({"litellm 1.65.0", "litellm 1.67.5", "llmledger 0.2.0"}),
                         {"litellm"})
        self.assertEqual(screen.independent_sources({"litellm 1.73.6", "genai-prices 0.2.3"}),
                         {"litellm", "genai-prices"})

    def test_a_10x_move_litellm_and_its_ledger_show_is_one_source(self):
        # mistral-small on Mistral: 2 -> 0.1 on 2024-05-31 in litellm and llmledger only (an alias
        # moved to another snapshot)
        s = steps(("2024-03-19", "2"), ("2024-05-31", "0.1"),
                  srcs={"2024-05-31": {"litellm 1.53.1", "llmledger 0.2.0"}})
        kept, removed = screen.big_moves(s)
        self.assertEqual(removed[0][0], screen.UNBACKED)

    def test_an_aggregator_move_one_source_shows_is_restated(self):
        # OpenRouter deepseek-v4-flash input in genai-prices 0.2.3 alone: 0.049 (2026-09-26),
        # 0.091 (2026-10-19), 0.14 (2026-11-03), 0.105 (2026-11-09): the routed provider changed
        g = {"genai-prices 0.2.3"}
        s = steps(("2026-09-26", "0.049"), ("2026-10-19", "0.091"), ("2026-11-03", "0.14"), ("2026-11-09", "0.105"),
                  srcs={"2026-09-26": {"litellm 1.104.5"}, "2026-10-19": g, "2026-11-03": g, "2026-11-09": g})
        kept, removed = screen.screen(s, "openrouter")
        self.assertEqual(prices(kept), [("2026-09-26", "0.105")])
        self.assertEqual(kept[0].srcs, g)
        self.assertEqual([r for r, _s in removed], [screen.ROUTING])
        self.assertEqual(prices(removed[0][1]), prices(s))

    def test_a_restated_figure_is_no_one_source_move_either(self):
        # OpenRouter mistral-nemo input: 0.019 (litellm 1.104.5), 0.029 (litellm 1.106.0 and
        # genai-prices, 2026-10-19), 0.15 (genai-prices alone, 2026-11-03): 0.15 restated over
        # 0.029 would be a one-source move from 0.019, so it is restated over that too
        s = steps(("2026-09-26", "0.019"), ("2026-10-19", "0.029"), ("2026-11-03", "0.15"),
                  srcs={"2026-09-26": {"litellm 1.104.5"}, "2026-10-19": {"litellm 1.106.0", "genai-prices 0.2.3"},
                        "2026-11-03": {"genai-prices 0.2.3"}})
        kept, removed = screen.routing_changes(s)
        self.assertEqual(prices(kept), [("2026-09-26", "0.15")])
        self.assertEqual(prices(removed), [("2026-09-26", "0.019"), ("2026-10-19", "0.029"), ("2026-11-03", "0.15")])

    def test_an_aggregator_move_two_sources_show_is_kept(self):
        # OpenRouter gpt-4o input 5 -> 2.5, shown by litellm and genai-prices
        s = steps(("2024-05-13", "5"), ("2025-04-10", "2.5"),
                  srcs={"2025-04-10": {"litellm 1.67.5", "genai-prices 0.2.3"}})
        self.assertEqual(prices(screen.screen(s, "openrouter")[0]), prices(s))

    def test_a_one_source_move_off_an_aggregator_is_an_event(self):
        # Fireworks deepseek-v4-flash-0731 input 0.14 -> 0.22 (litellm alone)
        s = steps(("2026-08-21", "0.14"), ("2026-09-01", "0.22"), srcs={"2026-09-01": {"litellm 1.100.5"}})
        self.assertEqual(prices(screen.screen(s, "fireworks")[0]), prices(s))


    def test_a_rounded_return_within_5_percent_undoes_a_move(self):
        # Mistral's mistral-large-4 input: 0.68 (2026-10-07), 1.36 (genai-prices 0.2.3 and litellm
        # 1.109.0, 2026-10-20), 0.7 (genai-prices 0.2.3, 2026-10-29): a 2x excursion undone in 9
        # days to a rounded figure; 0.7 is restated over 0.68 from its date
        s = steps(("2026-10-07", "0.68"), ("2026-10-20", "1.36"), ("2026-10-29", "0.7"),
                  srcs={"2026-10-20": {"genai-prices 0.2.3", "litellm 1.109.0"}, "2026-10-29": {"genai-prices 0.2.3"}})
        kept, removed = screen.undone_moves(s)
        self.assertEqual(prices(kept), [("2026-10-07", "0.7")])
        self.assertEqual(prices(removed), [("2026-10-20", "1.36"), ("2026-10-29", "0.7")])

    def test_a_return_further_than_5_percent_is_two_moves(self):
        # a cut that comes back part of the way (1 -> 2 -> 0.9) is not undone
        s = steps(("2026-01-01", "1"), ("2026-02-01", "2"), ("2026-03-01", "0.9"))
        self.assertEqual(prices(screen.undone_moves(s)[0]), prices(s))

    def test_a_data_zone_figure_on_azure_is_restated_to_the_global_row(self):
        # azure/o1-mini-2024-09-12 input in litellm: 3 (1.53.1), 1.21 (1.65.0, 2025-03-07: the
        # data-zone price, 1.1 x 1.1), 1.1 (1.67.5, 2025-04-26: the global price)
        s = steps(("2024-10-05", "3"), ("2025-03-07", "1.21"), ("2025-04-26", "1.1"))
        kept, removed = screen.screen(s, "azure")
        self.assertEqual(prices(kept), [("2024-10-05", "3"), ("2025-03-07", "1.1")])
        self.assertEqual([r for r, _s in removed], [screen.REGION_ROW])
        self.assertEqual(prices(removed[0][1]), [("2025-03-07", "1.21")])

    def test_a_premium_figure_appearing_later_keeps_the_global_price(self):
        # azure/gpt-4-turbo-vision-preview input: 10 until litellm 1.109.1 gives 11 (2026-10-13)
        s = steps(("2024-01-02", "10"), ("2026-10-13", "11"))
        kept, removed = screen.screen(s, "azure")
        self.assertEqual(prices(kept), [("2024-01-02", "10")])
        self.assertEqual(prices(removed[0][1]), [("2026-10-13", "11")])
        # the x1.1 rule is for channels with regional rows only: Novita's mimo-v2-flash 0.1 -> 0.11 stays
        self.assertEqual(prices(screen.screen(steps(("2026-01-09", "0.1"), ("2026-08-28", "0.11")), "novita")[0]),
                         [("2026-01-09", "0.1"), ("2026-08-28", "0.11")])

    def test_premium_matches_rounded_figures_only_at_1_1x(self):
        self.assertTrue(screen.is_premium("0.165", "0.15"))
        self.assertTrue(screen.is_premium("0.143", "0.13"))
        self.assertFalse(screen.is_premium("1.2", "1"))
        self.assertFalse(screen.is_premium("0.2", "0.15"))

    def test_a_latest_alias_starts_at_its_last_move(self):
        # mistral-large-latest on Mistral, input: 2 (Large 2, litellm 1.59.12 on) -> 0.5 (litellm
        # 1.100.5 on, 2026-03-02: the pointer moved to Mistral Large 3, mistral-large-2512 at 0.5)
        s = steps(("2025-01-07", "2"), ("2026-03-02", "0.5"),
                  srcs={"2025-01-07": {"litellm 1.59.12"}, "2026-03-02": {"litellm 1.100.5"}})
        kept, removed = screen.screen(s, "official", alias=True)
        self.assertEqual(prices(kept), [("2026-03-02", "0.5")])
        self.assertEqual(kept[0].srcs, {"litellm 1.100.5"})
        self.assertEqual(prices(removed[0][1]), [("2025-01-07", "2")])
        self.assertEqual([r for r, _s in removed], [screen.ALIAS_MOVED])
        # the same move on a dated model id stays an event
        self.assertEqual(prices(screen.screen(s, "official")[0]), prices(s))

class LimitScreens(unittest.TestCase):
    def test_a_limit_written_another_way_is_no_change(self):
        # deepseek-reasoner's context window in litellm: 64000 (1.59.12), 65536 (1.60.2, 2025-02-04)
        s = steps(("2025-01-23", "64000"), ("2025-02-04", "65536"), ("2025-09-28", "131072"),
                  srcs={"2025-01-23": {"litellm 1.59.12"}, "2025-02-04": {"litellm 1.60.2"}})
        kept, removed = screen.restated_limits(s)
        self.assertEqual(prices(kept), [("2025-01-23", "65536"), ("2025-09-28", "131072")])
        self.assertEqual(kept[0].srcs, {"litellm 1.59.12", "litellm 1.60.2"})
        self.assertEqual(prices(removed), [("2025-02-04", "65536")])


class LimitGate(unittest.TestCase):
    """Limits histories of the bundled dataset's sources (litellm releases) and the notice of
    tools/dataset/limit_notices.json."""

    V31 = limit_evidence.statements(limit_evidence.load())

    def test_the_provider_page_dates_deepseek_v3_1s_128k_context(self):
        # deepseek-chat's context window in litellm: 65536 (1.60.2 on), 131072 from 1.77.5
        # (2025-09-28); DeepSeek's V3.1 release of 2025-08-21 gave both API models 128K
        s = steps(("2024-05-07", "65536"), ("2025-09-28", "131072"),
                  srcs={"2024-05-07": {"litellm 1.60.2"}, "2025-09-28": {"litellm 1.77.5"}})
        said = self.V31[("deepseek:deepseek-chat", "context_window")]
        got, dated, moved = limit_evidence.apply(s, said)
        self.assertEqual(prices(got), [("2024-05-07", "65536"), ("2025-08-21", "131072")])
        self.assertEqual(got[1].srcs, {"litellm 1.77.5", "provider deepseek-news-2025-08-21"})
        self.assertEqual(dated, {("2025-08-21", "131072")})
        self.assertEqual(prices(moved), [("2025-09-28", "131072")])
        kept, restated = screen.undated_limits(got, dated)
        self.assertEqual(prices(kept), prices(got))
        self.assertEqual(restated, [])

    def test_a_max_output_set_to_the_context_window_is_restated(self):
        # mistral-small-latest's max output in litellm: 131072 (1.82.1, from the alias's move on
        # 2026-03-10), 8191 (2026-03-16), 262144 from 1.99.0 (2026-08-25), the figure litellm gives
        # as its context window too; no Mistral page dates a move
        s = steps(("2026-03-10", "131072"), ("2026-03-16", "8191"), ("2026-08-25", "262144"),
                  srcs={"2026-03-10": {"litellm 1.82.1"}, "2026-08-25": {"litellm 1.99.0"}})
        got, dated, moved = limit_evidence.apply(s, self.V31.get(("mistral:mistral-small-latest", "max_output_tokens"), []))
        self.assertEqual((dated, moved), (set(), []))
        kept, restated = screen.undated_limits(got, dated)
        self.assertEqual(prices(kept), [("2026-03-10", "262144")])
        self.assertEqual(kept[0].srcs, {"litellm 1.99.0"})
        self.assertEqual(prices(restated), prices(s))

    def test_a_notice_dates_no_move_recorded_after_its_late_window(self):
        # the same notice against a move first recorded more than 92 days after its day
        s = steps(("2025-01-23", "65536"), ("2026-01-13", "131072"))
        got, dated, _moved = limit_evidence.apply(s, self.V31[("deepseek:deepseek-reasoner", "context_window")])
        self.assertEqual(dated, set())
        self.assertEqual(prices(screen.undated_limits(got, dated)[0]), [("2025-01-23", "131072")])


class Series(unittest.TestCase):
    def test_finalize_merges_equal_prices_and_keeps_their_sources(self):
        s = [Step("2025-01-01", "1", srcs={"litellm 1.59.12"}), Step("2025-02-01", "1", srcs={"llmledger 0.2.0"}),
             Step("2025-03-01", None)]
        out = finalize(s)
        self.assertEqual(prices(out), [("2025-01-01", "1"), ("2025-03-01", None)])
        self.assertEqual(out[0].srcs, {"litellm 1.59.12", "llmledger 0.2.0"})
        self.assertEqual(value_at(out, "2025-02-15"), "1")


class FirstPartyNotices(unittest.TestCase):
    """tools/dataset/announcements.json against series as litellm and llmledger give them."""

    NOTICES = evidence.load()
    STATEMENTS = evidence.price_statements(NOTICES)
    # DeepSeek's pages up to the change log of 2026-08-13 (its repricing of 2026-08-16 would date
    # the later moves of these made-up excerpts)
    BEFORE_V4_REPRICING = evidence.price_statements([n for n in NOTICES if n["id"] != "deepseek-changelog-2026-08-13"])

    def test_a_late_rounded_record_takes_the_notices_day_and_figure(self):
        # litellm 1.77.5 first shows deepseek-chat's input at 0.6 (2025-09-28); DeepSeek's page:
        # $0.56 from 2025-09-05
        srcs = {"2025-02-07": {"litellm 1.61.20"}, "2025-09-28": {"litellm 1.77.5"}, "2026-01-13": {"litellm 1.81.5"}}
        got, moved, shown = evidence.apply_prices(
            steps(("2025-02-07", "0.27"), ("2025-09-28", "0.6"), ("2026-01-13", "0.28"), srcs=srcs),
            self.STATEMENTS[("deepseek:deepseek-chat", "official", "input", "standard")])
        # litellm 1.81.5's 0.28 is DeepSeek's cut of 2025-09-29 ("API price cut by more than 50%")
        self.assertEqual(prices(got), [("2025-02-07", "0.27"), ("2025-09-05", "0.56"), ("2025-09-29", "0.28")])
        self.assertEqual(screen.independent_sources(got[1].srcs), {"litellm", "provider"})
        self.assertEqual([(rule, prices(xs)) for rule, xs in moved],
                         [(evidence.REDATED, [("2025-09-28", "0.6")]), (evidence.REDATED, [("2026-01-13", "0.28")])])
        # DeepSeek's 2025-02-08 list shows 0.27 too; it opens this excerpt, so no move into it is dated
        self.assertEqual({k: v.dated for k, v in shown.items()},
                         {("2025-02-07", "0.27"): False, ("2025-09-05", "0.56"): True, ("2025-09-29", "0.28"): True})

    def test_a_notice_covers_the_platforms_its_page_names(self):
        # Anthropic, 2024-12-03: Claude 3.5 Haiku at $0.80 / $4 "across all platforms"; Bedrock's
        # row in litellm went 1 -> 0.8 in litellm 1.59.12 (2025-01-29)
        haiku = "anthropic:claude-3-5-haiku-20241022"
        for ch in ("official", "aws_bedrock", "vertex", "openrouter"):
            self.assertIn((haiku, ch, "input", "standard"), self.STATEMENTS)
        self.assertNotIn((haiku, "azure", "input", "standard"), self.STATEMENTS)
        got, _moved, shown = evidence.apply_prices(
            steps(("2024-11-04", "1"), ("2025-01-29", "0.8"), srcs={"2025-01-29": {"litellm 1.59.12"}}),
            self.STATEMENTS[(haiku, "aws_bedrock", "input", "standard")])
        self.assertEqual(prices(got), [("2024-11-04", "1"), ("2024-12-03", "0.80")])
        self.assertTrue(shown[("2024-12-03", "0.80")].dated)
        # a notice without `channels` covers the maker's own API only
        self.assertNotIn(("openai:o3", "azure", "input", "standard"), self.STATEMENTS)

    def test_a_cut_said_of_the_model_dates_each_tier_held_to_its_size(self):
        # OpenAI, 2026-07-30: "GPT-5.6 Luna costs 80% less"; the sources show its batch input
        # 0.5 -> 0.1 a day later (llmledger 0.2.0, its day-dated history of litellm's file: 2026-07-31):
        # the cut's day, the sources' figure
        luna = ("openai:gpt-5.6-luna", "official", "input", "batch")
        got, _moved, shown = evidence.apply_prices(
            steps(("2026-07-09", "0.5"), ("2026-07-31", "0.1"), srcs={"2026-07-31": {"llmledger 0.2.0"}}),
            self.STATEMENTS[luna])
        self.assertEqual(prices(got), [("2026-07-09", "0.5"), ("2026-07-30", "0.1")])
        self.assertTrue(shown[("2026-07-30", "0.1")].dated)
        # a smaller move is not the stated cut: not dated by it
        _got, _moved, shown = evidence.apply_prices(
            steps(("2026-07-09", "0.5"), ("2026-07-31", "0.45"), srcs={"2026-07-31": {"llmledger 0.2.0"}}),
            self.STATEMENTS[luna])
        self.assertFalse(any(page.dated for page in shown.values()))
        # a notice that names no tiers states the standard tier only
        self.assertNotIn(("openai:o3", "official", "input", "batch"), self.STATEMENTS)

    def test_a_dated_figure_no_source_records_stands_from_its_day(self):
        # Vertex AI's Claude 3.5 Haiku: litellm 1.53.1 .. 1.91.5 keep 1 until the shutdown of
        # 2026-07-05; Anthropic, 2024-12-03: $0.80 "across all platforms"
        haiku = "anthropic:claude-3-5-haiku-20241022"
        srcs = {"2024-11-04": {"litellm 1.53.1", "litellm 1.91.5"}}
        got, moved, shown = evidence.apply_prices(steps(("2024-11-04", "1"), ("2026-07-05", None), srcs=srcs),
                                                  self.STATEMENTS[(haiku, "vertex", "input", "standard")])
        self.assertEqual(prices(got), [("2024-11-04", "1"), ("2024-12-03", "0.80"), ("2026-07-05", None)])
        self.assertEqual(got[1].srcs, {"provider anthropic-news-2024-12-03"})
        self.assertTrue(shown[("2024-12-03", "0.80")].dated)
        self.assertEqual([(rule, prices(xs)) for rule, xs in moved], [(evidence.STALE, [("2024-12-03", "1")])])
        # a channel that starts selling after the day, or has stopped by then, takes no figure
        for excerpt in (steps(("2025-01-10", "1")), steps(("2024-11-04", "1"), ("2024-12-01", None))):
            got, moved, shown = evidence.apply_prices(excerpt, self.STATEMENTS[(haiku, "vertex", "input", "standard")])
            self.assertEqual((prices(got), moved, shown), (prices(excerpt), [], {}))
        # a page that shows a figure on the day it was read dates nothing and adds no figure
        got, moved, shown = evidence.apply_prices(steps(("2026-04-01", "0.2")),
                                                  [("2026-04-26", "2026-04-26", "0.14", "provider x", False)])
        self.assertEqual((prices(got), moved, shown), ([("2026-04-01", "0.2")], [], {}))

    def test_an_early_record_takes_the_day_the_page_gives(self):
        # llmledger dates litellm's edit of deepseek-chat's input 0.14 -> 0.27 on 2025-02-07;
        # DeepSeek's page: the discount runs "until 2025-02-08 16:00 (UTC)", full price $0.27 after
        got, moved, shown = evidence.apply_prices(
            steps(("2024-05-07", "0.14"), ("2025-02-07", "0.27"), srcs={"2025-02-07": {"llmledger 0.2.0"}}),
            self.STATEMENTS[("deepseek:deepseek-chat", "official", "input", "standard")][:1])
        self.assertEqual(prices(got), [("2024-05-07", "0.14"), ("2025-02-08", "0.27")])
        self.assertEqual([(rule, prices(xs)) for rule, xs in moved], [(evidence.REDATED, [("2025-02-07", "0.27")])])
        self.assertTrue(shown[("2025-02-08", "0.27")].dated)

    def test_a_stated_cut_dates_only_a_cut_of_its_size(self):
        # deepseek-chat cache hit: 0.07 on DeepSeek's 2025-09-05 list; litellm 1.77.5 lists 0.06
        # on 2025-09-28, a day DeepSeek's list was in effect (its change log lists no change
        # until the cut of 2025-09-29); litellm 1.81.5's 0.028 is the cut, 0.4x the 0.07
        srcs = {"2025-02-07": {"litellm 1.61.20"}, "2025-09-28": {"litellm 1.77.5"}, "2026-01-13": {"litellm 1.81.5"}}
        got, moved, _ = evidence.apply_prices(
            steps(("2025-02-07", "0.07"), ("2025-09-28", "0.06"), ("2026-01-13", "0.028"), srcs=srcs),
            self.STATEMENTS[("deepseek:deepseek-chat", "official", "cached_input", "standard")])
        self.assertEqual(prices(got), [("2025-02-07", "0.07"), ("2025-09-29", "0.028")])
        self.assertEqual([rule for rule, _xs in moved], [evidence.CONTRADICTED, evidence.REDATED])
        # a move of less than half is not the cut the page states
        got, _, shown = evidence.apply_prices(steps(("2025-09-05", "0.56"), ("2026-01-13", "0.3")),
                                              [("2025-09-29", "2025-09-29", None, "provider x", Decimal("0.5"))])
        self.assertEqual(prices(got), [("2025-09-05", "0.56"), ("2026-01-13", "0.3")])
        self.assertEqual(shown, {})

    def test_a_cut_the_sources_record_on_its_day_is_dated(self):
        # o3 input: 10 (litellm 1.71.3), 2 from 2025-06-10 (genai-prices' dated step); OpenAI's
        # changelog of 2025-06-10: "Prices for the o3 model have also been reduced" (no size)
        srcs = {"2025-04-16": {"litellm 1.71.3"}, "2025-06-10": {"genai-prices 0.2.3", "litellm 1.73.6"}}
        got, moved, shown = evidence.apply_prices(steps(("2025-04-16", "10"), ("2025-06-10", "2"), srcs=srcs),
                                                  self.STATEMENTS[("openai:o3", "official", "input", "standard")])
        self.assertEqual(prices(got), [("2025-04-16", "10"), ("2025-06-10", "2")])
        self.assertEqual(moved, [])
        self.assertTrue(shown[("2025-06-10", "2")].dated)
        self.assertIn("provider openai-changelog-2025-06-10", got[1].srcs)
        # a rise on that day is not the reduction the page states
        _, _, shown = evidence.apply_prices(steps(("2025-04-16", "10"), ("2025-06-10", "12")),
                                            self.STATEMENTS[("openai:o3", "official", "input", "standard")])
        self.assertEqual(shown, {})

    def test_a_series_litellm_starts_late_starts_on_the_providers_page(self):
        # deepseek-v4-flash output: 0.28 first in litellm 1.91.5 (2026-06-21); DeepSeek's page
        # shows it on 2026-04-26; litellm 1.100.5's 1.32 (2026-08-21) is after every copy read
        got, _, _ = evidence.apply_prices(steps(("2026-06-21", "0.28"), ("2026-08-21", "1.32")),
                                       self.BEFORE_V4_REPRICING[("deepseek:deepseek-v4-flash", "official", "output", "standard")])
        self.assertEqual(prices(got), [("2026-04-26", "0.28"), ("2026-08-21", "1.32")])

    def test_a_move_on_a_day_the_page_shows_the_old_figure_is_left_out(self):
        # litellm 1.100.5's 0.44 for deepseek-v4-flash input, had it been dated inside the days
        # DeepSeek's page is read to show 0.14 (2026-04-26 .. 2026-05-22)
        got, moved, _ = evidence.apply_prices(steps(("2026-04-26", "0.14"), ("2026-05-01", "0.44"), ("2026-09-13", "0.3")),
                                           self.BEFORE_V4_REPRICING[("deepseek:deepseek-v4-flash", "official", "input", "standard")])
        self.assertEqual(prices(got), [("2026-04-26", "0.14"), ("2026-09-13", "0.3")])
        self.assertEqual([(rule, prices(xs)) for rule, xs in moved], [(evidence.CONTRADICTED, [("2026-05-01", "0.44")])])

    def test_a_figure_is_recorded_only_as_itself_or_rounded_to_fewer_decimals(self):
        self.assertTrue(evidence.records("0.6", "0.56"))
        self.assertTrue(evidence.records("1.7", "1.68"))
        self.assertFalse(evidence.records("0.06", "0.07"))     # litellm's deepseek-reasoner cache hit
        self.assertFalse(evidence.records("2", "1.68"))        # a whole number is no rounding of a price
        self.assertFalse(evidence.records("0.56", "0.6"))

    def test_a_deprecation_notice_gives_the_announcement_and_the_shutdown_day(self):
        deps = evidence.deprecations(self.NOTICES)
        self.assertEqual(deps[("openai:gpt-5", "official")][:2], ("2026-06-11", "2026-12-11"))
        self.assertEqual(deps[("openai:gpt-4-0613", "official")][:2], ("2026-04-22", "2026-10-23"))

    def test_a_page_naming_no_announcement_day_is_known_from_its_shutdown(self):
        # xAI's retirement page states 2026-05-15 but not the day it was published
        xai = [n for n in evidence.load() if n["id"] == "xai-retirement-2026-05-15"]
        self.assertEqual(evidence.known_by(xai, "2026-05-14"), [])
        self.assertEqual(len(evidence.known_by(xai, "2026-05-15")[0]["deprecations"]), 7)

    def test_a_build_as_of_a_past_day_knows_no_later_notice(self):
        old = evidence.known_by(self.NOTICES, "2026-05-01")
        self.assertNotIn(("openai:gpt-5", "official"), evidence.deprecations(old))
        v4 = [n for n in old if n["id"] == "deepseek-pricing-2026-05-22"][0]
        self.assertEqual(v4["through"], "2026-05-01")

    def test_a_repricing_the_page_dates_without_figures_dates_the_sources_next_figure(self):
        # deepseek-v4-pro input as the build's time-of-day rule gives it: 0.435 (DeepSeek's page,
        # 2026-04-26 .. 2026-05-22), the flat rate's end on 2026-08-17 (genai-prices' first
        # time-of-day price), the off-peak 0.66 first shown by litellm 1.104.5 (2026-09-26).
        # DeepSeek's change log of 2026-08-13: "The new prices will take effect at 16:00 (UTC Time)
        # on August 16, 2026": 0.66 from that day, no day left unknown
        s = steps(("2026-04-26", "0.435"), ("2026-08-17", None), ("2026-09-26", "0.66"),
                  srcs={"2026-09-26": {"litellm 1.104.5"}})
        got, moved, shown = evidence.apply_prices(
            s, self.STATEMENTS[("deepseek:deepseek-v4-pro", "official", "input", "standard")])
        self.assertEqual(prices(got), [("2026-04-26", "0.435"), ("2026-08-16", "0.66")])
        self.assertTrue(shown[("2026-08-16", "0.66")].dated)
        self.assertIn("provider deepseek-changelog-2026-08-13", got[1].srcs)
        self.assertEqual([(rule, prices(xs)) for rule, xs in moved], [(evidence.REDATED, [("2026-09-26", "0.66")])])
        # a rise as well as a cut (V4 Flash output: 0.28 -> 0.6)
        got, _m, _s = evidence.apply_prices(
            steps(("2026-04-26", "0.28"), ("2026-08-17", None), ("2026-09-10", "0.6")),
            self.STATEMENTS[("deepseek:deepseek-v4-flash", "official", "output", "standard")])
        self.assertEqual(prices(got), [("2026-04-26", "0.28"), ("2026-08-16", "0.6")])

    def test_an_aggregators_move_a_page_dates_is_no_routing_change(self):
        # OpenRouter's Claude 3.5 Haiku: litellm's row kept the launch 1 / 5; Anthropic's cut to
        # $0.80 "across all platforms" of 2024-12-03, which OpenRouter's own page shows
        haiku = "anthropic:claude-3-5-haiku-20241022"
        got, _moved, shown = evidence.apply_prices(
            steps(("2024-10-22", "1"), srcs={"2024-10-22": {"litellm 1.53.1", "litellm 1.81.5"}}),
            self.STATEMENTS[(haiku, "openrouter", "input", "standard")])
        kept, removed = screen.screen(got, "openrouter", dated={k for k, v in shown.items() if v.dated})
        self.assertEqual(prices(kept), [("2024-10-22", "1"), ("2024-12-03", "0.80")])
        self.assertEqual(removed, [])
        # without the page the move is one source's: a routing change, restated
        kept, removed = screen.screen(got, "openrouter")
        self.assertEqual([rule for rule, _x in removed], [screen.ROUTING])


class Promotions(unittest.TestCase):
    URL = "https://ai.google.dev/gemini-api/docs/latest-model"

    def test_the_introductory_price_is_marked_and_the_price_after_it_is_not(self):
        # Google's page of 2026-08-13: Gemini 3.6 Flash moved from 1.50 to the introductory 0.75
        # ("We're also applying this new rate to 3.6 Flash. Introductory pricing expires on
        # December 31, 2026"), and 1.50 applies again from 2027-01-01
        notice = {"url": self.URL, "promotions": [
            {"model": "google:gemini-3.6-flash", "component": "input", "price": "0.75",
             "from": "2026-08-13", "until": "2026-12-31"}]}
        offers = evidence.promotions([notice])[("google:gemini-3.6-flash", "official", "input")]
        hist = [{"from": "2026-07-22", "price": "1.5"}, {"from": "2026-08-13", "price": "0.75"},
                {"from": "2027-01-01", "price": "1.5"}]
        evidence.mark_promotions(hist, offers)
        self.assertEqual([h.get("promotion") for h in hist],
                         [None, {"until": "2026-12-31", "url": self.URL}, None])

    def test_a_promotion_before_its_start_or_at_another_price_is_not_marked(self):
        offers = [(Decimal("0.75"), "2026-08-13", "2026-12-31", self.URL)]
        hist = [{"from": "2026-01-05", "price": "0.75"}, {"from": "2026-08-13", "price": "0.8"}]
        evidence.mark_promotions(hist, offers)
        self.assertEqual([h.get("promotion") for h in hist], [None, None])


class EvidenceGate(unittest.TestCase):
    """screen.unevidenced_moves: only a move a provider's page dates is a price change."""

    STATEMENTS = evidence.price_statements(evidence.load())
    BEFORE_V4_REPRICING = FirstPartyNotices.BEFORE_V4_REPRICING

    def gate(self, s, statements=()):
        s, _moved, shown = evidence.apply_prices(s, list(statements))
        return screen.unevidenced_moves(s, shown)

    def test_a_move_the_providers_page_dates_is_kept(self):
        # deepseek-reasoner output: 2.19 (litellm 1.59.12), 1.7 (litellm 1.77.5, 2025-09-28),
        # 0.42 (litellm 1.81.5, 2026-01-13); DeepSeek dates 1.68 from 2025-09-05 and a cut of
        # more than 50% on 2025-09-29
        kept, gated = self.gate(steps(("2025-01-23", "2.19"), ("2025-09-28", "1.7"), ("2026-01-13", "0.42")),
                                self.STATEMENTS[("deepseek:deepseek-reasoner", "official", "output", "standard")])
        self.assertEqual(prices(kept), [("2025-01-23", "2.19"), ("2025-09-05", "1.68"), ("2025-09-29", "0.42")])
        self.assertEqual(gated, [])

    def test_a_move_one_lineage_shows_is_restated_as_a_correction(self):
        # Gemini 2.5 Flash native audio preview output on Google's API: 2.5 (2026-02-13), 2 from
        # 2026-08-28 (litellm 1.100.5 on, and llmledger's history of litellm's file): one lineage,
        # no page of Google's dates it; 2 stands from the start
        s = steps(("2026-02-13", "2.5"), ("2026-08-28", "2"),
                  srcs={"2026-02-13": {"litellm 1.95.1"}, "2026-08-28": {"litellm 1.100.5", "llmledger 0.2.0"}})
        kept, gated = self.gate(s)
        self.assertEqual(prices(kept), [("2026-02-13", "2")])
        self.assertEqual(kept[0].srcs, {"litellm 1.100.5", "llmledger 0.2.0"})
        self.assertEqual([(rule, prices(xs)) for rule, xs in gated],
                         [(screen.UNEVIDENCED, [("2026-02-13", "2.5"), ("2026-08-28", "2")])])

    def test_a_move_two_sources_show_keeps_the_old_figure_up_to_its_last_release(self):
        # Groq's gpt-oss-20b input: 0.1 from 2025-08-07, last shown by litellm 1.80.11
        # (2025-12-22); 0.075 from 2026-01-19 (genai-prices 0.2.3 and litellm 1.81.5 on): two
        # sources, no page of Groq's dates it: the days between are unknown, no event
        s = steps(("2025-08-07", "0.1"), ("2026-01-19", "0.075"),
                  srcs={"2025-08-07": {"litellm 1.76.1", "litellm 1.80.11"},
                        "2026-01-19": {"genai-prices 0.2.3", "litellm 1.81.5"}})
        days = {"litellm 1.76.1": "2025-08-30", "litellm 1.80.11": "2025-12-22", "litellm 1.81.5": "2026-01-29",
                "genai-prices 0.2.3": "2026-11-12"}
        kept, gated = screen.unevidenced_moves(s, {}, days)
        self.assertEqual(prices(kept), [("2025-08-07", "0.1"), ("2025-12-23", None), ("2026-01-19", "0.075")])
        self.assertEqual([(rule, prices(xs)) for rule, xs in gated], [(screen.UNDATED, [("2026-01-19", "0.075")])])

    def test_a_figure_the_page_shows_is_not_restated_its_later_days_are_unknown(self):
        # deepseek-v4-flash input: 0.14 on DeepSeek's page 2026-04-26 .. 2026-05-22; litellm
        # 1.100.5's 0.44 (2026-08-21) no page dates: 0.14 is not overwritten, the days after the
        # last copy are unknown and 0.44 is no change of 0.14
        kept, gated = self.gate(steps(("2026-06-21", "0.14"), ("2026-08-21", "0.44")),
                                self.BEFORE_V4_REPRICING[("deepseek:deepseek-v4-flash", "official", "input", "standard")])
        self.assertEqual(prices(kept), [("2026-04-26", "0.14"), ("2026-05-23", None), ("2026-08-21", "0.44")])
        self.assertEqual([(rule, prices(xs)) for rule, xs in gated], [(screen.UNDATED, [("2026-08-21", "0.44")])])


class Lifecycle(unittest.TestCase):
    """Series of the bundled dataset (generated 2026-11-12) with the providers' statements read in
    tools/dataset/notices/ (evidence.deprecations); the tests marked made up show one rule each."""

    GEN = "2026-11-12"
    DEPS = evidence.deprecations(evidence.load() + limit_evidence.load())

    @staticmethod
    def series(*pairs, verified):
        return {"steps": steps(*pairs), "last_verified": verified}

    def pages(self, model, *channels):
        return {ch: self.DEPS[(model, ch)] for ch in channels}

    def test_the_makers_shutdown_retires_a_model_no_channel_still_sells(self):
        # openai:gpt-4-0613: OpenAI's page, 2026-04-22: shut down on 2026-10-23, "Substitute model
        # gpt-5.6-sol"; Azure's rows were last listed on 2025-06-06 (stale, not ended)
        official = self.series(("2023-09-06", "30"), ("2026-10-23", None), verified="2026-10-23")
        azure = self.series(("2024-01-01", "30"), verified="2025-06-06")
        got = lifecycle([("official", official), ("azure", azure)], self.GEN,
                        self.pages("openai:gpt-4-0613", "official"))
        status, dep, ret, successor, statements, withheld = got
        self.assertEqual((status, dep, ret, successor), ("retired", "2026-04-22", "2026-10-23", "openai:gpt-5.6-sol"))
        self.assertEqual([(st["channel"], st["decides"], st["source"]) for st in statements],
                         [("official", True, "provider openai-deprecations-2026-04-22-october")])
        self.assertEqual(withheld, [])

    def test_a_channel_still_selling_keeps_a_model_deprecated_after_the_makers_shutdown(self):
        # openai:o4-mini: OpenAI's API ends it on 2026-10-23; Azure's rows still confirm a price on
        # 2026-11-12 (its own schedule): deprecated, retired on OpenAI's API on 2026-10-23
        official = self.series(("2025-04-16", "1.1"), ("2026-10-23", None), verified="2026-10-23")
        azure = self.series(("2025-04-18", "1.1"), verified="2026-11-12")
        got = lifecycle([("official", official), ("azure", azure)], self.GEN,
                        self.pages("openai:o4-mini", "official"))
        self.assertEqual(got[:4], ("deprecated", "2026-04-22", "2026-10-23", "openai:gpt-5.6-terra"))

    def test_a_future_shutdown_is_published_ahead(self):
        # openai:gpt-5: OpenAI's notice of 2026-06-11, removal from the API on 2026-12-11
        official = self.series(("2025-08-07", "1.25"), ("2026-12-11", None), verified="2026-11-12")
        got = lifecycle([("official", official)], self.GEN, self.pages("openai:gpt-5", "official"))
        self.assertEqual(got[:4], ("deprecated", "2026-06-11", "2026-12-11", "openai:gpt-5.6-sol"))
        self.assertEqual(got[4][0]["shutdown"], "2026-12-11")

    def test_a_cloud_page_ends_its_own_channel_and_is_listed_beside_the_makers(self):
        # anthropic:claude-3-5-haiku-20241022: Anthropic's page (deprecated 2025-12-19, retired
        # 2026-02-19, replacement claude-haiku-4-5-20251001); Amazon Bedrock's model card:
        # end-of-life June 19, 2026; OpenRouter last listed it on 2026-01-29 (stale)
        official = self.series(("2024-11-04", "1"), ("2024-12-03", "0.80"), ("2026-02-19", None), verified="2026-02-19")
        bedrock = self.series(("2024-11-04", "1"), ("2024-12-03", "0.80"), ("2026-06-19", None), verified="2026-06-19")
        openrouter = self.series(("2024-10-22", "1"), ("2024-12-03", "0.80"), verified="2026-01-29")
        model = "anthropic:claude-3-5-haiku-20241022"
        status, dep, ret, successor, statements, _w = lifecycle(
            [("official", official), ("aws_bedrock", bedrock), ("openrouter", openrouter)], self.GEN,
            self.pages(model, "official", "aws_bedrock"))
        self.assertEqual((status, dep, ret, successor), ("retired", "2025-12-19", "2026-02-19", "anthropic:claude-haiku-4-5"))
        self.assertEqual([(st["channel"], st["shutdown"], st["decides"]) for st in statements],
                         [("aws_bedrock", "2026-06-19", False), ("official", "2026-02-19", True)])

    def test_a_resellers_page_retires_a_model_only_it_sold_without_dating_a_deprecation(self):
        # deepseek:deepseek-prover-v2-671b, sold on Novita only: Novita's changelog of 2026-06-04,
        # removed from the Serverless Endpoints on June 19, 2026
        novita = self.series(("2025-05-01", "0.7"), ("2026-06-19", None), verified="2026-06-19")
        got = lifecycle([("novita", novita)], self.GEN, self.pages("deepseek:deepseek-prover-v2-671b", "novita"))
        self.assertEqual(got[:4], ("retired", None, "2026-06-19", None))
        self.assertEqual(got[4][0]["decides"], True)

    def test_a_page_calling_a_model_deprecated_without_a_day_is_a_statement_with_no_dates(self):
        # Anthropic's page: "Claude Mythos Preview (claude-mythos-preview) is deprecated. To migrate
        # to Claude Mythos 5 (claude-mythos-5) ..."
        official = self.series(("2026-04-07", "25"), verified="2026-11-12")
        got = lifecycle([("official", official)], self.GEN, self.pages("anthropic:claude-mythos-preview", "official"))
        self.assertEqual(got[:4], ("deprecated", None, None, "anthropic:claude-mythos-5"))

    def test_a_planned_end_is_no_deprecation(self):
        # Google's Gemini API deprecations table gives gemini-3.1-flash-lite "May 7, 2027", the
        # earliest possible shutdown day ("the shutdown dates listed ... indicate the earliest
        # possible dates"): no deprecation; litellm carried the day as a shutdown
        official = self.series(("2026-05-07", "0.25"), verified="2026-11-12")
        official["source_shutdown"] = ("2027-05-07", "gemini/gemini-3.1-flash-lite")
        status, dep, ret, _s, statements, withheld = lifecycle(
            [("official", official)], self.GEN, self.pages("google:gemini-3.1-flash-lite", "official"),
            lambda _s: "2026-05-21")
        self.assertEqual((status, dep, ret, withheld), ("active", None, None, []))
        self.assertEqual((statements[0]["not_before"], statements[0]["decides"]), ("2027-05-07", False))

    def test_a_model_no_source_lists_any_more_is_stale_not_retired(self):
        # moonshotai:kimi-latest-32k: the release sources stop listing it on 2026-01-28; no page of
        # Moonshot's says it was shut down (it was served as retired that day)
        official = self.series(("2025-04-08", "1"), verified="2026-01-28")
        self.assertEqual(lifecycle([("official", official)], self.GEN, {}),
                         ("active", None, None, None, [], []))

    def test_a_release_sources_shutdown_alone_publishes_no_day_and_deprecates_nothing(self):
        # made up: a source gives a shutdown (first recorded 2026-10-08); no page states it
        official = self.series(("2025-04-08", "1"), verified="2026-11-12")
        official["source_shutdown"] = ("2027-01-28", "k")
        self.assertEqual(lifecycle([("official", official)], self.GEN, {}, lambda _s: "2026-10-08")[:3],
                         ("active", None, None))

    def test_the_makers_page_dates_a_model_only_a_cloud_sold(self):
        # openai:computer-use-preview, sold on Azure only: OpenAI's page, deprecated 2026-04-22,
        # shut down on 2026-07-23; Azure's rows were last confirmed on 2026-07-23 (litellm's own
        # shutdown day caps them)
        azure = self.series(("2025-03-11", "3"), verified="2026-07-23")
        got = lifecycle([("azure", azure)], self.GEN, self.pages("openai:computer-use-preview", "official"))
        self.assertEqual(got[:4], ("retired", "2026-04-22", "2026-07-23", "openai:gpt-5.6-terra"))

    def test_the_newest_row_of_a_model_wins(self):
        # OpenAI's page lists gpt-4-1106-preview twice: shut down 2026-03-26 (notice of 2025-09-26)
        # and 2026-10-23 (notice of 2026-04-22); the newer announcement decides
        st = self.DEPS[("openai:gpt-4-1106-preview", "official")]
        self.assertEqual((st.announced, st.shutdown, st.successor), ("2026-04-22", "2026-10-23", "openai:gpt-5.6-sol"))

    def test_a_page_covering_a_cloud_names_that_channels_shutdown(self):
        # Amazon Bedrock's Claude 3.5 Haiku model card: end-of-life June 19, 2026, on Bedrock only
        st = self.DEPS[("anthropic:claude-3-5-haiku-20241022", "aws_bedrock")]
        self.assertEqual((st.announced, st.shutdown), (None, "2026-06-19"))
        # Anthropic's own page covers the Claude API and Microsoft Foundry (azure), not Bedrock
        self.assertEqual(self.DEPS[("anthropic:claude-opus-4-1", "azure")].shutdown, "2026-08-05")


class Events(unittest.TestCase):
    """The steps a series publishes: xAI's grok-4-0709 on xAI's API (shutdown 2026-05-15) and
    GPT-5.5 Pro's input on OpenAI's API, as litellm, llmledger and genai-prices give them."""

    def test_a_series_ends_on_its_shutdown_and_later_figures_are_no_offer(self):
        # litellm lists grok-4-0709 at 3 from 2025-07-31, and again from 2026-08-31 (1.100.0) at 1.25
        got, late = events.end_at_shutdown(steps(("2025-07-31", "3"), ("2026-08-31", "1.25")), "2026-05-15")
        self.assertEqual(prices(got), [("2025-07-31", "3"), ("2026-05-15", None)])
        self.assertEqual(prices(late), [("2026-08-31", "1.25")])

    def test_a_future_shutdown_is_a_scheduled_end(self):
        # Google's gemini-3.1-flash-live-preview input, 0.75 from 2026-03-27: shutdown 2026-11-17, after the data's 2026-11-12
        got, late = events.end_at_shutdown(steps(("2026-03-27", "0.75")), "2026-11-17")
        self.assertEqual(prices(got), [("2026-03-27", "0.75"), ("2026-11-17", None)])
        self.assertEqual(late, [])

    def test_a_step_is_shown_by_the_releases_and_sources_that_carry_its_price(self):
        # litellm 1.83.14 (2026-04-30) still shows 60, 1.87.5 (2026-05-28) shows 30; llmledger
        # dates the 30 back to the row's start; genai-prices 0.2.3 (2026-11-09) gives 30 undated
        st = steps(("2026-04-24", "30"), srcs={"2026-04-24": {"llmledger 0.2.0"}})
        obs = [("2026-04-30", "gpt-5.5-pro-2026-04-23", "60"), ("2026-05-28", "gpt-5.5-pro-2026-04-23", "30")]
        got = events.step_sources(st, obs, ["1.83.14", "1.87.5"], [(None, "30")], "2026-11-09", "genai-prices 0.2.3")
        self.assertEqual(got, [["genai-prices 0.2.3", "litellm 1.87.5", "llmledger 0.2.0"]])

    def test_genai_prices_figure_on_its_release_day_is_its_newest_dated_step(self):
        # genai-prices 0.2.3 deepseek-v4-flash on Avian: 0.0805 undated, 0.14 from 2026-10-18
        self.assertEqual(events.genai_current([(None, "0.0805"), ("2026-10-18", "0.14")], "2026-11-09"), "0.14")
        self.assertEqual(events.genai_current([(None, "0.0805"), ("2026-10-18", "0.14")], "2026-10-01"), "0.0805")
        self.assertIsNone(events.genai_current([], "2026-11-09"))


class Render(unittest.TestCase):
    """Rows as litellm 1.109.1 and models.dev give them, and a published series of the snapshot."""

    def test_history_and_the_changes_it_counts(self):
        # deepseek-chat on DeepSeek's API: 0.27, 0.56 on 2025-09-05 (DeepSeek's notice), 0.28
        st = steps(("2025-02-07", "0.27"), ("2025-09-05", "0.56"), ("2026-01-13", "0.28"),
                   srcs={"2025-09-05": {"litellm 1.77.5", "provider deepseek-pricing-2025-09-05"}})
        hist = render.history(st)
        self.assertEqual(hist[1], {"from": "2025-09-05", "price": "0.56",
                                   "sources": ["litellm 1.77.5", "provider deepseek-pricing-2025-09-05"]})
        self.assertNotIn("sources", hist[0])
        self.assertEqual(render.value_at_hist(hist, "2025-12-31"), "0.56")
        row = {"channel": "official", "history": hist}
        self.assertEqual(render.price_changes([row], "2025-06-01", "2026-11-12"), (2, 0, {"official": 1}))
        self.assertEqual(render.price_changes([row], "2025-06-01", "2025-12-31"), (1, 1, {"official": 1}))


class LedgerDating(unittest.TestCase):
    """llmledger 0.2.0's events of litellm's `gpt-5.5-pro-2026-04-23` row (input, per token)."""

    LEDGER = llmledger.Ledger({"built": "2026-10-21T00:00:00+00:00", "models": [], "events": {
        "gpt-5.5-pro-2026-04-23": [
            ["2026-04-24", "added", "", None, None, "", 859],
            ["2026-04-29", "price", "input_cost_per_token", 6e-05, 3e-05, "likely", 210]]}})

    def test_a_move_dated_before_a_late_dated_release_is_the_same_move(self):
        # litellm 1.83.14 (content-dated 2026-04-30) still shows 60, 1.87.5 (2026-05-28) shows 30:
        # the ledger's 60 -> 30 of 2026-04-29, a likely correction, is that move
        got = self.LEDGER.move({"gpt-5.5-pro-2026-04-23"}, "input_cost_per_token", "2026-04-30", "2026-05-28",
                               "60", "30", since="2026-04-24")
        self.assertEqual(got, [("2026-04-29", "60", "30", "likely")])
        self.assertEqual(llmledger.kind_of(got[0][3]), "correction")

    def test_a_move_from_another_figure_is_not_that_move(self):
        self.assertEqual(self.LEDGER.move({"gpt-5.5-pro-2026-04-23"}, "input_cost_per_token", "2026-04-30",
                                          "2026-05-28", "45", "30", since="2026-04-24"), [])
        self.assertEqual(self.LEDGER.move({"gpt-5.5-pro-2026-04-23"}, "input_cost_per_token", "2026-04-30",
                                          "2026-05-28", "60", "30"), [])


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


class BundledConditionalRates(unittest.TestCase):
    """The conditional rates of the bundled snapshot (data/snapshot.json.gz) against the providers'
    pages and the format (docs/snapshot-format.md, section 6.5)."""

    @classmethod
    def setUpClass(cls):
        snap = json.loads(gzip.decompress((REPO / "data" / "snapshot.json.gz").read_bytes()))
        cls.gen = snap["generated_at"][:10]
        cls.rows = snap["conditional_prices"]
        cls.standard = {(p["model"], p["channel"], p["component"], p["tier"]) for p in snap["prices"]}

    def current(self, model, component, tier, above, ttl=None):
        hits = [r for r in self.rows if (r["model"], r["channel"], r["component"], r["tier"]) ==
                (model, "official", component, tier) and r["condition"] == render.condition(above, ttl)]
        return render.value_at_hist(hits[0]["history"], self.gen) if hits else None

    def test_the_providers_long_context_rates(self):
        # Gemini 2.5 Pro, prompts above 200k tokens: $2.50 input, $15 output, context caching $0.25
        # (https://ai.google.dev/gemini-api/docs/pricing, as quoted in the stored copies
        # https://deploybase.ai/articles/gemini-api-pricing-2026 and
        # https://discuss.ai.google.dev/t/question-about-gemini-api-caching-pricing/107349, read 2026-11-24)
        got = [self.current("google:gemini-2.5-pro", c, "standard", 200000)
               for c in ("input", "output", "cached_input")]
        self.assertEqual(got, ["2.5", "15", "0.25"])
        # GPT-5.4, prompts above 272K input tokens: 2x input and 1.5x output of $2.50 / $15 for
        # standard, batch and flex (https://developers.openai.com/api/docs/models/gpt-5.4, stored
        # copy read 2026-11-24)
        got = [self.current("openai:gpt-5.4", c, "standard", 272000) for c in ("input", "output", "cached_input")]
        self.assertEqual(got, ["5", "22.5", "0.5"])
        self.assertEqual(self.current("openai:gpt-5.4", "input", "batch", 272000), "2.5")

    def test_anthropics_cache_writes(self):
        # Claude Sonnet 4.5: base input $3, 5m cache writes $3.75, 1h cache writes $6
        # (https://docs.anthropic.com/en/docs/about-claude/pricing, as reproduced in the stored copy
        # https://docs.electronhub.ai/guides/prompt-caching, read 2026-11-24)
        got = [self.current("anthropic:claude-sonnet-4-5", "cache_write", "standard", None, ttl)
               for ttl in ("5m", "1h")]
        self.assertEqual(got, ["3.75", "6"])
        # Google bills cached input and storage, no cache write
        self.assertFalse([r for r in self.rows
                          if r["component"] == "cache_write" and r["model"].startswith("google:")])

    def test_the_rows_are_sorted_unique_and_conditional(self):
        keys = [render.conditional_order(r) for r in self.rows]
        self.assertEqual(keys, sorted(keys))
        self.assertEqual(len(set(keys)), len(keys))
        for r in self.rows:
            above, ttl = r["condition"]["above_input_tokens"], r["condition"]["cache_ttl"]
            region, window = r["condition"]["region"], r["condition"]["time_window"]
            self.assertTrue(above is not None or r["component"] == "cache_write" or region or window, r)
            self.assertTrue(region is None or litellm.REGION_NAME.fullmatch(region), r)
            self.assertTrue(above is None or above > 0, r)
            self.assertIn(ttl, (None, "5m", "1h") if r["component"] == "cache_write" else (None,), r)
            self.assertIn(r["tier"], litellm.CHANNEL_TIERS.get(r["channel"], litellm.TIERS), r)
            base = "input" if r["component"] == "cache_write" else r["component"]
            self.assertIn((r["model"], r["channel"], base, r["tier"]), self.standard, r)


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
