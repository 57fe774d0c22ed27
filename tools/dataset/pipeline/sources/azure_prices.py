"""Azure's own retail price list: the Python package `azure-genai-prices`.

Its data file (`azure_genai_prices/data/snapshot.json`) is a pull of the Azure Retail Prices API
for Azure OpenAI and the Foundry model catalogues: per meter its name, product, retail price,
unit, regions and `effectiveStartDate`, the day that meter's price took effect. Two pulls are
pinned: 0.1.1 (fetched 2026-07-31) and 0.2.0 (fetched 2026-08-11).

A meter's name spells its model tersely ("5.4 mini Inp Dz 1M Tokens", "Llama 3.3 70B Outp glbl
Tokens", "FW GLM 5 Inp DZ Tokens"). `model_name` reads the model out of it with our own
vocabulary (the tokens that name the deployment, the billing mode, the component and the unit are
dropped; what is left is the model, prefixed by the product's family where the meter leaves it
out); meters for anything but token inference (provisioned units, fine-tuning, hosting, images,
video, pages) are skipped. `first_priced` gives per model name the earliest `effectiveStartDate`
of its meters over the pulls read: the billing month from which Azure's own price list shows the
model priced (every effectiveStartDate in the pulls is a month's first day), unless a later price
replaced the first (the launch rule checks it against earlier sightings, launch.py). `key` is the form both meter names and Azure API ids are compared in.

Standard library only.
"""
import re

# tokens that say something other than the model; the rest of a meter name is the model
DEPLOYMENT = {"dz", "dzone", "datazone", "glbl", "gl", "glb", "global", "regnl", "rgnl", "regional"}
MODE = {"batch", "pp", "std"}
COMPONENT = {"inp", "inpt", "input", "in", "opt", "outp", "outpt", "out", "output",
             "cchd", "cd", "cached", "cach", "cache", "ch", "wr", "write", "longco", "shortco"}
NOISE = {"tokens", "token", "1m", "1k", "unit", "units", "az", "data", "zone", "l", "fw"}
# meters that price something other than token inference
NOT_INFERENCE = ("provisioned", "ptu", " ft", "ft ", "-ft", "ftregnl", "hosting", "training", "rft",
                 "image", "img", "dall-e", "sora", "video", "speech", "whisper", "assistants",
                 "code-interpreter", "session", "file search", "doc ai", "ocr", "pages", "search",
                 "standard unit", "realtime", "audio", "grader", "fine tuned", "tts")
# the family a product's meters leave out of the model's name
PRODUCT_FAMILY = {"Azure OpenAI GPT5": "gpt", "Azure OpenAI PP FT GPT4s": "gpt", "Azure Deepseek Models": "deepseek",
                  "Azure Grok Models": "grok", "Azure Kimi": "kimi", "Azure Llama Models": "llama",
                  "Azure Mistral Models": "mistral"}
# families whose own name a meter may already spell (`Grok 4.1`, `Llama 3.3 70B`, `MAI-DS-R1`)
KEEP = ("gpt", "grok", "llama", "kimi", "mistral", "deepseek", "mai", "codestral", "ministral", "command",
        "cohere", "glm", "phi", "o1", "o3", "o4", "codex", "text", "embed", "minimax", "nemotron")


def model_name(product, meter):
    """The model a meter prices, as text (`gpt-5.4-mini`), or None for a meter that prices no
    token inference."""
    low = f" {meter.lower()} "
    if any(m in low for m in NOT_INFERENCE):
        return None
    tokens = [t for t in re.split(r"[\s\-]+", meter.lower()) if t]
    rest = [t for t in tokens if t not in DEPLOYMENT | MODE | COMPONENT | NOISE]
    if not rest or len(rest) == len(tokens):
        return None             # nothing left, or no token says what the meter bills
    family = PRODUCT_FAMILY.get(product)
    if family and not rest[0].startswith(KEEP):
        rest = [family] + rest
    return "-".join(rest)


def key(name):
    """The form meter names and API ids are compared in: lower case, letters, digits and dots
    only, `gpt-35` read as `gpt-3.5`."""
    k = re.sub(r"[^a-z0-9.]", "", name.lower())
    return k.replace("gpt35", "gpt3.5")


def id_keys(api_id):
    """The keys an Azure API id is found under: its own, and for a dated snapshot
    (`gpt-4o-2024-08-06`) the month-and-day tag meters use (`gpt4o0806`)."""
    out = [key(api_id)]
    m = re.fullmatch(r"(.+)-\d{4}-(\d\d)-(\d\d)", api_id)
    if m:
        out.append(key(m.group(1)) + m.group(2) + m.group(3))
    return out


def first_priced(pulls):
    """{key(model name): (day, meter name, pull day)}: the earliest effectiveStartDate of the
    model's inference meters over the pulls (each `{"fetched_at", "items"}`)."""
    out = {}
    for pull in pulls:
        pulled = pull["fetched_at"][:10]
        for item in pull["items"]:
            name = model_name(item.get("productName", ""), item.get("meterName", ""))
            day = (item.get("effectiveStartDate") or "")[:10]
            if name is None or not re.fullmatch(r"\d{4}-\d\d-\d\d", day):
                continue
            k = key(name)
            if k not in out or day < out[k][0]:
                out[k] = (day, item["meterName"], pulled)
    return out
