"""Entity resolution's makers and merges on the real rows of the pinned sources
(docs/snapshot-format.md 5.1 and 5.3): other makers' fine-tunes sold under a base model's name,
one maker under two spellings, Bedrock's version without a `v`, Code Llama's three spellings, Jamba 1.6's two orders, Fireworks' Phi-2,
and the ids the snapshot published before, kept as aliases (tools/dataset/former_ids.json).
one maker under two spellings, Bedrock's version without a `v`, Code Llama's three spellings, a
fine-tune's price under its base model's id, and the ids the snapshot published before, kept as
aliases (tools/dataset/former_ids.json).
Standard library only.
"""
import gzip
import json
import unittest

from pipeline import FACTS, REPO
from pipeline.resolve import (LATEST_NAMES, OWN_API_NAMES, card_names, genai_ref, latest_named, litellm_ref,
                              modelsdev_ref)
from pipeline.snapshot import shown_name
from pipeline.sources.genai_prices import maker_hint


def entity(ref):
    return ref.maker, ref.mkey


class MakerFromTheName(unittest.TestCase):
    def test_a_fine_tune_named_after_llama_is_its_fine_tuners(self):
        # OpenRouter rows in genai-prices 0.2.3, once under a bare name, once under OpenRouter's own id
        for bare, own in (("llama-3-lumimaid-70b", "neversleep/llama-3-lumimaid-70b"),
                          ("llama-3.1-lumimaid-8b", "neversleep/llama-3.1-lumimaid-8b"),
                          ("llama3.1-typhoon2-70b-instruct", "scb10x/llama3.1-typhoon2-70b-instruct"),
                          ("codellama-7b-instruct-solidity", "alfredpros/codellama-7b-instruct-solidity")):
            a, _ = genai_ref("openrouter", bare)
            b, _ = genai_ref("openrouter", own)
            self.assertEqual(entity(a), entity(b), bare)
            self.assertNotEqual(a.maker, "meta", bare)

    def test_llama_nemotron_is_nvidias_on_every_host(self):
        a, _ = genai_ref("openrouter", "llama-3.3-nemotron-super-49b-v1")
        self.assertEqual(entity(a), ("nvidia", "llama-3-3-nemotron-super-49b-v1"))
        fw, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/llama-v3p1-nemotron-70b-instruct",
                            {"litellm_provider": "fireworks_ai"})
        orr, _ = genai_ref("openrouter", "nvidia/llama-3.1-nemotron-70b-instruct")
        self.assertEqual(entity(fw), entity(orr))
        self.assertEqual(fw.maker, "nvidia")

    def test_community_models_on_fireworks_keep_their_makers(self):
        cap, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/yi-34b-200k-capybara",
                             {"litellm_provider": "fireworks_ai"})
        self.assertEqual(cap.maker, "nousresearch")
        # llmledger names Black Forest Labs for InstantX's ControlNet; the name rule decides first
        cn, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/flux-1-dev-controlnet-union",
                            {"litellm_provider": "fireworks_ai"}, "black-forest-labs")
        self.assertEqual(cn.maker, "instantx")
        yi, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/yi-34b", {"litellm_provider": "fireworks_ai"})
        self.assertEqual(yi.maker, "01-ai")

    def test_zai_glm_on_mistrals_api_is_a_resale(self):
        ref, why = genai_ref("mistral", "zai-glm-5-3")
        self.assertIsNone(ref)
        self.assertEqual(why, "resold_on_another_makers_api")
        ref, why = litellm_ref("mistral/zai-glm-5-3-flash", {"litellm_provider": "mistral"})
        self.assertEqual(why, "resold_on_another_makers_api")

    def test_a_fireworks_router_path_names_no_maker(self):
        # genai-prices 0.2.3: Fireworks' "Ultramarine 1 Flash US" matches only a router path
        model = {"id": "ultramarine-1-flash-us",
                 "match": {"__t": "ClauseEquals", "equals": "accounts/fireworks/routers/ultramarine-1-flash-us"}}
        self.assertIsNone(maker_hint(model))
        ref, why = genai_ref("fireworks", model["id"], maker_hint(model))
        self.assertIsNone(ref)
        self.assertEqual(why, "maker_unknown")
        hinted = {"id": "goliath-120b", "match": {"__t": "ClauseEquals", "equals": "alpindale/goliath-120b"}}
        self.assertEqual(maker_hint(hinted), "alpindale")


