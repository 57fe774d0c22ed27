"""The providers' own notices: the prices and promotions they state and the evidence gate
(evidence.py), the limits they state (limit_evidence.py).

Each test on a real excerpt of the sources (the source and release are named in it).
Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import unittest
from decimal import Decimal

from pipeline import evidence, limit_evidence, screen

from .helpers import prices, steps


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


class Contradictions(unittest.TestCase):
    """A page showing a source's figure wrong without a USD price of its own (`contradicts`)."""

    ROWS = evidence.contradictions(evidence.load())
    GPT35_0301 = ("openai:gpt-3.5-turbo-0301", "azure", "input", "standard")

    def test_a_figure_the_page_shows_wrong_is_left_out_whole_and_nothing_takes_its_place(self):
        # litellm's azure/gpt-35-turbo-0301: input 0.2 per 1M from 2023-03-01 to the shutdown of
        # 2025-02-13; Azure's page (Korean edition, 2024-07-08): input ₩2.7776 = output ₩2.7776
        got, removed = evidence.drop_contradicted(
            steps(("2023-03-01", "0.2"), ("2025-02-13", None)), self.ROWS[self.GPT35_0301])
        self.assertEqual(prices(removed), [("2023-03-01", "0.2")])
        self.assertEqual(prices(got), [("2025-02-13", None)])
        # the output (2, the page's equal figure) is no row of the notice
        self.assertNotIn(("openai:gpt-3.5-turbo-0301", "azure", "output", "standard"), self.ROWS)
        # the notice covers Azure only
        self.assertNotIn(("openai:gpt-3.5-turbo-0301", "official", "input", "standard"), self.ROWS)

    def test_the_figure_outside_the_pages_day_or_another_figure_is_kept(self):
        rows = self.ROWS[self.GPT35_0301]
        # ended before the copy's day (2024-07-08)
        kept = steps(("2023-03-01", "0.2"), ("2024-07-08", "2"))
        self.assertEqual(evidence.drop_contradicted(kept, rows), (kept, []))
        # begun after it
        kept = steps(("2023-03-01", "2"), ("2024-07-09", "0.2"))
        self.assertEqual(evidence.drop_contradicted(kept, rows), (kept, []))
        # in effect that day at another figure
        kept = steps(("2023-03-01", "2"))
        self.assertEqual(evidence.drop_contradicted(kept, rows), (kept, []))


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


if __name__ == "__main__":
    unittest.main()
