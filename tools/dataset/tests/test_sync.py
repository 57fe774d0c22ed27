"""sync.py over the real release excerpts of tests/fixtures/sync (standard library only)."""
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from pipeline import FACTS, REPO

FIXTURES = REPO / "tests" / "fixtures" / "sync"
# sync.py is an entry script of tools/dataset, beside the fact files
LITELLM = "model_prices_and_context_window_backup.json"


def sync(state, releases):
    subprocess.run([sys.executable, str(FACTS / "sync.py"), "--state", str(state), "--releases", str(releases),
                    "--base", str(FIXTURES / "base.json")], check=True, capture_output=True, text=True)
    return json.loads((state / "sync.json").read_text())


def prices(state):
    snap = json.loads(gzip.decompress((state / "snapshot.json.gz").read_bytes()))
    return {(p["model"], p["channel"], p["component"], p["tier"]): p for p in snap["prices"]}


def newer_release(tmp, alter):
    """A releases directory holding litellm 1.109.1's excerpt as `alter` changes its rows."""
    src = FIXTURES / "newer" / "litellm" / "1.109.1"
    out = tmp / "altered" / "litellm" / "1.109.1"
    out.mkdir(parents=True)
    (out / LITELLM).write_text(alter((src / LITELLM).read_text()))
    shutil.copy(src / "release.json", out / "release.json")
    return tmp / "altered"


class SyncTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.state = self.tmp / "state"
        sync(self.state, FIXTURES / "older")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_source_that_stops_listing_a_model_leaves_its_price_stale_not_gone(self):
        def without_titan(text):
            rows = json.loads(text)
            del rows["amazon.titan-text-express-v1"]
            return json.dumps(rows)
        report = sync(self.state, newer_release(self.tmp, without_titan))
        self.assertEqual(report["read"][-1], {"id": "litellm", "versions": ["1.106.1", "1.109.1"]})
        titan = prices(self.state)[("amazon:titan-text-express", "aws_bedrock", "input", "standard")]
        self.assertEqual(titan["history"][-1]["price"], "1.3")
        # still the day of litellm 1.106.1, the newest release that shows it
        self.assertEqual((titan["last_verified_at"], titan["source"]), ("2026-10-08T00:00:00Z", "litellm 1.106.1"))
        gpt = prices(self.state)[("openai:gpt-4o", "official", "input", "standard")]
        self.assertEqual((gpt["last_verified_at"], gpt["source"]), ("2026-11-12T00:00:00Z", "litellm 1.109.1"))

    def test_a_move_between_two_read_releases_is_dated_by_the_first_release_carrying_it(self):
        # the registry holds litellm 1.106.2 and 1.109.1 beyond 1.106.1: the sync lists only the
        # newest, and bisects the releases in between for the moves no ledger event dates
        report = sync(self.state, FIXTURES / "newer")
        self.assertEqual(report["read"][-1], {"id": "litellm", "versions": ["1.106.1", "1.109.1"]})
        pinned = json.loads((self.state / "bisected.json").read_text())["litellm"]
        llama = [r for r in pinned if r["key"] == "meta.llama3-1-70b-instruct-v1:0"]
        self.assertEqual([(r["field"], r["value"], r["first"], r["released"]) for r in llama],
                         [("max_output_tokens", "4096", "1.106.2", "2026-10-17")])
        screened = json.loads((self.state / "quarantine.json").read_text())["screened"]
        limit = next(e for e in screened if e["model"] == "meta:llama3-1-70b-instruct"
                     and e["component"] == "max_output_tokens")
        # no provider page dates it, so it is restated, not an event; its day is the bisected one
        self.assertEqual([(x["from"], x["value"]) for x in limit["steps"]],
                         [("2024-07-24", "2048"), ("2026-10-17", "4096")])

    def test_a_release_that_cannot_be_read_keeps_the_source_as_it_was(self):
        before = (self.state / "snapshot.json.gz").read_bytes()
        report = sync(self.state, newer_release(self.tmp, lambda text: text[: len(text) // 2]))
        litellm = next(s for s in report["sources"] if s["id"] == "litellm")
        self.assertIsNone(litellm["new"])
        self.assertIn("JSONDecodeError", litellm["error"])
        self.assertEqual(report["read"][-1], {"id": "litellm", "versions": ["1.106.1"]})
        self.assertEqual((self.state / "snapshot.json.gz").read_bytes(), before)


if __name__ == "__main__":
    unittest.main()