class OneModel(unittest.TestCase):
    def test_one_maker_under_two_spellings(self):
        a, _ = genai_ref("together", "ricursive-ai/Ripple-65B-Preview")
        b, _ = genai_ref("openrouter", "ricursiveai/ripple-65b-preview")
        self.assertEqual(entity(a), entity(b))
        yi, _ = genai_ref("together", "zero-one-ai/Yi-34B")
        self.assertEqual(entity(yi), ("01-ai", "yi-34b"))

    def test_bedrocks_version_without_a_v_is_dropped(self):
        plain, _ = litellm_ref("openai.gpt-oss-120b-1:0", {"litellm_provider": "bedrock_converse"})
        mantle, _ = litellm_ref("bedrock_mantle/openai.gpt-oss-120b", {"litellm_provider": "bedrock_mantle"})
        self.assertEqual(entity(plain), entity(mantle))
        self.assertEqual(plain.version, (1, 0))
        self.assertEqual(modelsdev_ref("amazon-bedrock", "openai.gpt-oss-20b-1:0").mkey, "gpt-oss-20b")
        # a `-v` version is read as before
        claude, _ = litellm_ref("anthropic.claude-v2:1", {"litellm_provider": "bedrock"})
        self.assertEqual((claude.mkey, claude.version), ("claude", (2, 1)))

    def test_code_llamas_three_spellings_are_one_model_of_meta(self):
        fw, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/code-llama-34b-instruct",
                            {"litellm_provider": "fireworks_ai"})
        tg, _ = genai_ref("together", "codellama/CodeLlama-34b-Instruct-hf")
        orr, _ = litellm_ref("openrouter/meta-llama/codellama-34b-instruct", {"litellm_provider": "openrouter"})
        self.assertEqual({entity(fw), entity(tg), entity(orr)}, {("meta", "codellama-34b-instruct")})
        py, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/code-llama-34b-python",
                            {"litellm_provider": "fireworks_ai"})
        self.assertEqual(entity(py), ("meta", "codellama-34b-python"))

    def test_jamba_16_in_openrouters_order_is_ai21s_model(self):
        # genai-prices 0.2.3 (OpenRouter) and litellm 1.80.17 (AI21's own API): AI21 puts the size
        # first from 1.6 on; 1.5 keeps its own order on both
        for orr_id, own in (("ai21/jamba-1.6-large", "jamba-large-1.6"), ("ai21/jamba-1.6-mini", "jamba-mini-1.6")):
            orr, _ = genai_ref("openrouter", orr_id)
            off, _ = litellm_ref(own, {"litellm_provider": "ai21"})
            self.assertEqual(entity(orr), entity(off), orr_id)
            self.assertEqual(off.channel, "official")
        old, _ = litellm_ref("jamba-1.5-large", {"litellm_provider": "ai21"})
        self.assertEqual(entity(old), ("ai21", "jamba-1-5-large"))

    def test_fireworks_phi_2_3b_is_microsofts_phi_2(self):
        fw, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/phi-2-3b", {"litellm_provider": "fireworks_ai"})
        tg, _ = genai_ref("together", "microsoft/phi-2")
        self.assertEqual(entity(fw), entity(tg))
        self.assertEqual(entity(tg), ("microsoft", "phi-2"))

    def test_a_bedrock_version_the_makers_name_carries_is_the_makers_model(self):
        """Bedrock's version rule takes `-v14`, `-v3`, `-v4:0`, `-v2`, `-v1:0` off an id; where the
        maker's own name carries the version, the Bedrock id is still the maker's model
        (resolve.SAME_MODEL; Cohere's models page maps `command` to `cohere.command-text-v14`):
        litellm 1.109.1's keys and genai-prices 0.2.3's ids."""
        def ll(key, prov):
            ref, why = litellm_ref(key, {"litellm_provider": prov})
            self.assertIsNotNone(ref, (key, why))
            return entity(ref)
        pairs = (
            (ll("cohere.command-text-v14", "bedrock"), ll("command", "cohere"), ("cohere", "command")),
            (ll("cohere.command-light-text-v14", "bedrock"), ll("command-light", "cohere_chat"),
             ("cohere", "command-light")),
            (ll("cohere.embed-english-v3", "bedrock"), ll("embed-english-v3.0", "cohere"),
             ("cohere", "embed-english-v3-0")),
            (ll("cohere.embed-multilingual-v3", "bedrock"), ll("embed-multilingual-v3.0", "cohere"),
             ("cohere", "embed-multilingual-v3-0")),
            (ll("cohere.embed-v4:0", "bedrock"), ll("cohere/embed-v4.0", "cohere"), ("cohere", "embed-v4-0")),
            (ll("nvidia.nemotron-nano-9b-v2", "bedrock_converse"),
             entity(genai_ref("openrouter", "nvidia/nemotron-nano-9b-v2")[0]), ("nvidia", "nemotron-nano-9b-v2")),
            (ll("together_ai/nvidia/NVIDIA-Nemotron-Nano-9B-v2", "together_ai"),
             ll("fireworks_ai/accounts/fireworks/models/nvidia-nemotron-nano-9b-v2", "fireworks_ai"),
             ("nvidia", "nemotron-nano-9b-v2")),
            (ll("amazon.nova-lite-v1:0", "bedrock_converse"), entity(genai_ref("openrouter", "amazon/nova-lite-v1")[0]),
             ("amazon", "nova-lite")),
            (ll("amazon.nova-2-lite-v1:0", "bedrock_converse"), entity(genai_ref("openrouter", "amazon/nova-lite-v1")[0]),
             None),
        )
        for bedrock, other, same in pairs:
            if same:
                self.assertEqual((bedrock, other), (same, same))
            else:                   # Nova 2 Lite is not Nova Lite
                self.assertNotEqual(bedrock, other)

    def test_a_hosts_own_name_of_one_makers_model(self):
        # litellm 1.80.11's keys: Vertex AI's name of Claude Sonnet 3.5 (2024-10-22) is
        # `claude-3-5-sonnet-v2@20241022` (Anthropic's page of Claude on Vertex AI); Bedrock's Llama 3.2
        # 11B / 90B Instruct are Meta's Llama 3.2 11B / 90B Vision Instruct (the only 11B and 90B)
        def ll(key, prov):
            ref, why = litellm_ref(key, {"litellm_provider": prov})
            self.assertIsNotNone(ref, (key, why))
            return entity(ref)
        own = ll("claude-3-5-sonnet-20241022", "anthropic")
        for key in ("vertex_ai/claude-3-5-sonnet-v2@20241022", "vertex_ai/claude-3-5-sonnet-v2"):
            self.assertEqual(ll(key, "vertex_ai-anthropic_models"), own, key)
        self.assertNotEqual(ll("vertex_ai/claude-3-5-sonnet@20240620", "vertex_ai-anthropic_models"), own)
        for size in ("11", "90"):
            self.assertEqual(ll(f"meta.llama3-2-{size}b-instruct-v1:0", "bedrock"),
                             ll(f"fireworks_ai/accounts/fireworks/models/llama-v3p2-{size}b-vision-instruct", "fireworks_ai"))
        self.assertEqual(ll("meta.llama3-2-3b-instruct-v1:0", "bedrock"), ("meta", "llama-3-2-3b-instruct"))

    def test_vertex_ais_revision_of_jamba_is_ai21s_model(self):
        # litellm 1.109.1 prices `vertex_ai/jamba-1.5-large@001` beside `vertex_ai/jamba-1.5-large`, and
        # lists `jamba-1.5-mini@001` under AI21's own API beside `jamba-1.5-mini`: one model each
        for key, prov in (("vertex_ai/jamba-1.5-large@001", "vertex_ai-ai21_models"), ("jamba-1.5-mini@001", "ai21")):
            rev, _ = litellm_ref(key, {"litellm_provider": prov})
            plain, _ = litellm_ref(key.replace("@001", ""), {"litellm_provider": prov})
            self.assertEqual(entity(rev), entity(plain))
        self.assertEqual(entity(rev), ("ai21", "jamba-1-5-mini"))

    def test_one_model_two_channels_spell_apart(self):
        """resolve.SAME_MODEL on the real ids of the pinned sources: each pair is one model."""
        def ll(key):
            ref, _ = litellm_ref(key, {"litellm_provider": key.split("/")[0]})
            return entity(ref)
        pairs = (
            (ll("fireworks_ai/accounts/fireworks/models/snorkel-mistral-7b-pairrm-dpo"),
             entity(genai_ref("together", "snorkelai/Snorkel-Mistral-PairRM-DPO")[0])),
            (ll("together_ai/nvidia/Llama-3.1-Nemotron-70B-Instruct-HF"),
             ll("fireworks_ai/accounts/fireworks/models/llama-v3p1-nemotron-70b-instruct")),
            (ll("novita/sao10k/l3-8b-lunaris"), ll("openrouter/sao10k/l3-lunaris-8b")),
            (ll("novita/sao10k/l3-70b-euryale-v2.1"), ll("openrouter/sao10k/l3-euryale-70b")),
            (ll("novita/sao10k/l31-70b-euryale-v2.2"), ll("openrouter/sao10k/l3.1-euryale-70b")),
            (ll("fireworks_ai/accounts/fireworks/models/cogito-671b-v2-p1"),
             ll("openrouter/deepcogito/cogito-v2.1-671b")),
            (entity(genai_ref("together", "nvidia/NVIDIA-Nemotron-3.5-Super-VL")[0]),
             entity(genai_ref("openrouter", "nvidia/nemotron-3.5-super-vl")[0])),
            (ll("fireworks_ai/accounts/fireworks/models/dolphin-2p6-mixtral-8x7b"),
             entity(genai_ref("openrouter", "cognitivecomputations/dolphin-mixtral-8x7b")[0])),
        )
        for a, b in pairs:
            self.assertEqual(a[1], b[1])
        self.assertEqual(pairs[0][1], ("snorkelai", "snorkel-mistral-pairrm-dpo"))
        # the Llama 3 Euryale v2.1 and the Llama 3.1 Euryale v2.2 stay two models
        self.assertNotEqual(pairs[3][0], pairs[4][0])
    def test_a_fine_tunes_price_under_its_base_id_is_the_ft_model(self):
        # genai-prices 0.2.3 prices fine-tuned GPT-4o mini twice, both "GPT-4o Mini fine tuned." at
        # 0.3 / 1.2 USD: as `ft:gpt-4o-mini` (matching `ft:gpt-4o-mini-2024-`) and as
        # `gpt-4o-mini-2024-07-18.ft-` (matching ids starting so); the dated key joins its undated base
        ft, _ = genai_ref("openai", "ft:gpt-4o-mini")
        dotted, _ = genai_ref("openai", "gpt-4o-mini-2024-07-18.ft-")
        self.assertEqual(entity(ft), ("openai", "ft-gpt-4o-mini"))
        self.assertEqual(entity(dotted), ("openai", "ft-gpt-4o-mini-2024-07-18"))
        # the base model itself is untouched
        base, _ = genai_ref("openai", "gpt-4o-mini-2024-07-18")
        self.assertEqual(entity(base), ("openai", "gpt-4o-mini-2024-07-18"))
    def test_deepseeks_r1_0528_distill_into_qwen3_8b_is_one_model_under_fireworks_and_novitas_ids(self):
        fw, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/deepseek-r1-0528-distill-qwen3-8b",
                            {"litellm_provider": "fireworks_ai"})
        nv, _ = litellm_ref("novita/deepseek/deepseek-r1-0528-qwen3-8b", {"litellm_provider": "novita"})
        self.assertEqual({entity(fw), entity(nv)}, {("deepseek", "deepseek-r1-0528-qwen3-8b")})
        # the earlier distills keep DeepSeek's own `-distill-` names
        old, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/deepseek-r1-distill-qwen-7b",
                             {"litellm_provider": "fireworks_ai"})
        self.assertEqual(entity(old), ("deepseek", "deepseek-r1-distill-qwen7b"))

    def test_baidus_paddle_and_pytorch_weights_of_an_ernie_4_5_model_are_one_model(self):
        fw, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/ernie-4p5-300b-a47b-pt",
                            {"litellm_provider": "fireworks_ai"})
        nv, _ = litellm_ref("novita/baidu/ernie-4.5-300b-a47b-paddle", {"litellm_provider": "novita"})
        orr, _ = litellm_ref("openrouter/baidu/ernie-4.5-300b-a47b", {"litellm_provider": "openrouter"})
        self.assertEqual({entity(fw), entity(nv), entity(orr)}, {("baidu", "ernie-4-5-300b-a47b")})
        small, _ = litellm_ref("fireworks_ai/accounts/fireworks/models/ernie-4p5-21b-a3b-pt",
                               {"litellm_provider": "fireworks_ai"})
        self.assertEqual(entity(small), ("baidu", "ernie-4-5-21b-a3b"))
        # the thinking model stays its own
        th, _ = litellm_ref("novita/baidu/ernie-4.5-21B-a3b-thinking", {"litellm_provider": "novita"})
        self.assertEqual(entity(th), ("baidu", "ernie-4-5-21b-a3b-thinking"))

    def test_minimaxs_m2_her_is_openrouters_minimax_m2_her(self):
        official, _ = genai_ref("minimax", "M2-her")
        orr, _ = litellm_ref("openrouter/minimax/minimax-m2-her", {"litellm_provider": "openrouter"})
        self.assertEqual(entity(official), entity(orr))
        self.assertEqual(official.channel, "official")

    def test_xais_grok_4_20_beta_reasoning_and_gv2_are_grok_4_20_reasoning(self):
        # litellm 1.109.1 prices the three keys on xAI's API; xAI's model page lists them among the
        # aliases of one model (tools/dataset/former_ids.json)
        def ll(key):
            ref, _ = litellm_ref(key, {"litellm_provider": "xai"})
            return entity(ref)
        merged = {ll("xai/grok-4.20-beta-reasoning"), ll("xai/grok-4.20-reasoning-gv2"),
                  ll("xai/grok-4.20-reasoning")}
        self.assertEqual(merged, {("xai", "grok-4-20-reasoning")})
        # and xAI's page of the non-reasoning model lists the non-reasoning gv2 id among its aliases
        self.assertEqual({ll("xai/grok-4.20-non-reasoning-gv2"), ll("xai/grok-4.20-non-reasoning")},
                         {("xai", "grok-4-20-non-reasoning")})

    def test_azures_gpt_35_is_openais_gpt_3_5(self):
        # litellm 1.100.1 prices Azure's `azure/gpt-35-turbo-1106` and OpenAI's `gpt-3.5-turbo-1106`:
        # Azure's spelling of one OpenAI model (audit-2026-11-26-s30-announced.md #3)
        azure, _ = litellm_ref("azure/gpt-35-turbo-1106", {"litellm_provider": "azure"})
        openai, _ = litellm_ref("gpt-3.5-turbo-1106", {"litellm_provider": "openai"})
        self.assertEqual(entity(azure), ("openai", "gpt-3-5-turbo-1106"))
        self.assertEqual(entity(azure), entity(openai))

    def test_vertex_ais_revision_of_a_mistral_model_is_mistrals_model(self):
        # litellm 1.100.1 prices `vertex_ai/mistral-large@2411-001` beside `vertex_ai/mistral-large-2411`
        # (audit-2026-11-26-s30-announced.md #1), and `mistral-small-2503@001` beside `mistral-small-2503`
        def vx(key):
            ref, _ = litellm_ref(key, {"litellm_provider": "vertex_ai-mistral_models"})
            return entity(ref)
        self.assertEqual({vx("vertex_ai/mistral-large@2411-001"), vx("vertex_ai/mistral-large-2411")},
                         {("mistral", "mistral-large-2411")})
        self.assertEqual(vx("vertex_ai/mistral-small-2503@001"), vx("vertex_ai/mistral-small-2503"))
        # Google's own `-001` is a version of its own (gemini-2.0-flash-001), not Vertex AI's revision
        g, _ = litellm_ref("gemini-2.0-flash-001", {"litellm_provider": "vertex_ai-language-models"})
        self.assertEqual(entity(g), ("google", "gemini-2-0-flash-001"))


    def test_mistrals_own_mistral_medium_3_is_medium_3_5_and_vertexs_is_medium_3(self):
        # litellm 1.100.5: `mistral/mistral-medium-3` 1.5 / 7.5 beside `mistral/mistral-medium-3-5`
        # 1.5 / 7.5; `vertex_ai/mistral-medium-3` and OpenRouter's `mistralai/mistral-medium-3` 0.4 / 2.
        # Mistral's card of Mistral Medium 3.5 lists `mistral-medium-3` among its apiNames
        # (tools/dataset/mistral_releases.json)
        releases = json.loads((FACTS / "mistral_releases.json").read_text())["releases"]
        card = next(r for r in releases if r["model"] == "mistral:mistral-medium-3-5")
        self.assertIn("mistral-medium-3", card["api_names"])
        own, _ = litellm_ref("mistral/mistral-medium-3", {"litellm_provider": "mistral"})
        self.assertEqual(entity(own), entity(litellm_ref("mistral/mistral-medium-3-5", {"litellm_provider": "mistral"})[0]))
        self.assertEqual(entity(own), ("mistral", "mistral-medium-3-5"))
        vx, _ = litellm_ref("vertex_ai/mistral-medium-3", {"litellm_provider": "vertex_ai-mistral_models"})
        orr, _ = litellm_ref("openrouter/mistralai/mistral-medium-3", {"litellm_provider": "openrouter"})
        self.assertEqual({entity(vx), entity(orr)}, {("mistral", "mistral-medium-3")})


