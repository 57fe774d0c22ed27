"""A channel's own model list, as copies of it kept in git repositories: the day the channel says
it added each model (launch basis `first_listed`, launch.py).

OpenRouter's `/api/v1/models` gives every model a `created` field: the time (Unix seconds, UTC)
OpenRouter added the model to its catalogue. A repository that commits copies of that JSON keeps
OpenRouter's own statement of the day, for every model listed at the time of a copy;
extract_listings.py (`catalogue`) reads every version of the file in the repository's history
into tools/dataset/listings/<name>.json (repository, path, the copies' commits, day read,
license), and this module reads those facts.

What `created` is, checked against the archived catalogues of the Python package
`model-price-radar-mcp` (radar.py): of the 331 ids (no `:variant`) that OpenRouter's copy of
2026-08-19 and the archive both list, 312 have `created` between the last archived copy without
the model and the first with it, and the 64 copies of one repository (2026-02-27 to 2026-08-19)
never give one id two days. The rest: an id OpenRouter gave to a new model (deepseek/deepseek-chat,
created 2024-12-26 when DeepSeek V3 took it, archived since 2024-06-19; gpt-3.5-turbo-16k) has a
`created` later than a sighting, which the launch rule passes over (more than 7 days after a
sighting of the model on sale); 9 were created before an archived copy that lists their `:free`
variant only (on OpenRouter by then: the day stands); 8 were created 3 to 43 days before an
archived copy that lists neither the model nor a variant (stepfun/step-3.5-flash: created
2026-01-29, not in the copy of 2026-02-01): not listed on that day, so not its first listing (the
launch rule passes the day over, radar.unlisted_after). A variant (`:free`, `:batch`) carries the
day of its model.

The copies (CATALOGUES): anuran-roy/unified-llm-pricing (one copy, 2026-08-19),
skissue/gptel-openrouter-models (daily, 2026-02-27 to 2026-05-01) and Xiechengqi/openrouter-free-api
(395 copies, 2025-12-18 to 2026-01-29, a scheduled pull). The 324 ids the last shares with the
others have the same day in every copy; it adds 50 ids OpenRouter dropped before 2026-02. No day
is a re-import of the catalogue: the most models (without variants) any day gives is 14
(2026-04-27: Qwen 3.6, whisper-1 and the `~` aliases), then 12 (2025-11-18: the day OpenRouter
began listing embedding models), each the day OpenRouter added them. zny05/openrouter-trans-merge-litellm-costmap keeps one copy
of 2026-09-16 or later (its newest `created`), of which no snapshot could be fetched: its 42
newest entries (created 2026-08-20 to 2026-09-16, after the copy of 2026-08-19 above) were read at
the commit in the search tool's store of the file. teodorio95-portofolio/ai-trends-digest keeps a
reduced copy its digest fetched on 2026-10-08 (per id: name, prices, `created` as OpenRouter gives
it), read the same way: its 43 entries created after 2026-08-19 that no other copy lists (Pareto,
Ternary Bonsai 2 27B, Ling 3.1 Flash, GLM 5.3 FlashX, ~z-ai/glm-latest, ...); the 34 it shares with
zny05's copy have the same day in both, and a full copy of 2026-10-07 (vibewatch/FutureGrid, in the
store only, not taken) gives cohere/command-a-plus, typesafe/jev-router and unbiased/pareto the
same times to the second. madviking/pydantic-llm-tester keeps 6 copies of
2025-05-22 and 2025-05-23 (321 ids, 142 no other copy here lists: the community models OpenRouter
dropped in 2025, Starcannon, Magnum, EVA, Lumimaid, ...); two ids it shares with the later copies
have an earlier day there, OpenRouter having created the id anew later (gemini-2.5-pro-preview,
devstral-small), and two have a created day before the first archived catalogue (2023-07-26) and
before their makers released them (llama-2-70b-chat 2023-06-20, Meta's release 2023-07-18;
gpt-3.5-turbo-0125 2023-05-28): left out of its facts file, with their days (and devstral-small's
`:free`, which has its earlier day).

OpenRouter's page of a model (https://openrouter.ai/<id>) renders the same field as "Created
<Mon D, YYYY>", in UTC as far as seen: a copy of `/api/v1/models` of 2024-12 embedded in a code
sample (its repository not identified, so not a source here) gives x-ai/grok-vision-beta
`created` 1731976624 (2024-11-19 00:37 UTC) and google/gemini-flash-1.5 1715644800 (2024-05-14
00:00 UTC); their pages read "Created Nov 19, 2024" and "Created May 14, 2024". For models
OpenRouter dropped before any copy above, stored copies of their pages give the day
(tools/dataset/listings/openrouter-pages.json, each with its URL and the words read); each of the
6 read of models the archived copies list falls between the last archived copy without the model
and the first with it (radar.py: liquid/lfm-40b created 2024-09-30, archived from 2024-10-01, not on
2024-09-05); google/palm-2-chat-bison (created 2023-07-20) is in none of them. OpenRouter's
newer page design prints the same field as "Released <Mon D, YYYY>": its stored pages show
inception/mercury "Created Jun 26, 2025" (/providers, older design) and "Released Jun 26, 2025"
(/pricing, newer), and openai/gpt-3.5-turbo:batch "Released May 28, 2023", the `created` day of
openai/gpt-3.5-turbo ("Created May 28, 2023"), not OpenAI's release of the model (2023-03-01):
the day OpenRouter created the id, not the maker's release. Only the English words are read.

Together's own model list is kept the same way: a repository that committed Together's older
`/models/info` answer (WebDB-App/app, five commits of four lists, 2024-01-12 to 2024-04-03) gives
each model record's `created_at`, the time Together created the model's record (the same value its
`/v1/models` answers as `created`: Austism/chronos-hermes-13b, 2023-08-24T17:08:25Z, 1692896905 in
both). A record's `_id` (a 24-hex-digit object id) begins with the time the record was inserted
(Unix seconds, 8 hex digits). The two agree for most records (Together listed Llama 2 on
2023-07-18 and Code Llama on 2023-08-24, the days Meta released them; Qwen 1.5 on 2024-02-05;
its own LLaMA-2-7B-32K on 2023-07-27 and StripedHyena on 2023-12-08, the days before and of its
blog posts), but where a record was made from another, `created_at` is the other's:
togethercomputer/Llama-2-7B-32K-Instruct says 2023-07-27, the day of LLaMA-2-7B-32K, while its
record was inserted on 2023-08-17; cognitivecomputations/dolphin-2.5-mixtral-8x7b says 2023-09-05
(MythoMax's time to the millisecond), three months before Mistral released Mixtral, its base. Of the 183 records of the copies, 159 agree, 23
carry a `created_at` earlier than their insertion and none a later one: Together does not reset it
when it lists a model again, it carries it over (the 15 records it made on 2024-01-16 under Hugging
Face ids, meta-llama/Llama-2-7b-hf among them, keep the days of the togethercomputer/ ids they
replaced). So a Together record gives its day only where `created_at` and the insertion time
fall on the same UTC day (together_day); the rest are set aside by extract_listings.py, as are the
records of a day on which Together created more than 20 of them (extract_listings.BULK; 2023-06-23
and 2023-07-11: imports of models already on sale, RedPajama-INCITE among them).

Standard library only.
"""
import datetime as dt
import json
import re
from pathlib import Path

