"""The units the sources' prices come in (per token, per 1M tokens, floats) as exact decimal text, and
the reader of the gzipped JSON sources (models.dev, llmledger, model-price-radar). Each source's own
reader is its adapter in sources/. Standard library only.
"""
import gzip
import json
from decimal import Decimal, ROUND_HALF_EVEN
from pathlib import Path

SCALE = Decimal("0.000001")        # prices are kept to 6 decimal places of a USD per 1M tokens
MILLION = Decimal(1_000_000)


def dec_text(d: Decimal) -> str:
    """Canonical decimal text: fixed scale, no trailing zeros, never an exponent."""
    q = d.quantize(SCALE, rounding=ROUND_HALF_EVEN).normalize()
    if q == 0:
        return "0"
    return format(q, "f")


def per_token_to_mtok(x):
    """A litellm per-token float (0.30001999999999996e-6) -> USD per 1M tokens as text.

    The float goes through its shortest round-tripping repr, so binary noise is not copied,
    then it is scaled and rounded to a fixed scale. Returns None for missing or non-numbers.
    """
    if x is None or isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return dec_text(Decimal(repr(float(x))) * MILLION)


def float_mtok_text(x):
    """A models.dev cost (a JSON float, already USD per 1M tokens) -> text, via its shortest repr."""
    if x is None or isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return dec_text(Decimal(repr(float(x))))


def mtok_text(x):
    """A genai-prices Decimal (already per 1M tokens) -> text; tiered prices use their base."""
    if x is None:
        return None
    if isinstance(x, dict) and "base" in x:
        x = x["base"]
    if not isinstance(x, Decimal):
        return None
    return dec_text(x)


# ---------------------------------------------------------------------------------------------
# models.dev, llmledger and model-price-radar: gzipped JSON

def load_gz_json(path: Path):
    return json.loads(gzip.decompress(path.read_bytes()))
