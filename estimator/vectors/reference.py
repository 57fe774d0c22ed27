#!/usr/bin/env python3
"""Independent reference for estimator/vectors/vectors.json.

Re-implements the billing rules from their written description (the table in the docs of
`estimator::estimate` and the preset table in `estimator::Preset`) with Python's decimal module at
100 digits of precision, without looking at the Rust code paths. Every expected value in
vectors.json must agree with it.

    python3 estimator/vectors/reference.py          # check every vector, exit 1 on a mismatch
    python3 estimator/vectors/reference.py --fill   # compute "expected" for vectors that lack it
    python3 estimator/vectors/reference.py --refill # recompute every "expected" (after a rule change)

Standard library only.
"""

import json
import sys
from decimal import ROUND_HALF_UP, Decimal, getcontext
from pathlib import Path

getcontext().prec = 100

VECTORS = Path(__file__).with_name("vectors.json")
MILLION = Decimal(1_000_000)
MAX_TOKENS = 10**18

PRESETS = {
    "chatbot": (1_500, 400),
    "summarization": (4_000, 400),
    "extraction": (2_000, 200),
    "coding_agent": (30_000, 1_000),
    "translation": (1_000, 1_000),
    "rag_qa": (3_000, 300),
    "classification": (500, 10),
}


class Invalid(Exception):
    def __init__(self, field):
        super().__init__(field)
        self.field = field


def money(d):
    d = d.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)
    return format(d if d != 0 else Decimal("0.000000"), "f")


def exact(d):
    d = d.normalize()
    return format(d if d != 0 else Decimal(0), "f")


def dec(v):
    return None if v is None else Decimal(str(v))


def resolve(w):
    requests = w["requests_per_month"]
    if requests < 1:
        raise Invalid("requests_per_month")
    explicit_in = w.get("input_tokens_per_request")
    explicit_out = w.get("output_tokens_per_request")
    for name, value in (("input_tokens_per_request", explicit_in), ("output_tokens_per_request", explicit_out)):
        if value is not None and value < 1:
            raise Invalid(name)
    preset = w.get("preset")
    assumption = None
    if preset is None:
        if explicit_in is None and explicit_out is None:
            raise Invalid("preset")
        if explicit_in is None:
            raise Invalid("input_tokens_per_request")
        if explicit_out is None:
            raise Invalid("output_tokens_per_request")
        per_in, per_out = explicit_in, explicit_out
    else:
        pin, pout = PRESETS[preset]
        per_in = explicit_in if explicit_in is not None else pin
        per_out = explicit_out if explicit_out is not None else pout
        assumption = {
            (False, False): "preset_volumes",
            (False, True): "preset_input_volume",
            (True, False): "preset_output_volume",
            (True, True): "preset_ignored",
        }[(explicit_in is not None, explicit_out is not None)]
    cache = dec(w.get("cache_hit_rate")) or Decimal(0)
    batch = dec(w.get("batch_share")) or Decimal(0)
    write = dec(w.get("cache_write_share")) or Decimal(0)
    for name, rate in (("cache_hit_rate", cache), ("batch_share", batch), ("cache_write_share", write)):
        if rate < 0 or rate > 1:
            raise Invalid(name)
    if cache + write > 1:
        raise Invalid("cache_write_share")
    if w.get("service_tier") == "batch":
        raise Invalid("service_tier")
    if requests * per_in > MAX_TOKENS:
        raise Invalid("input_tokens_per_request")
    if requests * per_out > MAX_TOKENS:
        raise Invalid("output_tokens_per_request")
    return requests * per_in, requests * per_out, cache, batch, write, assumption


