"""Tests of the rules that keep a figure that is no per-token price out of prices[] (snapshot.py,
Snapshot.kept): a channel that bills the model per character (litellm.per_character), an image
model on a channel that bills images per step (kinds.PER_STEP_IMAGE_CHANNELS) and a maker's price
genai-prices itself says is not the maker's (genai_prices.not_the_makers_price), each on the real
source rows (litellm releases named in each test), and the bundled snapshot's result. Standard
library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import json
import unittest

from pipeline import REPO, kinds, screen
from pipeline.inputs import per_character_keys
from pipeline.snapshot import Snapshot
from pipeline.sources.genai_prices import NOT_THE_MAKERS_PRICE
from pipeline.sources.litellm import per_character
from pipeline.tally import Tally

from .helpers import bundled, steps

# litellm 1.77.5, `gemini-1.5-flash-exp-0827` (vertex_ai-language-models), its price fields
GEMINI_15_FLASH_EXP = {
    "input_cost_per_audio_per_second": 2e-06, "input_cost_per_character": 1.875e-08,
    "input_cost_per_character_above_128k_tokens": 2.5e-07, "input_cost_per_image": 2e-05,
    "input_cost_per_token": 4.688e-09, "input_cost_per_token_above_128k_tokens": 1e-06,
    "input_cost_per_video_per_second": 2e-05, "litellm_provider": "vertex_ai-language-models",
    "mode": "chat", "output_cost_per_character": 1.875e-08,
    "output_cost_per_character_above_128k_tokens": 3.75e-08, "output_cost_per_token": 4.6875e-09,
    "output_cost_per_token_above_128k_tokens": 9.375e-09}
# litellm 1.82.1, `textembedding-gecko` (vertex_ai-embedding-models)
GECKO = {"input_cost_per_character": 2.5e-08, "input_cost_per_token": 1e-07,
         "litellm_provider": "vertex_ai-embedding-models", "mode": "embedding", "output_cost_per_token": 0}
# litellm 1.103.0, `gemini-2.0-flash` (vertex_ai-language-models): Vertex prices it per token
GEMINI_20_FLASH = {"input_cost_per_character": 3.75e-08, "input_cost_per_token": 1.5e-07,
                   "input_cost_per_token_batches": 7.5e-08, "litellm_provider": "vertex_ai-language-models",
                   "mode": "chat", "output_cost_per_token": 6e-07, "output_cost_per_token_batches": 3e-07}
# litellm 1.109.1, `fireworks_ai/accounts/fireworks/models/flux-1-dev-controlnet-union`
FLUX_CONTROLNET = {"max_input_tokens": 4096, "max_output_tokens": 4096, "input_cost_per_token": 1e-09,
                   "output_cost_per_token": 1e-09, "litellm_provider": "fireworks_ai", "mode": "chat"}

FLASH_EXP = ("google", "gemini-1.5-flash-exp-0827")
FLASH_20 = ("google", "gemini-2.0-flash")
CONTROLNET = ("instantx", "flux-1-dev-controlnet-union")
BGE_M3 = ("baai", "bge-m3")


def snapshot(lit_best, kind_by_ent, gen_of=None):
    """The part of Snapshot that `kept` reads: the litellm rows per (entity, channel) and release,
    the genai-prices rows per (entity, channel), the models' kinds."""
    snap = Snapshot.__new__(Snapshot)
    snap.lit_best, snap.kind_by_ent, snap.tally, snap.unpriced = lit_best, kind_by_ent, Tally(), set()
    snap.gen_of, snap.channel_screens = gen_of or {}, {}
    snap.per_character_keys = per_character_keys()
    return snap


def series(*pairs):
    return {"steps": steps(*pairs)}