class CardNames(unittest.TestCase):
    """The ids Mistral's model cards (tools/dataset/mistral_releases.json, Mistral's model schema at
    mistralai/platform-docs-public 222f4ba9) give a model under another card's model's name: one
    derivation for the maker's own ids and its `-latest` ids."""

    @classmethod
    def setUpClass(cls):
        cls.cards = json.loads((FACTS / "mistral_releases.json").read_text())["releases"]

    def test_the_cards_give_the_ids_that_name_another_cards_model(self):
        self.assertEqual(card_names(self.cards), {
            # "Mistral Medium 3.5 (mistral-medium-3-5-26-04)": ['mistral-medium-3-5', 'mistral-medium-3',
            # 'mistral-medium-latest'], beside the card "Mistral Medium 3 (mistral-medium-3-25-05)"
            "mistral-medium-3": ("mistral-medium-3-5", "2026-04-28"),
            # "Ministral 3 8B (ministral-3-8b-25-12)": ['ministral-8b-2512', 'ministral-8b-latest'],
            # beside "Ministral 8B (ministral-8b-24-1)": ['ministral-8b-2410']
            "ministral-8b-latest": ("ministral-8b-2512", "2025-12-02"),
            # "Ministral 3 3B (ministral-3-3b-25-12)": ['ministral-3b-2512', 'ministral-3b-latest'],
            # beside "Ministral 3B (ministral-3b-24-1)": ['ministral-3b-2410']
            "ministral-3b-latest": ("ministral-3b-2512", "2025-12-02")})
        self.assertEqual(OWN_API_NAMES, {"mistral-medium-3": "mistral-medium-3-5"})
        self.assertEqual(LATEST_NAMES, {("mistral", "ministral-8b-latest"): ("ministral-8b-2512", "2025-12-02"),
                                        ("mistral", "ministral-3b-latest"): ("ministral-3b-2512", "2025-12-02")})

    def test_an_id_of_its_own_cards_name_or_of_two_cards_is_left_to_the_general_rules(self):
        codestral = next(c for c in self.cards if c["provider_model"] == "Codestral (codestral-25-08)")
        self.assertEqual(codestral["api_names"], ["codestral-2508", "codestral-latest"])
        voxtral = [c["provider_model"] for c in self.cards if "voxtral-mini-latest" in c["api_names"]]
        self.assertEqual(voxtral, ["Voxtral Mini (voxtral-mini-25-07)", "Voxtral Mini Transcribe 2 (voxtral-mini-transcribe-26-02)"])
        self.assertEqual(card_names([codestral]), {})
        # alone, Voxtral Mini Transcribe 2's card would give Voxtral Mini's name to its model
        transcribe = [c for c in self.cards if c["provider_model"].startswith(("Voxtral Mini (", "Voxtral Mini Transcribe 2"))]
        self.assertEqual(card_names(transcribe[1:] + [{**transcribe[0], "api_names": ["voxtral-mini-2507"]}]),
                         {"voxtral-mini-latest": ("voxtral-mini-2602", "2026-02-04")})
        self.assertEqual(card_names(transcribe), {})


