"""The screens before events (screen.py).

Each test on a real excerpt of the sources (the source and release are named in it).
Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import unittest
from decimal import Decimal

from pipeline import screen
from pipeline.series import Step

from .helpers import bundled, prices, steps


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

    def test_a_figure_given_after_the_rows_own_shutdown_is_no_offer_of_the_model(self):
        # litellm's xai/grok-4 (deprecation_date 2026-05-15): input 3 from litellm 1.74.12, 1.25
        # from litellm 1.100.0 (2026-08-31), grok-4.3's price: xAI redirects the retired ids to
        # grok-4.3, "billed at grok-4.3 pricing" (https://docs.x.ai/developers/migration/may-15-retirement)
        s = steps(("2025-07-31", "3"), ("2026-08-31", "1.25"),
                  srcs={"2025-07-31": {"litellm 1.74.12"}, "2026-08-31": {"litellm 1.100.0"}})
        kept, late = screen.after_row_shutdown(s, "2026-05-15")
        self.assertEqual(prices(kept), [("2025-07-31", "3")])       # not ended: no provider page states the day
        self.assertEqual(prices(late), [("2026-08-31", "1.25")])
        # a rate the row first gains after the day (its cached input 0.2, litellm 1.100.0) is
        # grok-4.3's too, where the row's input was priced before the day
        cached = steps(("2026-08-31", "0.2"))
        self.assertEqual(screen.after_row_shutdown(cached, "2026-05-15", row_from="2025-07-31"), ([], cached))
        # a row the source first prices after the day is no move of an earlier price: Together's
        # Qwen2-72B-Instruct (deprecation_date 2025-08-28) at 0.9 from litellm 1.103.x (2026-09-24)
        relisted = steps(("2026-09-24", "0.9"))
        self.assertEqual(screen.after_row_shutdown(relisted, "2025-08-28"), (relisted, []))
        self.assertEqual(screen.after_row_shutdown(relisted, "2025-08-28", row_from="2026-09-24"), (relisted, []))

    def test_a_step_genai_prices_dates_after_the_rows_shutdown_stays(self):
        # OpenRouter's deepseek-v3.2: litellm's row gives deprecation_date 2026-09-28; genai-prices
        # 0.2.3 dates its own figure 0.28 on 2026-10-19 (another lineage's statement), litellm's
        # 0.259 of 2026-10-08 is the row's after its end
        s = steps(("2025-12-01", "0.26"), ("2026-10-08", "0.259"))
        genai = Step("2026-10-19", "0.28", genai=True, srcs={"genai-prices 0.2.3"})
        kept, late = screen.after_row_shutdown(s + [genai], "2026-09-28")
        self.assertEqual(prices(kept), [("2025-12-01", "0.26"), ("2026-10-19", "0.28")])
        self.assertEqual(prices(late), [("2026-10-08", "0.259")])


class LimitScreens(unittest.TestCase):
    def test_a_limit_written_another_way_is_no_change(self):
        # deepseek-reasoner's context window in litellm: 64000 (1.59.12), 65536 (1.60.2, 2025-02-04)
        s = steps(("2025-01-23", "64000"), ("2025-02-04", "65536"), ("2025-09-28", "131072"),
                  srcs={"2025-01-23": {"litellm 1.59.12"}, "2025-02-04": {"litellm 1.60.2"}})
        kept, removed = screen.restated_limits(s)
        self.assertEqual(prices(kept), [("2025-01-23", "65536"), ("2025-09-28", "131072")])
        self.assertEqual(kept[0].srcs, {"litellm 1.59.12", "litellm 1.60.2"})
        self.assertEqual(prices(removed), [("2025-02-04", "65536")])


class BundledRowShutdown(unittest.TestCase):
    """The bundled snapshot: xAI's retired ids keep xAI's own prices, not grok-4.3's."""

    @classmethod
    def setUpClass(cls):
        cls.snap, cls.models, cls.quarantine = bundled()

    def current(self, model, channel, component):
        row = next(p for p in self.snap["prices"] if (p["model"], p["channel"], p["component"], p["tier"])
                   == (model, channel, component, "standard"))
        return row["history"][-1]["price"]

    def test_grok_4_on_xai_is_priced_as_on_azure(self):
        # xAI's models page (docs.x.ai, archived 2025-06-02, https://archive.fo/dYUtw) lists grok-3
        # at $3.00 / $15.00 and grok-3-mini at $0.30 / $0.50; Azure sells grok-4 at 3 / 15
        for model, want in (("xai:grok-4", ("3", "15")), ("xai:grok-3-beta", ("3", "15")),
                            ("xai:grok-3-mini", ("0.3", "0.5")), ("xai:grok-3-mini-fast", ("0.6", "4"))):
            self.assertEqual((self.current(model, "official", "input"), self.current(model, "official", "output")), want)
        self.assertEqual(self.current("xai:grok-4", "azure", "output"), "15")
        late = [q for q in self.quarantine if q["model"] == "xai:grok-4" and q["rule"] == screen.AFTER_ROW_SHUTDOWN]
        self.assertIn(("official", "input", "1.25"), {(q["channel"], q["component"], s["price"]) for q in late for s in q["steps"]})


def release(rows, kind="embedding"):
    """{series key: (price per 1M, kind)} of one release from (maker, model, channel, price) rows,
    input tokens, standard tier."""
    return {((mk, m), ch, "input", "standard"): (Decimal(v), kind) for mk, m, ch, v in rows}


