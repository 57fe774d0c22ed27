"""Cut the test fixture pair tests/fixtures/snapshot-a.json / snapshot-b.json from the real data.

A is the dataset as it stood on A_DATE (only litellm releases, llmledger events and
genai-prices start dates known by then); B is the current bundled dataset. Both are restricted
to the models in MODELS. Going from A to B shows every change-event type; `check` proves it.

    cd tools/dataset && python3 -m maintenance.fixtures
"""
import json

from pipeline import REPO
from pipeline.builder import Builder
from pipeline.render import value_at_hist

A_DATE = "2026-09-26"          # litellm 1.104.5
MODELS = [
    "openai:gpt-4o",                     # flagship, steady, three channels
    "openai:o3",                         # flagship with the 2025-06-10 cut (10/40 -> 2/8) in its history
    "openai:gpt-4.1",                    # deprecation: active in A, deprecated in B
    "openai:gpt-4-0613",                 # retirement: deprecated in A, retired in B (2026-10-23)
    "anthropic:claude-sonnet-4-5",       # flagship; deprecated in B, context window 1M -> 200k
    "anthropic:claude-sonnet-5-5",       # launch: first priced 2026-09-28, not in A
    "google:gemini-4-argon",             # scheduled change: 2 -> 4 USD input from 2026-12-01
    "meta:llama-3.1-70b-instruct",       # price change: Bedrock 0.99 -> 0.72 input
    "perplexity:sonar",                  # limit change: max output 4096 -> 128000
    "deepseek:deepseek-chat",            # official price history 2024-2026, ended 2026-07-24
    "amazon:nova-pro",                   # Bedrock-only maker model
    "sao10k:l3-8b-lunaris",              # obscure: a community fine-tune on Novita
]


def cut(snap, ids):
    ids = set(ids)
    out = dict(snap)
    out["models"] = [m for m in snap["models"] if m["id"] in ids]
    out["prices"] = [p for p in snap["prices"] if p["model"] in ids]
    out["conditional_prices"] = [p for p in snap["conditional_prices"] if p["model"] in ids]
    out["benchmarks"] = [b for b in snap["benchmarks"] if b["model"] in ids]
    makers = {m["provider"] for m in out["models"]}
    out["providers"] = [p for p in snap["providers"] if p["slug"] in makers]
    rep = dict(snap["report"])
    rep["fixture"] = {"cut_from": "pricing-snapshot built by tools/dataset/build.py",
                      "models": sorted(ids)}
    rep.pop("counts", None)
    rep.pop("conditional_counts", None)
    rep.pop("kinds", None)
    out["report"] = rep
    return out


def check(a, b):
    """Which change-event types A -> B shows; raises if one is missing."""
    ga, gb = a["generated_at"][:10], b["generated_at"][:10]
    ma = {m["id"]: m for m in a["models"]}
    mb = {m["id"]: m for m in b["models"]}
    pa = {(p["model"], p["channel"], p["component"], p["tier"]): p for p in a["prices"]}
    seen = {}
    seen["model_launch"] = [m for m in mb if m not in ma]
    seen["price_change"] = []
    for p in b["prices"]:
        k = (p["model"], p["channel"], p["component"], p["tier"])
        old, new = (value_at_hist(pa[k]["history"], ga) if k in pa else None), value_at_hist(p["history"], gb)
        if old and new and old != new:
            seen["price_change"].append(k)
    seen["price_change_scheduled"] = [(p["model"], p["channel"], p["component"]) for p in b["prices"]
                                      if any(h["from"] > gb for h in p["history"])]
    seen["deprecation"] = [m for m in mb if m in ma and ma[m]["status"] == "active" and mb[m]["status"] == "deprecated"]
    seen["retirement"] = [m for m in mb if m in ma and ma[m]["status"] != "retired" and mb[m]["status"] == "retired"]
    seen["limit_change"] = [m for m in mb if m in ma and (ma[m]["context_window"], ma[m]["max_output_tokens"])
                            != (mb[m]["context_window"], mb[m]["max_output_tokens"])]
    missing = [k for k, v in seen.items() if not v]
    if missing:
        raise SystemExit(f"fixture pair lacks event types: {missing}")
    o3 = {h["from"]: h["price"] for p in b["prices"] if p["model"] == "openai:o3" and p["channel"] == "official"
          and p["component"] == "input" and p["tier"] == "standard" for h in p["history"]}
    assert o3.get("2025-06-10") == "2", o3
    return seen


def main():
    a = cut(Builder(as_of=A_DATE).run(), MODELS)
    b = cut(Builder().run(), MODELS)
    missing = [m for m in MODELS if m not in {x["id"] for x in b["models"]}]
    if missing:
        raise SystemExit(f"unknown fixture models: {missing}")
    seen = check(a, b)
    out = REPO / "tests" / "fixtures"
    out.mkdir(parents=True, exist_ok=True)
    for name, snap in (("snapshot-a.json", a), ("snapshot-b.json", b)):
        (out / name).write_text(json.dumps(snap, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    for k, v in seen.items():
        print(f"{k:24s} {len(v):3d}  e.g. {v[:3]}")
    print(f"A: {len(a['models'])} models, {len(a['prices'])} price rows; "
          f"B: {len(b['models'])} models, {len(b['prices'])} price rows")


if __name__ == "__main__":
    main()
