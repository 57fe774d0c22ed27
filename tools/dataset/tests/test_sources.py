"""What the sources' rows say: litellm's fields and rows (sources/litellm.py) and llmledger's
dated events (sources/llmledger.py).

Each test on a real excerpt of the sources (the source and release are named in it).
Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import unittest

from pipeline.resolve import genai_ref, litellm_ref, modelsdev_ref
from pipeline.sources import genai_prices, litellm, llmledger

from .helpers import bundled


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


class Resale(unittest.TestCase):
    """litellm 1.109.1 and genai-prices: Perplexity's API lists other makers' open models under
    its own prefix (`perplexity/perplexity/kimi-k3`, 3 / 15: Moonshot's Kimi K3). Found by the
    lifecycle audit of 2026-11-26 (tests/fixtures/truth/audit-2026-11-26-s28-samples.md): the
    reseller's row was published as a Perplexity model on the official channel, its listing day
    as a launch."""

    def ref(self, key):
        return litellm_ref(key, {"litellm_provider": "perplexity", "mode": "chat"}, "moonshot")

    def test_another_makers_model_under_the_apis_own_prefix_is_a_resale(self):
        for key in ("perplexity/perplexity/kimi-k3", "perplexity/perplexity/glm-5.3",
                    "perplexity/perplexity/nemotron-3-ultra-550b-a55b",
                    "perplexity/perplexity/deepseek-v4-pro-0813"):
            self.assertEqual(self.ref(key), (None, "resold_on_another_makers_api"), key)
        self.assertEqual(genai_ref("perplexity", "perplexity/kimi-k3"), (None, "resold_on_another_makers_api"))
        self.assertEqual(modelsdev_ref("perplexity", "perplexity/kimi-k3").channel, "other")

    def test_the_apis_own_models_stay_its_own(self):
        for key, model in (("perplexity/perplexity/sonar", "sonar"), ("perplexity/sonar-pro", "sonar-pro"),
                           ("perplexity/pplx-embed-v1-4b", "pplx-embed-v1-4b")):
            ref, _why = self.ref(key)
            self.assertEqual((ref.channel, ref.maker, ref.mkey), ("official", "perplexity", model), key)


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


if __name__ == "__main__":
    unittest.main()


class GenaiNotTheMakersPrice(unittest.TestCase):
    """genai-prices' own note that its figure on a maker's provider is not the maker's USD price:
    OpenRouter's figure, or a yuan price converted at an exchange rate it chose (genai-prices 0.2.3
    data.py, providers openai, mistral and zhipuai). One predicate, one rule, the note its detail."""

    OSS = {"id": "gpt-oss-120b", "price_comments": "Imported from OpenRouter pricing; verify against OpenAI "
           "pricing when native API pricing is published."}
    ZHIPUAI = {"id": "zhipuai", "price_comments": "Prices sourced from Zhipu AI open platform pricing (CNY, "
               "open.bigmodel.cn/pricing), converted to USD at 1 USD = 7.25 CNY (May/June 2026). Zhipu AI does not "
               "publish USD prices; CNY is the only billing currency."}

    def test_a_price_imported_from_openrouter_is_not_the_makers(self):
        # provider openai, gpt-oss-120b at 0.039 / 0.18 (OpenRouter's figure; OpenAI's API sells no gpt-oss)
        self.assertEqual(genai_prices.not_the_makers_price({"id": "openai"}, self.OSS), self.OSS["price_comments"])
        # provider mistral, mistral-small-24b-instruct-2501 at 0.05 / 0.08
        small = {"price_comments": "Can't find pricing on this model, so just trusting open router"}
        self.assertEqual(genai_prices.not_the_makers_price({"id": "mistral"}, small), small["price_comments"])

    def test_a_price_verified_against_the_maker_or_only_seen_first_on_openrouter_stays(self):
        chat = {"price_comments": "Imported from OpenRouter pricing; verify against OpenAI pricing when native API "
                "pricing is published. Verified against OpenAI on 2026-10-15: the official Model ID is `chat-latest` "
                "(https://developers.openai.com/api/docs/models/chat-latest) and the published rates match this "
                "entry's $5 / $0.50 cached / $30 output per 1M tokens."}
        self.assertIsNone(genai_prices.not_the_makers_price({"id": "openai"}, chat))
        self.assertIsNone(genai_prices.not_the_makers_price({}, {"price_comments": "Seen on OpenRouter before OpenAI"}))
        self.assertIsNone(genai_prices.not_the_makers_price({}, {}))

    def test_a_price_converted_from_yuan_is_not_the_makers(self):
        # GLM-4-FlashX-250414 at 0.014 / 0.014: Zhipu's 0.1 yuan per 1M tokens / 7.25; the note is the provider's
        flashx = {"id": "GLM-4-FlashX-250414", "description": "Fast and cheap GLM-4 model with context caching."}
        self.assertEqual(genai_prices.not_the_makers_price(self.ZHIPUAI, flashx), self.ZHIPUAI["price_comments"])
        # the same words on a model of the provider: the model's own note is the one given
        glm = {"price_comments": "Standard API rates are 8 CNY input, 2 CNY cached input, and 28 CNY output per "
               "million tokens, converted to USD at 1 USD = 7.25 CNY."}
        self.assertEqual(genai_prices.not_the_makers_price(self.ZHIPUAI, glm), glm["price_comments"])

    def test_a_provider_that_publishes_usd_prices_stays(self):
        # MiniMax's international platform prices in USD; its note infers only three legacy models from CNY
        minimax = {"id": "minimax", "price_comments": "Prices sourced from MiniMax international platform USD pricing "
                   "(platform.minimax.io, May 2026). M2.1, M2.1-highspeed, and M2 are legacy models; prices inferred "
                   "from CNY pricing at the equivalent 7.00 CNY/USD rate used by the international platform for "
                   "current models."}
        self.assertIsNone(genai_prices.not_the_makers_price(minimax, {"id": "MiniMax-M2.5"}))

    def test_the_bundled_snapshot_prices_neither_on_the_makers_api_and_lists_both_alike(self):
        snap, models, quarantine = bundled()
        self.assertIn("zhipu:glm-4-flashx-250414", models)
        for model in ("openai:gpt-oss-120b", "zhipu:glm-4-flashx-250414"):
            self.assertFalse([p for p in snap["prices"] if p["model"] == model and p["channel"] == "official"])
        got = {(q["model"], q["component"], s["price"]): q for q in quarantine
               if q["rule"] == genai_prices.NOT_THE_MAKERS_PRICE for s in q["steps"]}
        oss, flashx = got[("openai:gpt-oss-120b", "input", "0.039")], got[("zhipu:glm-4-flashx-250414", "input", "0.014")]
        # the same shape for both: the genai-prices row and its note as the detail
        self.assertEqual(set(oss), set(flashx))
        self.assertEqual(oss["detail"], "openai/gpt-oss-120b: " + self.OSS["price_comments"])
        # (the provider's note goes on about tiers and cache writes; ZHIPUAI is its first part)
        self.assertTrue(flashx["detail"].startswith("zhipuai/GLM-4-FlashX-250414: " + self.ZHIPUAI["price_comments"]))
