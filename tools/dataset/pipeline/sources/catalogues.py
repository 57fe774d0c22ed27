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
began listing embedding models), each the day OpenRouter added them.

Standard library only.
"""
import datetime as dt
import json
from pathlib import Path

from . import listings

# the facts files (tools/dataset/listings/<name>.json) of channel catalogues, and their channel
CATALOGUES = {"openrouter-unified-llm-pricing": "openrouter", "openrouter-gptel-openrouter-models": "openrouter",
              "openrouter-openrouter-free-api": "openrouter"}
# how a launch names the source: the channel's list, the field read, the copy it was read in
LABELS = {"openrouter": "openrouter-api created"}


def created_days(doc, channel):
    """{model id: day} of one copy of a channel's model list (the API's answer, or its `data`
    list alone): the UTC day of each model's `created` field. ValueError when `doc` is no copy of
    the list."""
    rows = doc.get("data") if isinstance(doc, dict) else doc
    if channel != "openrouter" or not isinstance(rows, list):
        raise ValueError(f"not a copy of the {channel} model list")
    out = {}
    for r in rows:
        if isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("created"), int):
            out[r["id"]] = dt.datetime.fromtimestamp(r["created"], dt.timezone.utc).date().isoformat()
    return out


def load(directory=listings.DIR):
    """{channel: {model id: (day, launch source)}} of every catalogue's facts file present."""
    out = {}
    for name, channel in CATALOGUES.items():
        path = Path(directory) / f"{name}.json"
        if not path.exists():
            continue
        doc = json.loads(path.read_text())
        repo = doc["source"]["repository"].removeprefix("github.com/")
        days = out.setdefault(channel, {})
        for i, f in doc["first"].items():
            label = f"{LABELS[channel]}, copy {repo}@{f['commit'][:12]}"
            if i not in days or f["day"] < days[i][0]:
                days[i] = (f["day"], label)
    return out
