"""Tests of kinds.py (what each model is for) on real source rows, and of the bundled snapshot's
kinds. The rows are as the sources give them: litellm 1.109.1 (modes, the newest row of each
channel), models.dev 1.0.398 (listings, families). Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import unittest
from collections import Counter

from pipeline import kinds

from .helpers import bundled

TEXT = {"input": ["text"], "output": ["text"]}


def classify(model_id, modes=(), listings=(), families=(), statements=()):
    """kinds.classify of a model from its litellm modes (one per channel), its models.dev
    listings [(provider id, channel, modalities)] and families, and maker statements."""
    chosen = kinds.listing(list(listings))
    return kinds.classify(model_id, Counter(modes), chosen, set(families),
                          kinds.statement_for(model_id, list(statements)))


class Classify(unittest.TestCase):
    def test_a_flux_controlnet_litellm_lists_as_chat_on_fireworks_is_an_image_model(self):
        # litellm `fireworks_ai/accounts/fireworks/models/flux-1-dev-controlnet-union`: mode chat
        kind, rule, dis = classify("instantx:flux-1-dev-controlnet-union", ["chat"])
        self.assertEqual((kind, rule), ("image", "name"))
        self.assertEqual(dis["votes"], [["name", "image", "flux-1-dev-controlnet-union"],
                                        ["litellm chat", "chat", "chat 1"]])

    def test_embedding_models_by_litellm_mode(self):
        # litellm `novita/baai/bge-m3`: embedding; models.dev nvidia `baai/bge-m3`: text -> text, family bge
        kind, rule, dis = classify("baai:bge-m3", ["embedding"], [("nvidia", "nvidia", TEXT)], ["bge"])
        self.assertEqual((kind, rule, dis), ("embedding", "litellm mode", None))
        # litellm `together_ai/intfloat/multilingual-e5-large-instruct`: embedding; evroc family text-embedding
        kind, rule, _d = classify("intfloat:multilingual-e5-large-instruct", ["embedding"],
                                  [("evroc", "evroc", TEXT)], ["text-embedding"])
        self.assertEqual((kind, rule), ("embedding", "litellm mode"))

    def test_an_ocr_model_served_as_chat_completions_is_ocr(self):
        # litellm `novita/paddlepaddle/paddleocr-vl`: chat; models.dev novita-ai: text, image -> text
        kind, rule, _d = classify("paddlepaddle:paddleocr-vl", ["chat"],
                                  [("novita-ai", "novita", {"input": ["text", "image"], "output": ["text"]})])
        self.assertEqual((kind, rule), ("ocr", "name"))

    def test_safety_classifiers_are_moderation(self):
        for mid in ("meta:llama-guard-4-12b", "ibm:granite-guardian-3-3-8b", "openai:gpt-oss-safeguard-20b"):
            self.assertEqual(classify(mid, ["chat"])[0], "moderation", mid)

    def test_image_output_in_the_makers_listing_makes_an_image_model(self):
        # models.dev google `gemini-2.5-flash-image`: text, image -> text, image; litellm gemini: chat
        kind, rule, _d = classify("google:gemini-2.5-flash-image", ["chat", "chat"],
                                  [("google", "official", {"input": ["text", "image"], "output": ["text", "image"]}),
                                   ("302ai", "302ai", {"input": ["text", "image"], "output": ["text"]})])
        self.assertEqual((kind, rule), ("image", "output modalities"))

    def test_a_resellers_stray_image_output_does_not_outvote_the_makers_listing(self):
        # models.dev gpt-5: openai text, image -> text; requesty adds audio and image output
        openai = {"input": ["text", "image"], "output": ["text"]}
        requesty = {"input": ["text", "audio", "image", "video"], "output": ["text", "audio", "image"]}
        kind, rule, dis = classify("openai:gpt-5", ["chat"], [("requesty", "requesty", requesty),
                                                              ("openai", "official", openai)])
        self.assertEqual((kind, rule, dis), ("chat", "litellm chat", None))

    def test_text_to_speech_by_litellm_mode_and_by_output(self):
        # litellm `gemini/gemini-2.5-flash-preview-tts`: audio_speech, `vertex_ai/...`: chat
        kind, rule, dis = classify("google:gemini-2.5-flash-preview-tts", ["audio_speech", "chat"],
                                   [("google", "official", {"input": ["text"], "output": ["audio"]})])
        self.assertEqual((kind, rule), ("audio", "litellm mode"))
        self.assertIn(["litellm outvoted", "chat", "audio_speech 1, chat 1"], dis["votes"])
        # litellm `vertex_ai/gemini-2.5-pro-preview-tts`: chat; models.dev google: text -> audio
        kind, rule, _d = classify("google:gemini-2.5-pro-preview-tts", ["chat"],
                                  [("google", "official", {"input": ["text"], "output": ["audio"]})])
        self.assertEqual((kind, rule), ("audio", "output modalities"))

    def test_the_makers_statement_decides(self):
        # litellm's `gemini/gemini-1.5-flash` row: embedding (from 1.82.6); `vertex_ai` row: chat
        statements = kinds.load()
        kind, rule, dis = classify("google:gemini-1.5-flash", ["embedding", "chat"], statements=statements)
        self.assertEqual((kind, rule), ("chat", "maker"))
        self.assertEqual([v[0] for v in dis["votes"]], ["maker", "litellm mode", "litellm outvoted"])
        # Voyage AI's models are embedding models; genai-prices alone lists voyage-02
        self.assertEqual(classify("voyage:voyage-02", statements=statements)[:2], ("embedding", "maker"))
        self.assertIsNone(kinds.statement_for("voyage:rerank-2", statements))

    def test_a_chat_model_and_a_model_no_source_says_more_about(self):
        kind, rule, dis = classify("openai:gpt-4o", ["chat", "chat", "chat"], [("openai", "official", TEXT)])
        self.assertEqual((kind, rule, dis), ("chat", "litellm chat", None))
        self.assertEqual(classify("typesafe:jev-1.13")[:2], ("chat", "default"))

    def test_every_statement_names_a_kind_a_page_and_the_day_read(self):
        for s in kinds.load():
            self.assertIn(s["kind"], kinds.KINDS)
            self.assertTrue(s["url"].startswith("https://") and s["read"] and s["says"], s)
            for f in ("input", "output"):
                self.assertTrue(set(s.get(f, [])) <= set(kinds.MODALITIES), s)


class Listing(unittest.TestCase):
    def test_the_makers_listing_then_openrouters_then_the_majority(self):
        maker = {"input": ["text", "image"], "output": ["text"]}
        other = {"input": ["text", "image", "pdf"], "output": ["text", "image"]}
        self.assertEqual(kinds.listing([("poe", "poe", other), ("openai", "official", maker)]), maker)
        self.assertEqual(kinds.listing([("poe", "poe", other), ("openrouter", "openrouter", maker)]), maker)
        # xai grok-4-1-fast-non-reasoning: helicone alone says image output
        got = kinds.listing([("302ai", "302ai", maker), ("helicone", "helicone", other), ("zenmux", "zenmux", maker)])
        self.assertEqual(got, {"input": ["text", "image"], "output": ["text"]})
        self.assertIsNone(kinds.listing([("a", "a", None)]))


class Modalities(unittest.TestCase):
    def test_modalities_from_models_dev_else_from_the_litellm_row(self):
        self.assertEqual(kinds.modalities("chat", "openai:gpt-4o", {"input": ["text", "image", "pdf"], "output": ["text"]}, None),
                         (["text", "image"], ["text"], "text"))
        # litellm `gpt-4o-audio-preview-2024-12-17`: chat, audio in and out
        row = {"mode": "chat", "supports_audio_input": True, "supports_audio_output": True}
        self.assertEqual(kinds.modalities("audio", "openai:gpt-4o-audio-preview-2024-12-17", None, row),
                         (["text", "audio"], ["text", "audio"], "text"))
        # litellm `text-embedding-3-small`: vectors out, none of the four
        self.assertEqual(kinds.modalities("embedding", "openai:text-embedding-3-small", {"input": ["text"], "output": ["text"]},
                                          {"mode": "embedding"}), (["text"], [], "text"))

    def test_what_a_model_of_each_kind_takes_and_makes(self):
        # flux on Fireworks: litellm's chat row only
        self.assertEqual(kinds.modalities("image", "instantx:flux-1-dev-controlnet-union", None, {"mode": "chat"}),
                         (["text"], ["image"], "text"))
        self.assertEqual(kinds.modalities("audio", "openai:gpt-4o-mini-tts", None, None), (["text"], ["audio"], "text"))
        self.assertEqual(kinds.modalities("audio", "openai:gpt-4o-transcribe", None, None),
                         (["text", "audio"], ["text"], "text"))
        self.assertEqual(kinds.modalities("ocr", "deepseek:deepseek-ocr", None, {"mode": "chat"}),
                         (["text", "image"], ["text"], "text"))
        self.assertEqual(kinds.modalities("embedding", "amazon:titan-embed-image", None, {"mode": "embedding"}),
                         (["text", "image"], [], "text"))
        # the maker's statement wins over the listing
        st = {"input": ["text", "audio"], "output": ["text", "audio"]}
        self.assertEqual(kinds.modalities("audio", "amazon:nova-sonic", TEXT, None, st),
                         (["text", "audio"], ["text", "audio"], "text"))


class BundledKinds(unittest.TestCase):
    """The kinds of the bundled snapshot (data/snapshot.json.gz) and its report."""

    @classmethod
    def setUpClass(cls):
        cls.snap, cls.models, cls.quarantine = bundled()

    def test_the_models_the_issue_names(self):
        for mid, kind in (("instantx:flux-1-dev-controlnet-union", "image"), ("baai:bge-m3", "embedding"),
                          ("intfloat:multilingual-e5-large-instruct", "embedding"),
                          ("paddlepaddle:paddleocr-vl", "ocr"), ("openai:gpt-4o", "chat")):
            self.assertEqual(self.models[mid]["kind"], kind, mid)
        self.assertEqual(self.models["instantx:flux-1-dev-controlnet-union"]["output_modalities"], ["image"])

    def test_every_model_has_a_kind_and_the_report_counts_them(self):
        self.assertTrue(all(m["kind"] in kinds.KINDS for m in self.snap["models"]))
        rep = self.snap["report"]["kinds"]
        self.assertEqual(sum(rep["models_by_kind"].values()), len(self.snap["models"]))
        self.assertEqual(rep["models_by_kind"],
                         {k: sum(1 for m in self.snap["models"] if m["kind"] == k) for k in kinds.KINDS})
        flux = next(d for d in rep["disagreements"] if d["model"] == "instantx:flux-1-dev-controlnet-union")
        self.assertEqual((flux["kind"], flux["rule"]), ("image", "name"))

    def test_no_output_price_on_an_embedding_model_and_what_was_dropped(self):
        no_output = {mid for mid, m in self.models.items() if m["kind"] in kinds.NO_OUTPUT_KINDS}
        rows = self.snap["prices"] + self.snap["conditional_prices"]
        self.assertFalse([p for p in rows if p["model"] in no_output and p["component"] == "output"])
        dropped = {(q["model"], q["channel"]) for q in self.quarantine if q["rule"] == kinds.NO_OUTPUT_RULE}
        # Novita bills bge-m3 "only $0.01/M tokens"; litellm's row adds an output figure of 0.01
        self.assertIn(("baai:bge-m3", "novita"), dropped)
        self.assertEqual(self.models["baai:bge-m3"]["output_modalities"], [])


if __name__ == "__main__":
    unittest.main()
