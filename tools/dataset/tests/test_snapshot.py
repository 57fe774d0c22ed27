"""A series' end and the sources of its steps (events.py), the snapshot's rows and bytes
(render.py), and the conditional rates of the bundled data/snapshot.json.gz.

Each test on a real excerpt of the sources (the source and release are named in it).
Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import gzip
import json
import unittest

from pipeline import REPO, events, quality, render
from pipeline.sources import litellm

from .helpers import prices, steps


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


class LimitEvents(unittest.TestCase):
    """deepseek-chat's limits history as the bundled snapshot has it (DeepSeek's news of 2024-12-26
    and 2025-08-21): the report counts the events the publish emits, one per limit that moved."""

    def test_an_entry_moving_two_limits_is_two_events(self):
        snap = {"models": [{"id": "deepseek:deepseek-chat", "limits": [
            {"from": "2024-05-07", "context_window": 128000, "max_output_tokens": 4096},
            {"from": "2024-12-26", "context_window": 65536, "max_output_tokens": 8192},
            {"from": "2025-08-21", "context_window": 131072, "max_output_tokens": 8192}]}]}
        got = [entry["from"] for _m, entry in quality.limit_events(snap, "2024-11-01")]
        self.assertEqual(got, ["2024-12-26", "2024-12-26", "2025-08-21"])
        self.assertEqual(len(list(quality.limit_events(snap, "2025-01-01"))), 1)


if __name__ == "__main__":
    unittest.main()