class PerCharacter(unittest.TestCase):
    def test_a_row_with_a_per_character_price_beside_each_per_token_one_is_billed_per_character(self):
        self.assertTrue(per_character(GEMINI_15_FLASH_EXP))
        self.assertTrue(per_character(GECKO))        # an embedding: input only

    def test_a_per_token_output_with_no_per_character_output_is_a_per_token_row(self):
        self.assertFalse(per_character(GEMINI_20_FLASH))
        self.assertFalse(per_character(FLUX_CONTROLNET))

    def test_the_series_of_a_per_character_row_is_left_out_and_listed(self):
        snap = snapshot({(FLASH_EXP, "vertex"): {0: ((0,), "gemini-1.5-flash-exp-0827", GEMINI_15_FLASH_EXP, None)},
                         (FLASH_20, "vertex"): {0: ((0,), "gemini-2.0-flash", GEMINI_20_FLASH, None)}},
                        {FLASH_EXP: "chat", FLASH_20: "chat"})
        self.assertFalse(snap.kept((FLASH_EXP, "vertex", "input", "standard"), series(("2024-11-28", "0.004688"))))
        self.assertTrue(snap.kept((FLASH_20, "vertex", "input", "standard"), series(("2025-04-30", "0.15"))))
        (key, rule, dropped, _detail), = snap.tally.screened
        self.assertEqual((key[:3], rule, dropped), ((FLASH_EXP, "vertex", "input"), screen.PER_CHARACTER,
                                                    [("2024-11-28", "0.004688", [])]))
        self.assertEqual(snap.unpriced, {FLASH_EXP})

    def test_a_per_character_row_in_any_release_makes_the_channel_per_character(self):
        # textembedding-gecko: litellm 1.53.1 gives 6.25e-09 per token and no per-character price,
        # 1.53.8 on add 2.5e-08 per character beside 1e-07 per token
        early = {"input_cost_per_token": 6.25e-09, "output_cost_per_token": 0, "mode": "embedding"}
        gecko = ("google", "textembedding-gecko")
        snap = snapshot({(gecko, "vertex"): {0: ((0,), "textembedding-gecko", early, None),
                                             1: ((0,), "textembedding-gecko", GECKO, None)}}, {gecko: "embedding"})
        self.assertFalse(snap.kept((gecko, "vertex", "input", "standard"), series(("2024-11-28", "0.1"))))

    def test_the_channel_is_read_once_per_model_and_channel(self):
        # every series of Gemini 1.5 Flash exp on Vertex (input, output, a context tier) is screened
        # by what its rows said when the first was: the rows are not read again
        rows = {0: ((0,), "gemini-1.5-flash-exp-0827", GEMINI_15_FLASH_EXP, None)}
        snap = snapshot({(FLASH_EXP, "vertex"): rows}, {FLASH_EXP: "chat"})
        self.assertFalse(snap.kept((FLASH_EXP, "vertex", "input", "standard"), series(("2024-11-28", "0.004688"))))
        rows.clear()
        self.assertFalse(snap.kept((FLASH_EXP, "vertex", "output", "standard"), series(("2024-11-28", "0.004688"))))
        self.assertFalse(snap.kept((FLASH_EXP, "vertex", "input", "standard", 128000, None, None, None),
                                   series(("2024-11-28", "1"))))
        self.assertEqual([rule for _k, rule, _s, _d in snap.tally.screened], [screen.PER_CHARACTER] * 3)
        self.assertEqual(list(snap.channel_screens), [(FLASH_EXP, "vertex")])


    def test_a_row_a_provider_page_bills_per_character_is_listed_with_its_page(self):
        # litellm 1.82.1 `code-gecko` (vertex_ai-code-text-models): 1.25e-07 per token in and out,
        # no per-character field; Google's legacy pricing page bills Codey models per character
        row = {"input_cost_per_token": 1.25e-07, "output_cost_per_token": 1.25e-07, "mode": "completion",
               "litellm_provider": "vertex_ai-code-text-models"}
        gecko = ("google", "code-gecko")
        self.assertFalse(per_character(row))
        snap = snapshot({(gecko, "vertex"): {0: ((0,), "code-gecko", row, None)}}, {gecko: "chat"})
        self.assertFalse(snap.kept((gecko, "vertex", "output", "standard"), series(("2024-11-28", "0.125"))))
        self.assertEqual(snap.tally.screened[0][1], screen.PER_CHARACTER)
        listed = json.loads((REPO / "tools/dataset/per_character.json").read_text())["rows"]
        self.assertTrue(all(r["url"].startswith("https://") and r["read"] and r["says"] for r in listed))
        self.assertEqual([r["key"] for r in listed], sorted(r["key"] for r in listed))


class NotTheMakersPrice(unittest.TestCase):
    """genai-prices 0.2.3's rows whose own note says the figure on the maker's provider is not the
    maker's USD price (genai_prices.not_the_makers_price): screened in `kept` alike, the note the
    detail; the same figure on another channel, or a row with no such note, stays."""

    OSS = ("openai", "gpt-oss-120b")
    FLASHX = ("zhipu", "glm-4-flashx-250414")
    # provider openai, model gpt-oss-120b (0.039 / 0.18, OpenRouter's figure)
    OSS_ROW = ({"id": "openai"}, {"id": "gpt-oss-120b", "price_comments": "Imported from OpenRouter pricing; verify "
               "against OpenAI pricing when native API pricing is published."}, None)
    # provider zhipuai (its note, the first sentences), model GLM-4-FlashX-250414 (0.014 / 0.014)
    FLASHX_ROW = ({"id": "zhipuai", "price_comments": "Prices sourced from Zhipu AI open platform pricing (CNY, "
                   "open.bigmodel.cn/pricing), converted to USD at 1 USD = 7.25 CNY (May/June 2026). Zhipu AI does "
                   "not publish USD prices; CNY is the only billing currency."},
                  {"id": "GLM-4-FlashX-250414", "description": "Fast and cheap GLM-4 model with context caching."}, None)

    def test_both_notes_screen_the_makers_api_alike(self):
        snap = snapshot({}, {self.OSS: "chat", self.FLASHX: "chat"},
                        {(self.OSS, "official"): [self.OSS_ROW], (self.FLASHX, "official"): [self.FLASHX_ROW]})
        self.assertFalse(snap.kept((self.OSS, "official", "input", "standard"), series(("2026-11-09", "0.039"))))
        self.assertFalse(snap.kept((self.FLASHX, "official", "input", "standard"), series(("2026-11-09", "0.014"))))
        self.assertEqual([(k[0], rule, d) for k, rule, _s, d in snap.tally.screened],
                         [(self.OSS, NOT_THE_MAKERS_PRICE, "openai/gpt-oss-120b: " + self.OSS_ROW[1]["price_comments"]),
                          (self.FLASHX, NOT_THE_MAKERS_PRICE, "zhipuai/GLM-4-FlashX-250414: " + self.FLASHX_ROW[0]["price_comments"])])
        self.assertEqual(snap.unpriced, {self.OSS, self.FLASHX})

    def test_another_channel_and_a_row_without_the_note_stay(self):
        # OpenRouter's own gpt-oss-120b row carries no such note; a genai row with the note on a
        # reseller's channel is not the maker's API
        snap = snapshot({}, {self.OSS: "chat"}, {(self.OSS, "openrouter"): [self.OSS_ROW],
                                                 (self.OSS, "official"): [({"id": "openai"}, {"id": "gpt-oss-120b"}, None)]})
        self.assertTrue(snap.kept((self.OSS, "openrouter", "input", "standard"), series(("2026-11-09", "0.039"))))
        self.assertTrue(snap.kept((self.OSS, "official", "input", "standard"), series(("2026-11-09", "0.15"))))
        self.assertEqual(snap.tally.screened, [])


