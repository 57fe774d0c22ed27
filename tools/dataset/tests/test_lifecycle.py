"""Status, deprecation and retirement dates (lifecycle.py).

Each test on a real excerpt of the sources (the source and release are named in it).
Standard library only.

    python3 -m unittest discover -s tools/dataset -p 'test_*.py'
"""
import unittest

from pipeline import evidence, limit_evidence
from pipeline.lifecycle import SHUTDOWN_MOVED, lifecycle

from .helpers import steps


class Lifecycle(unittest.TestCase):
    """Series of the bundled dataset (generated 2026-11-12) with the providers' statements read in
    tools/dataset/notices/ (evidence.deprecations); the tests marked made up show one rule each."""

    GEN = "2026-11-12"
    DEPS = evidence.deprecations(evidence.load() + limit_evidence.load())

    @staticmethod
    def series(*pairs, verified):
        return {"steps": steps(*pairs), "last_verified": verified}

    def pages(self, model, *channels):
        return {ch: self.DEPS[(model, ch)] for ch in channels}

    def test_the_makers_shutdown_retires_a_model_no_channel_still_sells(self):
        # openai:gpt-4-0613: OpenAI's page, 2026-04-22: shut down on 2026-10-23, "Substitute model
        # gpt-5.6-sol"; Azure's rows were last listed on 2025-06-06 (stale, not ended)
        official = self.series(("2023-09-06", "30"), ("2026-10-23", None), verified="2026-10-23")
        azure = self.series(("2024-01-01", "30"), verified="2025-06-06")
        got = lifecycle([("official", official), ("azure", azure)], self.GEN,
                        self.pages("openai:gpt-4-0613", "official"))
        status, dep, ret, successor, statements, withheld = got
        self.assertEqual((status, dep, ret, successor), ("retired", "2026-04-22", "2026-10-23", "openai:gpt-5.6-sol"))
        self.assertEqual([(st["channel"], st["decides"], st["source"]) for st in statements],
                         [("official", True, "provider openai-deprecations-2026-04-22-october")])
        self.assertEqual(withheld, [])

    def test_a_channel_still_selling_keeps_a_model_deprecated_after_the_makers_shutdown(self):
        # openai:o4-mini: OpenAI's API ends it on 2026-10-23; Azure's rows still confirm a price on
        # 2026-11-12 (its own schedule): deprecated, retired on OpenAI's API on 2026-10-23
        official = self.series(("2025-04-16", "1.1"), ("2026-10-23", None), verified="2026-10-23")
        azure = self.series(("2025-04-18", "1.1"), verified="2026-11-12")
        got = lifecycle([("official", official), ("azure", azure)], self.GEN,
                        self.pages("openai:o4-mini", "official"))
        self.assertEqual(got[:4], ("deprecated", "2026-04-22", "2026-10-23", "openai:gpt-5.6-terra"))

    def test_a_future_shutdown_is_published_ahead(self):
        # openai:gpt-5: OpenAI's notice of 2026-06-11, removal from the API on 2026-12-11
        official = self.series(("2025-08-07", "1.25"), ("2026-12-11", None), verified="2026-11-12")
        got = lifecycle([("official", official)], self.GEN, self.pages("openai:gpt-5", "official"))
        self.assertEqual(got[:4], ("deprecated", "2026-06-11", "2026-12-11", "openai:gpt-5.6-sol"))
        self.assertEqual(got[4][0]["shutdown"], "2026-12-11")

    def test_a_cloud_page_ends_its_own_channel_and_is_listed_beside_the_makers(self):
        # anthropic:claude-3-5-haiku-20241022: Anthropic's page (deprecated 2025-12-19, retired
        # 2026-02-19, replacement claude-haiku-4-5-20251001); Amazon Bedrock's model card:
        # end-of-life June 19, 2026; OpenRouter last listed it on 2026-01-29 (stale)
        official = self.series(("2024-11-04", "1"), ("2024-12-03", "0.80"), ("2026-02-19", None), verified="2026-02-19")
        bedrock = self.series(("2024-11-04", "1"), ("2024-12-03", "0.80"), ("2026-06-19", None), verified="2026-06-19")
        openrouter = self.series(("2024-10-22", "1"), ("2024-12-03", "0.80"), verified="2026-01-29")
        model = "anthropic:claude-3-5-haiku-20241022"
        status, dep, ret, successor, statements, _w = lifecycle(
            [("official", official), ("aws_bedrock", bedrock), ("openrouter", openrouter)], self.GEN,
            self.pages(model, "official", "aws_bedrock"))
        self.assertEqual((status, dep, ret, successor), ("retired", "2025-12-19", "2026-02-19", "anthropic:claude-haiku-4-5"))
        self.assertEqual([(st["channel"], st["shutdown"], st["decides"]) for st in statements],
                         [("aws_bedrock", "2026-06-19", False), ("official", "2026-02-19", True)])

    def test_a_resellers_page_retires_a_model_only_it_sold_without_dating_a_deprecation(self):
        # deepseek:deepseek-prover-v2-671b, sold on Novita only: Novita's changelog of 2026-06-04,
        # removed from the Serverless Endpoints on June 19, 2026
        novita = self.series(("2025-05-01", "0.7"), ("2026-06-19", None), verified="2026-06-19")
        got = lifecycle([("novita", novita)], self.GEN, self.pages("deepseek:deepseek-prover-v2-671b", "novita"))
        self.assertEqual(got[:4], ("retired", None, "2026-06-19", None))
        self.assertEqual(got[4][0]["decides"], True)

    def test_a_page_calling_a_model_deprecated_without_a_day_is_a_statement_with_no_dates(self):
        # Anthropic's page: "Claude Mythos Preview (claude-mythos-preview) is deprecated. To migrate
        # to Claude Mythos 5 (claude-mythos-5) ..."
        official = self.series(("2026-04-07", "25"), verified="2026-11-12")
        got = lifecycle([("official", official)], self.GEN, self.pages("anthropic:claude-mythos-preview", "official"))
        self.assertEqual(got[:4], ("deprecated", None, None, "anthropic:claude-mythos-5"))

    def test_a_planned_end_is_no_deprecation(self):
        # Google's Gemini API deprecations table gives gemini-3.1-flash-lite "May 7, 2027", the
        # earliest possible shutdown day ("the shutdown dates listed ... indicate the earliest
        # possible dates"): no deprecation; litellm carried the day as a shutdown
        official = self.series(("2026-05-07", "0.25"), verified="2026-11-12")
        official["source_shutdown"] = ("2027-05-07", "gemini/gemini-3.1-flash-lite")
        status, dep, ret, _s, statements, withheld = lifecycle(
            [("official", official)], self.GEN, self.pages("google:gemini-3.1-flash-lite", "official"),
            lambda _s: "2026-05-21")
        self.assertEqual((status, dep, ret, withheld), ("active", None, None, []))
        self.assertEqual((statements[0]["not_before"], statements[0]["decides"]), ("2027-05-07", False))

    def test_a_model_no_source_lists_any_more_is_stale_not_retired(self):
        # moonshotai:kimi-latest-32k: the release sources stop listing it on 2026-01-28; no page of
        # Moonshot's says it was shut down (it was served as retired that day)
        official = self.series(("2025-04-08", "1"), verified="2026-01-28")
        self.assertEqual(lifecycle([("official", official)], self.GEN, {}),
                         ("active", None, None, None, [], []))

    def test_a_release_sources_shutdown_alone_publishes_no_day_and_deprecates_nothing(self):
        # made up: a source gives a shutdown (first recorded 2026-10-08); no page states it
        official = self.series(("2025-04-08", "1"), verified="2026-11-12")
        official["source_shutdown"] = ("2027-01-28", "k")
        self.assertEqual(lifecycle([("official", official)], self.GEN, {}, lambda _s: "2026-10-08")[:3],
                         ("active", None, None))

    def test_the_makers_page_dates_a_model_only_a_cloud_sold(self):
        # openai:computer-use-preview, sold on Azure only: OpenAI's page, deprecated 2026-04-22,
        # shut down on 2026-07-23; Azure's rows were last confirmed on 2026-07-23 (litellm's own
        # shutdown day caps them)
        azure = self.series(("2025-03-11", "3"), verified="2026-07-23")
        got = lifecycle([("azure", azure)], self.GEN, self.pages("openai:computer-use-preview", "official"))
        self.assertEqual(got[:4], ("retired", "2026-04-22", "2026-07-23", "openai:gpt-5.6-terra"))

    def test_a_deprecation_stays_on_its_first_day_while_a_newer_notice_moves_the_shutdown(self):
        # OpenAI's deprecations page: its entry of 2025-09-15 deprecates
        # gpt-4o-realtime-preview-2025-06-03 (removal 2026-05-07, replacement gpt-realtime-1.5); its
        # family entry of 2026-07-20 deprecates `gpt-4o-realtime` again, removal 2027-01-20,
        # replacement gpt-realtime-2.1 (no source prices it). The model was deprecated on
        # 2025-09-15 (published 2026-07-20 before); it ends on 2027-01-20, 2026-05-07 listed
        st = self.DEPS[("openai:gpt-4o-realtime-preview-2025-06-03", "official")]
        self.assertEqual((st.announced, st.shutdown, st.successor), ("2025-09-15", "2027-01-20", None))
        self.assertEqual(st.source, "provider openai-deprecations-2025-09-15; provider openai-deprecations-2026-07-20")
        self.assertEqual(st.superseded, (("2026-05-07", "provider openai-deprecations-2025-09-15",
                                          "provider openai-deprecations-2026-07-20"),))
        # the same for its five siblings; the newer entry's replacement where a source prices it
        for model, successor in (("gpt-4o-realtime-preview", None), ("gpt-4o-realtime-preview-2024-12-17", None),
                                 ("gpt-4o-mini-realtime-preview", None), ("gpt-4o-audio-preview", "openai:gpt-audio-1.5"),
                                 ("gpt-4o-mini-audio-preview", "openai:gpt-audio-1.5")):
            st = self.DEPS[("openai:" + model, "official")]
            self.assertEqual((st.announced, st.shutdown, st.successor), ("2025-09-15", "2027-01-20", successor), model)
        # the card: deprecated since 2025-09-15, ends 2027-01-20; the moved day is listed, no event
        official = self.series(("2025-07-31", "5"), ("2027-01-20", None), verified="2026-08-31")
        status, dep, ret, successor, statements, withheld = lifecycle(
            [("official", official)], self.GEN, self.pages("openai:gpt-4o-realtime-preview-2025-06-03", "official"))
        self.assertEqual((status, dep, ret, successor), ("deprecated", "2025-09-15", "2027-01-20", None))
        self.assertEqual([(st["announced"], st["shutdown"]) for st in statements], [("2025-09-15", "2027-01-20")])
        self.assertEqual(withheld, [(SHUTDOWN_MOVED, "official", "retirement_date", "2026-05-07",
                                     ("provider openai-deprecations-2025-09-15",),
                                     "the newer statement (provider openai-deprecations-2026-07-20) states 2027-01-20")])

    def test_a_build_as_of_a_past_day_keeps_the_shutdown_stated_then(self):
        # before OpenAI's notice of 2026-07-20 the entry of 2025-09-15 was the page's last word
        old = evidence.deprecations(evidence.known_by(evidence.load(), "2026-06-01"))
        st = old[("openai:gpt-4o-audio-preview", "official")]
        self.assertEqual((st.announced, st.shutdown, st.successor, st.superseded),
                         ("2025-09-15", "2026-05-07", "openai:gpt-audio-1.5", ()))

    def test_the_successor_comes_from_the_newest_row_naming_one(self):
        # Microsoft's Azure OpenAI retirements: the copy of 2026-04-23 retires o1-preview on
        # 2025-07-28, replacement o1; the page read on 2026-11-23 gives the day and no replacement
        st = self.DEPS[("openai:o1-preview", "azure")]
        self.assertEqual((st.announced, st.shutdown, st.successor), (None, "2025-07-28", "openai:o1"))
        # Anthropic's page (covering Microsoft Foundry) deprecated Claude Opus 4.1 on 2026-06-05,
        # replacement claude-opus-4-8; Azure's schedule read 2026-10-05 names claude-opus-5
        st = self.DEPS[("anthropic:claude-opus-4-1", "azure")]
        self.assertEqual((st.announced, st.shutdown, st.successor), ("2026-06-05", "2026-08-05", "anthropic:claude-opus-5"))

    def test_a_newer_planned_end_restating_nothing_keeps_the_deprecation(self):
        # made up: a page deprecated the model on 2026-01-10 (shutdown 2026-07-10); a newer table
        # gives only a planned end: the model stays deprecated, the newer end is kept
        notices = [{"id": "a", "url": "https://example.com/a", "read": "2026-01-10",
                    "deprecations": [{"model": "m", "announced": "2026-01-10", "shutdown": "2026-07-10"}]},
                   {"id": "b", "url": "https://example.com/b", "read": "2026-02-01",
                    "deprecations": [{"model": "m", "not_before": "2026-09-01"}]}]
        st = evidence.deprecations(notices)[("m", "official")]
        self.assertEqual((st.announced, st.shutdown, st.not_before), ("2026-01-10", None, "2026-09-01"))
        self.assertEqual(st.superseded, (("2026-07-10", "provider a", "provider b"),))
        official = self.series(("2025-04-08", "1"), verified="2026-11-12")
        status, dep, ret, _s, _st, withheld = lifecycle([("official", official)], "2026-11-12", {"official": st})
        self.assertEqual((status, dep, ret), ("deprecated", "2026-01-10", None))
        self.assertEqual(withheld[0][-1], "the newer statement (provider b) states a planned end not before 2026-09-01")

    def test_a_page_covering_a_cloud_names_that_channels_shutdown(self):
        # Amazon Bedrock's Claude 3.5 Haiku model card: end-of-life June 19, 2026, on Bedrock only
        st = self.DEPS[("anthropic:claude-3-5-haiku-20241022", "aws_bedrock")]
        self.assertEqual((st.announced, st.shutdown), (None, "2026-06-19"))
        # Anthropic's own page covers the Claude API and Microsoft Foundry (azure), not Bedrock
        self.assertEqual(self.DEPS[("anthropic:claude-opus-4-1", "azure")].shutdown, "2026-08-05")


if __name__ == "__main__":
    unittest.main()