# litellm 1.109.1 (2026-11-12): Cohere's embedding rows on Cohere's API, per 1M input tokens
COHERE_1_109_1 = [("cohere", "embed-english-light-v3-0", "official", "0.1"), ("cohere", "embed-english-v3-0", "official", "0.1"),
                  ("cohere", "embed-multilingual-v3-0", "official", "0.1"), ("cohere", "embed-v4-0", "official", "0.12"),
                  ("cohere", "embed-v5-0-fast", "official", "0.08"), ("cohere", "embed-v5-0-pro", "official", "0.12"),
                  ("cohere", "embed-multilingual-light-v3-0", "official", "100")]
LIGHT = (("cohere", "embed-multilingual-light-v3-0"), "official", "input", "standard")


class UnitErrors(unittest.TestCase):
    def test_a_figure_1000_times_its_family_is_a_unit_error(self):
        # litellm 1.109.1 gives embed-multilingual-light-v3.0 input_cost_per_token 0.0001 (100 per
        # 1M); every other Cohere embedding model on Cohere's API is 0.08 to 0.12 per 1M
        found = screen.unit_errors({"litellm 1.109.1": release(COHERE_1_109_1)})
        self.assertEqual(list(found), [LIGHT])
        [(rel, against)] = found[LIGHT][Decimal(100)]
        self.assertEqual(rel, "litellm 1.109.1")
        self.assertIn("embed-v5-0-fast 0.08", against)

    def test_a_figure_1000_times_the_model_on_another_channel_is_a_unit_error(self):
        # the same release's `oci/cohere.embed-multilingual-light-v3.0` row: 1e-07 per token
        rows = release([COHERE_1_109_1[-1], ("cohere", "embed-multilingual-light-v3-0", "oci", "0.1")])
        found = screen.unit_errors({"litellm 1.109.1": rows})
        self.assertEqual(list(found), [LIGHT])
        self.assertEqual(found[LIGHT][Decimal(100)], [("litellm 1.109.1", "the model on oci at 0.1")])

    def test_a_family_of_one_decides_nothing(self):
        rows = release([COHERE_1_109_1[0], COHERE_1_109_1[-1]])
        self.assertEqual(screen.unit_errors({"litellm 1.109.1": rows}), {})

    def test_an_expensive_model_of_a_cheap_family_is_no_unit_error(self):
        # litellm 1.53.1: OpenRouter's mistral-large output 24 per 1M (Mistral Large 2402's true
        # price) beside Mistral 7B Instruct 0.13 and Mixtral 8x22B 0.65: 37 to 185 times its family,
        # not 1,000 times their level; the release's chat rows of Mistral on OpenRouter
        rows = {(("mistral", m), "openrouter", "output", "standard"): (Decimal(v), "chat")
                for m, v in (("mistral-large", "24"), ("mistral-7b-instruct", "0.13"), ("mixtral-8x22b-instruct", "0.65"))}
        self.assertEqual(screen.unit_errors({"litellm 1.53.1": rows}), {})

    def test_another_kind_is_no_family(self):
        # the same figures with the light model's row a chat row: no embedding family to compare
        rows = release(COHERE_1_109_1[:-1])
        rows[LIGHT] = (Decimal(100), "chat")
        self.assertEqual(screen.unit_errors({"litellm 1.109.1": rows}), {})

    def test_only_the_slipped_figure_is_dropped(self):
        wrong = {Decimal(100): [("litellm 1.109.1", "the model on oci at 0.1")]}
        s = steps(("2025-11-26", "100"), ("2026-12-01", "0.1"),
                  srcs={"2025-11-26": {"litellm 1.109.1", "llmledger 0.2.0"}, "2026-12-01": {"litellm 1.110.0"}})
        kept, removed, detail = screen.drop_unit_errors(s, wrong)
        self.assertEqual((prices(kept), prices(removed)), ([("2026-12-01", "0.1")], [("2025-11-26", "100")]))
        self.assertEqual(detail, "100 against the model on oci at 0.1 (litellm 1.109.1)")

    def test_a_figure_another_lineage_gives_stays(self):
        s = steps(("2025-11-26", "100"), srcs={"2025-11-26": {"litellm 1.109.1", "genai-prices 0.2.3"}})
        self.assertEqual(screen.drop_unit_errors(s, {Decimal(100): [("litellm 1.109.1", "x")]}), (s, [], None))


class BundledUnitError(unittest.TestCase):
    """The bundled snapshot: Cohere's embed-multilingual-light-v3.0 stays listed, with no price."""

    def test_the_slipped_series_is_left_out_and_the_model_listed(self):
        snap, models, quarantine = bundled()
        self.assertIn("cohere:embed-multilingual-light-v3.0", models)
        self.assertFalse([p for p in snap["prices"] if p["model"] == "cohere:embed-multilingual-light-v3.0"])
        hits = [q for q in quarantine if q["rule"] == screen.UNIT_ERROR]
        self.assertEqual([(q["model"], q["channel"], q["component"], [s["price"] for s in q["steps"]]) for q in hits],
                         [("cohere:embed-multilingual-light-v3.0", "official", "input", ["100"])])
        self.assertNotIn("cohere:embed-multilingual-light-v3.0", snap["report"]["coverage"]["not_served"])


if __name__ == "__main__":
    unittest.main()
