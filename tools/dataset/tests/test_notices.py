"""The first-party lifecycle notices of Azure, Amazon Bedrock, Groq and Mistral in tools/dataset/notices/
hold together (standard library only).

Each file is data extracted once from a provider's page or documentation repository (its `copy` names
the copy read, with a commit for a repository): these checks keep every row's provenance, dates and
ids sound against the bundled snapshot, so that a model renamed or dropped by a rebuild shows up here
instead of silently ending nothing."""
import gzip
import json
import re
import unittest

from pipeline import FACTS, REPO

NOTICES = FACTS / "notices"
SNAPSHOT = REPO / "data" / "snapshot.json.gz"
QUARANTINE = REPO / "data" / "quarantine.json"
# the rule that leaves out a series the sources price only after its channel's page ended it
AFTER_SHUTDOWN = "priced after the channel's shutdown date"
CHANNELS = {"official", "openrouter", "aws_bedrock", "fireworks", "azure", "vertex", "novita", "together", "groq"}
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
COPY = re.compile(r"github:[\w.-]+/[\w.-]+:\S+@[0-9a-f]{40}")


MINE = ("azure.json", "aws_bedrock.json", "groq.json", "mistral.json")


def load(name):
    return json.loads((NOTICES / name).read_text())


def notice_files():
    # the files of this change; the folder's shape is tools/dataset/notices/README.md
    return [n for n in MINE if (NOTICES / n).exists()]


class NoticesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        snap = json.loads(gzip.decompress(SNAPSHOT.read_bytes()))
        # a model of ours: in the snapshot, or left out of it because every series the sources
        # give it starts after the shutdown a page states (listed in the quarantine report)
        screened = {q["model"] for q in json.loads(QUARANTINE.read_text())["screened"] if q["rule"] == AFTER_SHUTDOWN}
        cls.models = {m["id"] for m in snap["models"]} | screened

    def assertDay(self, value, where):
        self.assertTrue(value is None or DAY.fullmatch(value), f"{where}: {value!r} is not YYYY-MM-DD")

    def test_every_notice_names_its_source(self):
        ids = []
        for name in notice_files():
            for n in load(name)["notices"]:
                ids.append(n["id"])
                for field in ("provider", "url", "copy", "read", "says", "channels"):
                    self.assertTrue(n.get(field), f"{name} {n['id']}: no {field}")
                self.assertDay(n["read"], n["id"])
                self.assertLessEqual(set(n["channels"]), CHANNELS, n["id"])
                if n["copy"].startswith("github:"):
                    self.assertRegex(n["copy"], COPY, f"{n['id']}: a repository copy names its path and commit")
                    self.assertTrue(n.get("license"), f"{n['id']}: a repository copy states its license")
        self.assertEqual(len(ids), len(set(ids)), "notice ids are unique across the files")

    def test_rows_name_our_models_or_say_why_not(self):
        for name in notice_files():
            for n in load(name)["notices"]:
                for r in n["deprecations"]:
                    where = f"{n['id']} {r['provider_model']}"
                    self.assertIn(r["model"], self.models, where)
                    self.assertTrue(r["successor"] is None or r["successor"] in self.models, where)
                    self.assertTrue(r["successor"] is None or r.get("named"), f"{where}: the page's words kept")
                    for key in ("announced", "shutdown", "not_before"):
                        self.assertDay(r.get(key), f"{where} {key}")
                    # a dated end, or a planned one (`not_before`), never both
                    self.assertTrue(bool(r["shutdown"]) != bool(r.get("not_before")), where)
                    self.assertTrue(r["announced"] is None or r["announced"] <= r["shutdown"], where)
                    self.assertLessEqual(set(r.get("channels", n["channels"])), set(n["channels"]), where)
                for e in n.get("not_entered", ()):
                    self.assertTrue(e["id"] and e["why"], f"{n['id']}: a row left out says why")
                    self.assertTrue(e.get("shutdown") or e.get("not_before"), f"{n['id']} {e['id']}: its day is kept")

    def test_a_model_ends_once_per_channel_in_a_notice(self):
        # several versions of one model of ours: only the last retirement ends the channel
        for name in notice_files():
            for n in load(name)["notices"]:
                seen = [(r["model"], ch) for r in n["deprecations"] for ch in r.get("channels", n["channels"])]
                self.assertEqual(len(seen), len(set(seen)), n["id"])

    def test_real_rows_as_the_pages_state_them(self):
        # one row of each source, as read on its page
        rows = {(n["id"], r["provider_model"]): r for name in notice_files()
                for n in load(name)["notices"] for r in n["deprecations"]}
        groq = rows[("groq-deprecations-2026-08-20", "llama-3.1-8b-instant")]
        self.assertEqual((groq["model"], groq["announced"], groq["shutdown"], groq["successor"]),
                         ("meta:llama-3.1-8b-instruct", "2026-06-17", "2026-08-16", "openai:gpt-oss-20b"))
        bedrock = rows[("bedrock-model-lifecycle-2026-08-21",
                        "Anthropic Claude Sonnet 4 (`anthropic.claude-sonnet-4-20250514-v1:0`)")]
        self.assertEqual((bedrock["model"], bedrock["announced"], bedrock["shutdown"]),
                         ("anthropic:claude-sonnet-4-0", "2026-04-14", "2026-10-14"))
        azure = rows[("azure-retirements-2026-10-05", "o1 2024-12-17")]
        self.assertEqual((azure["model"], azure["shutdown"], azure["successor"], azure["channels"]),
                         ("openai:o1", "2026-11-19", "openai:gpt-5.6-sol", ["azure"]))
        mistral = rows[("mistral-models-2026-08-21", "Devstral 2 (devstral-2-25-12; API `devstral-2512`)")]
        self.assertEqual((mistral["model"], mistral["announced"], mistral["shutdown"], mistral["successor"]),
                         ("mistral:devstral-2512", "2026-05-22", "2026-07-31", "mistral:mistral-medium-3-5"))

    def test_side_files_name_our_models(self):
        releases = json.loads((FACTS / "mistral_releases.json").read_text())["releases"]
        for r in releases:
            self.assertTrue(r["model"] is None or r["model"] in self.models, r["provider_model"])
            self.assertDay(r["release_date"], r["provider_model"])
        named = [r["model"] for r in releases if r["model"]]
        self.assertEqual(len(named), len(set(named)), "one release day per model of ours")
        for r in json.loads((FACTS / "bedrock_observed.json").read_text())["observations"]:
            self.assertTrue(r["model"] is None or r["model"] in self.models, r["provider_model"])
            self.assertDay(r["first_observed_legacy"], r["provider_model"])
            self.assertDay(r["last_listed"], r["provider_model"])


if __name__ == "__main__":
    unittest.main()
