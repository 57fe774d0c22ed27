"""First-party listings kept in git repositories: the day each model id first appears.

The facts are extracted from each repository's history by extract_listings.py into
tools/dataset/listings/<name>.json (repository, head commit, day read, license) and read here:

- `openai-python`, `anthropic-sdk-python`, `xai-sdk-python`: the model ids the maker's own SDK
  lists; the first commit listing an id is the first day the maker's own SDK lists it (launch
  basis `maker_api`). A commit listing more than 20 ids at once (xAI's typed list of its models
  on sale, 2025-11-26) dates none of them (extract_listings.py).
- `voyageai-python`: the models Voyage AI's own Python SDK lists in its README's table of models
  (2023-10-30 to 2024-01-23, when the table left the README); the first commit adding a model's row
  is the first day the maker's own SDK lists it as offered (basis `maker_api`; a row saying
  "coming soon" lists nothing).
- `z-ai-sdk-java`: the model ids Z.ai's (Zhipu's) own Java SDK lists in its constants table
  (`Constants.java`, from 2025-07-12), read as the Python SDKs are (basis `maker_api`); its first
  commit and a commit of 2025-07-14 adding 30 ids at once date none of them.
- `bedrock-models`: a scheduled record of AWS Bedrock's ListFoundationModels; the first pull
  listing an id, with the pull before it (`after`), is the first day Bedrock's own model list is
  seen to show it (basis `first_listed`, or `maker_api` for Amazon's own models: Bedrock is their
  maker's API). It is a day only when the pull before it is at most 7 days earlier.

- `genai-prices`: genai-prices' own data, the first commit adding a provider's model entry
  (`<provider>/<model id>`): the first day that secondary source lists it (basis `source_listed`).

Ids the first record already held are `undatable` and give no day. Standard library only.
"""
import json
import re
from pathlib import Path

from ..series import days_between
from .. import FACTS

DIR = FACTS / "listings"
# the maker whose own SDK each listing is
SDK_MAKERS = {"openai-python": "openai", "anthropic-sdk-python": "anthropic", "xai-sdk-python": "xai",
              "voyageai-python": "voyage", "z-ai-sdk-java": "zhipu"}
BEDROCK = "bedrock-models"
GENAI = "genai-prices"
# a first sighting bounded by a pull more than this many days earlier dates nothing
BOUND_DAYS = 7
# Bedrock's cross-region inference prefixes: `us.anthropic...` is `anthropic...` routed
BEDROCK_ROUTE = re.compile(r"^(us|eu|apac|global|jp|au|us-gov|ca|sa|ap|in|uk)\.")


def load(name, directory=DIR):
    return json.loads((Path(directory) / f"{name}.json").read_text())


def label(doc):
    """How a fact of the listing names its source: repository@commit (12 hex digits)."""
    src = doc["source"]
    return f"{src['repository'].removeprefix('github.com/')}@{src['commit'][:12]}"


def sdk_days(doc, as_of=None):
    """{model id: (day, commit)} of an SDK listing; days after `as_of` are not known yet."""
    return {i: (f["day"], f["commit"]) for i, f in doc["first"].items() if not as_of or f["day"] <= as_of}


def bedrock_days(doc, as_of=None):
    """{model id: (day, commit)} of the Bedrock record: the ids first seen in a pull at most
    BOUND_DAYS after the pull before it; and {model id: (after, day)} of the ids first seen
    after a longer gap (bounded, not dated)."""
    dated, loose = {}, {}
    for i, f in doc["first"].items():
        if as_of and f["day"] > as_of:
            continue
        if days_between(f["after"], f["day"]) <= BOUND_DAYS:
            dated[i] = (f["day"], f["commit"])
        else:
            loose[i] = (f["after"], f["day"])
    return dated, loose


def bedrock_base(api_id):
    """A Bedrock API id without its cross-region prefix (`us.amazon.nova-pro-v1:0` ->
    `amazon.nova-pro-v1:0`): the id Bedrock's model list names."""
    return BEDROCK_ROUTE.sub("", api_id)