from . import listings

# the facts files (tools/dataset/listings/<name>.json) of channel catalogues, and their channel
CATALOGUES = {"openrouter-unified-llm-pricing": "openrouter", "openrouter-gptel-openrouter-models": "openrouter",
              "openrouter-openrouter-free-api": "openrouter", "openrouter-pages": "openrouter",
              "together-webdb-app": "together",
              "openrouter-openrouter-trans-merge-litellm-costmap": "openrouter",
              "openrouter-pydantic-llm-tester": "openrouter", "openrouter-ai-trends-digest": "openrouter"}
# how a launch names the source: the channel's list, the field read, the copy it was read in
LABELS = {"openrouter": "openrouter-api created", "together": "together-api created_at"}
# ... or the channel's page of the model that shows the field
PAGE_LABELS = {"openrouter": "openrouter-page Created"}
# "Created <Mon D, YYYY>", or "Released" (on a line of its own in the newer page design)
CREATED = re.compile(r"(?:Created|Released)\s+([A-Z][a-z]{2}) (\d{1,2}), (\d{4})")
DAY = re.compile(r"\d{4}-\d\d-\d\d")


def created_days(doc, channel):
    """{model id: day} of one copy of a channel's model list (the API's answer, or its `data`
    list alone): the UTC day of each model's `created` field (OpenRouter), or of each record's
    `created_at` where the record's insertion time agrees (Together, together_day). ValueError
    when `doc` is no copy of the list."""
    rows = doc.get("data") if isinstance(doc, dict) else doc
    if channel not in LABELS or not isinstance(rows, list):
        raise ValueError(f"not a copy of the {channel} model list")
    out = {}
    for r in rows:
        if channel == "together":
            day = together_day(r)
            if day:
                out[r["name"]] = day
        elif isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("created"), int):
            out[r["id"]] = utc_day(r["created"])
    return out


def listed_ids(doc, channel):
    """The model ids one copy of a channel's model list shows, dated or not."""
    rows = doc.get("data") if isinstance(doc, dict) else doc
    key = "name" if channel == "together" else "id"
    return {r[key] for r in rows if isinstance(r, dict) and isinstance(r.get(key), str)}