class PerStepImages(unittest.TestCase):
    def test_an_image_model_on_fireworks_has_no_per_token_price(self):
        snap = snapshot({(CONTROLNET, "fireworks"): {0: ((0,), "flux-1-dev-controlnet-union", FLUX_CONTROLNET, None)}},
                        {CONTROLNET: "image"})
        for comp in ("input", "output"):
            self.assertFalse(snap.kept((CONTROLNET, "fireworks", comp, "standard"), series(("2025-12-09", "0.001"))))
        self.assertEqual({rule for _k, rule, _s, _d in snap.tally.screened}, {kinds.PER_STEP_IMAGE_RULE})

    def test_an_embedding_model_keeps_its_input_and_loses_its_output_only(self):
        # Novita's bge-m3: input 0.01, litellm's output figure 0.01 (kinds.NO_OUTPUT_RULE)
        snap = snapshot({}, {BGE_M3: "embedding"})
        self.assertTrue(snap.kept((BGE_M3, "novita", "input", "standard"), series(("2025-12-09", "0.01"))))
        self.assertFalse(snap.kept((BGE_M3, "novita", "output", "standard"), series(("2025-12-09", "0.01"))))
        self.assertEqual(snap.unpriced, set())


class Bundled(unittest.TestCase):
    """The bundled snapshot (data/snapshot.json.gz) and its quarantine report."""

    @classmethod
    def setUpClass(cls):
        cls.snap, cls.models, cls.quarantine = bundled()
        cls.priced = {(p["model"], p["channel"]) for p in cls.snap["prices"] + cls.snap["conditional_prices"]}

    def dropped(self, rule):
        return {(q["model"], q["channel"]) for q in self.quarantine if q["rule"] == rule}

    def test_the_false_per_token_prices_are_gone_and_listed(self):
        for mid, ch, rule in (("google:gemini-1.5-flash-exp-0827", "vertex", screen.PER_CHARACTER),
                              ("google:gemini-1.5-flash-preview-0514", "vertex", screen.PER_CHARACTER),
                              ("google:textembedding-gecko", "vertex", screen.PER_CHARACTER),
                              ("google:code-gecko-001", "vertex", screen.PER_CHARACTER),
                              ("google:gemini-pro-vision", "vertex", screen.PER_CHARACTER),
                              ("instantx:flux-1-dev-controlnet-union", "fireworks", kinds.PER_STEP_IMAGE_RULE),
                              ("black-forest-labs:flux-1-schnell", "fireworks", kinds.PER_STEP_IMAGE_RULE)):
            self.assertNotIn((mid, ch), self.priced, mid)
            self.assertIn((mid, ch), self.dropped(rule), mid)

    def test_a_model_left_with_no_price_stays_listed_and_is_no_coverage_failure(self):
        for mid in ("google:gemini-1.5-flash-exp-0827", "instantx:flux-1-dev-controlnet-union"):
            self.assertEqual(self.models[mid]["status"], "active")
            self.assertFalse([ch for m, ch in self.priced if m == mid])
        self.assertEqual(self.snap["report"]["coverage"]["not_served"], [])

    def test_per_token_rows_of_the_same_channel_stay(self):
        # Vertex prices Gemini 2.0 Flash per token; Gemini 1.5 Flash on Google's own API too
        self.assertIn(("google:gemini-2.0-flash", "vertex"), self.priced)
        self.assertIn(("google:gemini-1.5-flash", "official"), self.priced)
        self.assertNotIn(("google:gemini-1.5-flash", "vertex"), self.priced)


if __name__ == "__main__":
    unittest.main()