class LatestAlias(unittest.TestCase):
    """A `-latest` id that the maker's card gives to one dated model names that model
    (audit-2026-11-26-s30-announced.md #19; CardNames)."""

    def test_ministral_3b_latest_names_ministral_3_3b(self):
        # litellm 1.100.5 on prices Mistral's `mistral/ministral-3b-latest` at 0.1 / 0.1, Ministral 3 3B's
        # price; Mistral's card of Ministral 3B 24.10 ("Ministral 3B (ministral-3b-24-1)") prices it at
        # 0.04 / 0.04, `apiNames: ['ministral-3b-2410']`, retired 2025-12-31 (replacement Ministral 3 3B);
        # the commit of 2025-12-02 (platform-docs-public 4975b095) moved `ministral-3b-latest` off that card
        latest, _ = litellm_ref("mistral/ministral-3b-latest", {"litellm_provider": "mistral"})
        dated, _ = litellm_ref("mistral/ministral-3b-2512", {"litellm_provider": "mistral"})
        self.assertEqual(latest_named(*entity(latest)), dated.mkey)
        self.assertEqual(latest_named(*entity(latest), "2024-10-09"), "ministral-3b")
        snap = json.loads(gzip.decompress((REPO / "data" / "snapshot.json.gz").read_bytes()))
        models = {m["id"]: m for m in snap["models"]}
        self.assertIn("mistral:ministral-3b-latest", {a["id"] for a in models["mistral:ministral-3b-2512"]["aliases"]})
        old = models["mistral:ministral-3b"]
        self.assertEqual((old["status"], old["retirement_date"], old["successor"], old["context_window"]),
                         ("deprecated", "2025-12-31", "mistral:ministral-3b-2512", 128000))
        official = {p["component"]: [(h["from"], h["price"]) for h in p["history"]]
                    for p in snap["prices"] if p["model"] == "mistral:ministral-3b" and p["channel"] == "official"}
        self.assertEqual(official, {c: [("2024-10-09", "0.04"), ("2025-12-31", None)] for c in ("input", "output")})

    def test_ministral_8b_latest_names_ministral_3_8b_from_the_cards_move(self):
        # litellm 1.104.5 prices Mistral's `mistral/ministral-8b-latest` and `mistral/ministral-8b-2512`
        # (Mistral's card of Ministral 3 8B: apiNames ['ministral-8b-2512', 'ministral-8b-latest'])
        latest, _ = litellm_ref("mistral/ministral-8b-latest", {"litellm_provider": "mistral"})
        dated, _ = litellm_ref("mistral/ministral-8b-2512", {"litellm_provider": "mistral"})
        self.assertEqual(latest_named(*entity(latest)), dated.mkey)
        # models.dev 1.0.398 lists `mistral/ministral-8b-latest` with release_date 2024-10-01, Ministral
        # 8B 24.10's figures: a listing dated before the move (2025-12-02) is the model it named then
        md = modelsdev_ref("mistral", "ministral-8b-latest")
        self.assertEqual(latest_named(*entity(md), "2024-10-01"), "ministral-8b")
        self.assertEqual(latest_named(*entity(md), "2025-12-02"), "ministral-8b-2512")
        # any other `-latest` id is left to the general rule (entities.entity_of)
        other, _ = litellm_ref("mistral/mistral-large-latest", {"litellm_provider": "mistral"})
        self.assertIsNone(latest_named(*entity(other)))

    def test_on_the_snapshot_the_alias_is_ministral_3_8bs_and_ministral_8b_keeps_its_own(self):
        snap = json.loads(gzip.decompress((REPO / "data" / "snapshot.json.gz").read_bytes()))
        models = {m["id"]: m for m in snap["models"]}
        self.assertIn("mistral:ministral-8b-latest", {a["id"] for a in models["mistral:ministral-8b-2512"]["aliases"]})
        old = models["mistral:ministral-8b"]
        self.assertNotIn("mistral:ministral-8b-latest", {a["id"] for a in old["aliases"]})
        # Ministral 8B 24.10: Mistral retired it on 2025-12-31 (notices/mistral.json); its own price 0.1
        self.assertEqual((old["status"], old["retirement_date"], old["successor"]),
                         ("deprecated", "2025-12-31", "mistral:ministral-8b-2512"))
        official = [p for p in snap["prices"] if p["model"] == "mistral:ministral-8b" and p["channel"] == "official"]
        self.assertTrue(official)
        for p in official:
            self.assertEqual([(h["from"], h["price"]) for h in p["history"]], [("2024-10-09", "0.1"), ("2025-12-31", None)])


    def test_the_pinned_model_is_not_titled_latest(self):
        # models.dev names `mistral/ministral-8b` "Ministral 8B (latest)"; since the card gave
        # `ministral-8b-latest` to Ministral 3 8B, that title would call the pinned Ministral 8B 24.10 the
        # moving alias: snapshot.shown_name drops it (audit-2026-11-27-s32-dups.md)
        snap = json.loads(gzip.decompress((REPO / "data" / "snapshot.json.gz").read_bytes()))
        models = {m["id"]: m for m in snap["models"]}
        self.assertEqual(models["mistral:ministral-8b"]["name"], "Ministral 8B")
        moved = {"mistral:ministral-8b-latest": "mistral:ministral-8b-2512"}
        self.assertEqual(shown_name("Ministral 8B (latest)", "mistral:ministral-8b", moved), "Ministral 8B")
        self.assertEqual(shown_name("Ministral 8B (latest)", "mistral:ministral-8b", {}), "Ministral 8B (latest)")
        # no published "(latest)" title is on a model whose `-latest` id another model holds
        latest_of = {a["id"]: m["id"] for m in snap["models"] for a in m["aliases"] if a["id"].endswith("-latest")}
        for m in snap["models"]:
            if "(latest)" in m["name"]:
                self.assertEqual(latest_of.get(m["id"] + "-latest", m["id"]), m["id"], m["id"])