def estimate(w, p):
    tin, tout, c, b, wr, preset_assumption = resolve(w)
    tin, tout = Decimal(tin), Decimal(tout)
    # Token buckets: batch share of all traffic; of the input in both shares, the cache hit
    # rate is read from the cache, the write share written into it, the rest uncached.
    b_in, b_out = tin * b, tout * b
    s_in, s_out = tin - b_in, tout - b_out
    s_cached, b_cached = s_in * c, b_in * c
    s_write, b_write = s_in * wr, b_in * wr
    s_uncached, b_uncached = s_in - s_cached - s_write, b_in - b_cached - b_write

    # no output price: a model that returns no output tokens (embedding, rerank), no output billed
    price_in, price_out = dec(p["input"]), dec(p.get("output")) or Decimal(0)
    given = {k: dec(p.get(k)) for k in ("cached_input", "batch_input", "batch_output", "batch_cached_input",
                                        "cache_write", "batch_cache_write")}

    def fallback(name, default):
        return given[name] if given[name] is not None else default

    price_cached = min(fallback("cached_input", price_in), price_in)
    price_b_in = min(fallback("batch_input", price_in), price_in)
    price_b_out = min(fallback("batch_output", price_out), price_out)
    cap = min(price_cached, price_b_in)
    price_b_cached = min(fallback("batch_cached_input", cap), cap)
    # a write costs its own price (above input where charged), else plain input
    price_write = fallback("cache_write", price_in)
    price_b_write = min(fallback("batch_cache_write", price_write), price_write)

    has_cached, has_batch, has_write = c != 0, b != 0, wr != 0
    no_batch = all(given[k] is None for k in ("batch_input", "batch_output", "batch_cached_input",
                                              "batch_cache_write"))

    def above(name, limit):
        return given[name] is not None and given[name] > limit

    assumptions = [preset_assumption] if preset_assumption else []
    for condition, code in (
        (has_cached and given["cached_input"] is None, "no_cached_input_price"),
        (has_cached and above("cached_input", price_in), "cached_input_price_capped"),
        (has_batch and no_batch, "no_batch_price"),
        (has_batch and not no_batch and given["batch_input"] is None, "no_batch_input_price"),
        (has_batch and not no_batch and given["batch_output"] is None and p.get("output") is not None,
         "no_batch_output_price"),
        (has_batch and above("batch_input", price_in), "batch_input_price_capped"),
        (has_batch and above("batch_output", price_out), "batch_output_price_capped"),
        (has_batch and has_cached and not no_batch and given["batch_cached_input"] is None,
         "no_batch_cached_input_price"),
        (has_batch and has_cached and above("batch_cached_input", cap), "batch_cached_input_price_capped"),
        (has_write and given["cache_write"] is None, "no_cache_write_price"),
        (has_batch and has_write and not no_batch and given["batch_cache_write"] is None,
         "no_batch_cache_write_price"),
        (has_batch and has_write and above("batch_cache_write", price_write), "batch_cache_write_price_capped"),
        (p.get("output") is None, "no_output_price"),
    ):
        if condition:
            assumptions.append(code)

    std = [s_uncached * price_in, s_cached * price_cached, s_out * price_out, s_write * price_write]
    bat = [b_uncached * price_b_in, b_cached * price_b_cached, b_out * price_b_out, b_write * price_b_write]
    std = [x / MILLION for x in std]
    bat = [x / MILLION for x in bat]
    return {
        "tokens_per_month": {
            "input": exact(tin),
            "uncached_input": exact(s_uncached + b_uncached),
            "cached_input": exact(s_cached + b_cached),
            "cache_write": exact(s_write + b_write),
            "output": exact(tout),
            "batch_input": exact(b_in),
            "batch_output": exact(b_out),
        },
        "cost_per_month": {
            "input": money(std[0] + bat[0]),
            "cached_input": money(std[1] + bat[1]),
            "cache_write": money(std[3] + bat[3]),
            "output": money(std[2] + bat[2]),
            "total": money(sum(std) + sum(bat)),
            "standard_traffic": money(sum(std)),
            "batch_traffic": money(sum(bat)),
        },
        "assumptions": assumptions,
    }


def main():
    refill = "--refill" in sys.argv[1:]
    fill = refill or "--fill" in sys.argv[1:]
    vectors = json.loads(VECTORS.read_text())
    failures = 0
    for case in vectors:
        try:
            computed = {"expected": estimate(case["workload"], case["prices"])}
        except Invalid as err:
            computed = {"expected_error": {"field": err.field}}
        key = next(iter(computed))
        if fill and (key not in case or refill):
            case[key] = computed[key]
            continue
        if case.get(key) != computed[key]:
            failures += 1
            print(f"MISMATCH {case['name']}:\n  file:     {case.get(key)}\n  computed: {computed[key]}")
    if fill:
        VECTORS.write_text(json.dumps(vectors, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(vectors) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