def together_day(row):
    """The UTC day of a record of Together's `/models/info` (`name`, `created_at`, `_id`) when
    its `created_at` and the insertion time its `_id` begins with fall on the same day; else None
    (a record made from another keeps the other's `created_at`: the module's docstring)."""
    if not (isinstance(row, dict) and isinstance(row.get("name"), str) and isinstance(row.get("created_at"), str)
            and re.fullmatch(r"[0-9a-f]{24}", str(row.get("_id")))):
        return None
    day = row["created_at"][:10]
    return day if DAY.fullmatch(day) and utc_day(int(row["_id"][:8], 16)) == day else None


def utc_day(seconds):
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).date().isoformat()


def page_day(says):
    """The day (YYYY-MM-DD) a model page's "Created <Mon D, YYYY>" (or "Released <Mon D, YYYY>")
    names; ValueError when the words name none."""
    m = CREATED.search(says)
    if not m:
        raise ValueError(f"no 'Created <Mon D, YYYY>' or 'Released <Mon D, YYYY>' in {says!r}")
    return dt.datetime.strptime(" ".join(m.groups()), "%b %d %Y").date().isoformat()


def authors(known):
    """{id without its author: {the ids with one}} of the ids OpenRouter's own lists (`known`:
    ids of its catalogue copies and archive) file its models under, variants (`:free`) left out:
    what `authored` reads, built once per build."""
    out = {}
    for k in known:
        base = k.split(":", 1)[0]
        if "/" in base:
            out.setdefault(base.split("/", 1)[1], set()).add(base)
    return out


def authored(ids, authors):
    """`ids` (a model's OpenRouter ids as its sources spell them) with each id that names no author
    given the one author OpenRouter's own lists file it under (`authors`: the index `authors`
    builds); an id no listed model or more than one ends with stays as it is. genai-prices
    spells some OpenRouter ids without the author: `llama-3.1-nemotron-ultra-253b-v1` for
    OpenRouter's `nvidia/llama-3.1-nemotron-ultra-253b-v1` (created 2025-04-08 in the copies of
    skissue/gptel-openrouter-models), so its own lists would not be read for the model. A variant
    (`:free`) keeps its suffix."""
    out = set()
    for i in ids:
        base, sep, variant = i.partition(":")
        full = authors.get(base, ()) if "/" not in base else ()
        out.add(f"{min(full)}{sep}{variant}" if len(full) == 1 else i)
    return sorted(out)


def listed_as(days):
    """{id: [the keys of `days` (a channel's {id: (day, source)}) that list it]}: the id itself, or,
    for an id listed only under variants (`x:free`, `x:batch` of `x`), those variants. OpenRouter
    gives a variant the created day of its model (179 of the 179 variants the copies here list
    with their model have its day), so a model whose catalogue entries are all variants is dated by
    them: nvidia/nemotron-3.5-content-safety, listed as `:free` only until 2026-08-19, created
    2026-06-04 (canonical slug nvidia/nemotron-3.5-content-safety-20260604)."""
    out = {}
    for k in sorted(days):
        out.setdefault(k.split(":", 1)[0], []).append(k)
    return {i: [i] if i in days else keys for i, keys in out.items()} | {k: [k] for k in days if ":" in k}


def page_models(directory=listings.DIR):
    """{model id: [its OpenRouter ids]} of the OpenRouter pages read for a model no price source
    sells on OpenRouter: such a fact names the model its page shows (`model`), whose OpenRouter id
    the page's id then is for its launch. OpenRouter's page of google/gemini-exp-1206:free, "Google:
    Gemini Experimental 1206 (free)", shows Google's gemini-exp-1206, which litellm prices on
    Google's own API only."""
    path = Path(directory) / "openrouter-pages.json"
    out = {}
    for i, f in (json.loads(path.read_text())["first"].items() if path.exists() else ()):
        if "model" in f:
            out.setdefault(f["model"], []).append(i)
    return out


def load(directory=listings.DIR):
    """{channel: {model id: (day, launch source)}} of every catalogue's facts file present: a copy
    of the list names its repository and commit, a page its URL (and its day must be the one its
    words name)."""
    out = {}
    for name, channel in CATALOGUES.items():
        path = Path(directory) / f"{name}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        days = out.setdefault(channel, {})
        for i, f in doc["first"].items():
            if "url" in f:
                if page_day(f["says"]) != f["day"]:
                    raise ValueError(f"{name}: {i} says {f['says']!r}, not {f['day']}")
                label = f"{PAGE_LABELS[channel]}, {f['url']}"
            else:
                repo = doc["source"]["repository"].removeprefix("github.com/")
                label = f"{LABELS[channel]}, copy {repo}@{f['commit'][:12]}"
            if i not in days or f["day"] < days[i][0]:
                days[i] = (f["day"], label)
    return out