class FormerIds(unittest.TestCase):
    """On the bundled snapshot: every former id resolves to the model it names now."""

    @classmethod
    def setUpClass(cls):
        cls.rows = json.loads((FACTS / "former_ids.json").read_text())["rows"]
        snap = json.loads(gzip.decompress((REPO / "data" / "snapshot.json.gz").read_bytes()))
        cls.models = {m["id"]: m for m in snap["models"]}

    def test_each_former_id_is_an_alias_of_its_model(self):
        self.assertGreater(len(self.rows), 0)
        for r in self.rows:
            self.assertNotIn(r["id"], self.models, r["id"])
            aliases = {a["id"]: a for a in self.models[r["model"]]["aliases"]}
            self.assertEqual(aliases[r["id"]]["kind"], "renamed_slug", r["id"])

    def test_a_merged_duplicate_carries_its_models_lifecycle(self):
        # Vertex AI's `mistral-large@2411-001` and Azure's `gpt-35-turbo-1106` were records of their own,
        # active with no lifecycle; folded, they are aliases of the models Mistral and OpenAI deprecated
        for former, model, retired in (("mistral:mistral-large-2411-001", "mistral:mistral-large-2411", "2026-05-31"),
                                       ("openai:gpt-35-turbo-1106", "openai:gpt-3.5-turbo-1106", "2026-09-28")):
            m = self.models[model]
            self.assertIn(former, {a["id"] for a in m["aliases"]})
            self.assertEqual((m["status"], m["retirement_date"]), ("deprecated", retired))

    def test_a_merged_model_keeps_the_launch_read_under_a_former_id(self):
        # tools/dataset/listings/announced.json dates Code Llama 7B Instruct under the ids Together's
        # and Fireworks' rows had: the merged model keeps the day read on Meta's repository
        m = self.models["meta:codellama-7b-instruct-hf"]
        self.assertEqual((m["launch_date"], m["launch_basis"]), ("2023-08-24", "announced"))
        # ...and both channels' ids are its own
        channels = {a["channel"] for a in m["aliases"]}
        self.assertLessEqual({"fireworks", "together"}, channels)


if __name__ == "__main__":
    unittest.main()
