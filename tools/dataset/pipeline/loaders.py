"""Readers for the four extracted source files. Standard library only.

Each reader returns plain Python data; nothing here decides identity or history.
"""
import ast
import datetime as dt
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
# litellm

def load_litellm(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("sample_spec", None)
    return {k: v for k, v in data.items() if isinstance(v, dict)}


# ---------------------------------------------------------------------------------------------
# genai-prices: data.py is Python source made of dataclass constructor calls. It is read with
# `ast` (never executed): every call becomes a dict {"__t": ClassName, **keyword arguments}.

def _conv(n):
    if isinstance(n, ast.Constant):
        return n.value
    if isinstance(n, (ast.List, ast.Tuple)):
        return [_conv(e) for e in n.elts]
    if isinstance(n, ast.Dict):
        return {_conv(k): _conv(v) for k, v in zip(n.keys, n.values)}
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        return -_conv(n.operand)
    if isinstance(n, ast.Call):
        f = n.func
        if isinstance(f, ast.Name):
            name = f.id
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            name = f.value.id + "." + f.attr
        else:
            raise ValueError("unexpected call in genai-prices data")
        if name == "Decimal":
            return Decimal(_conv(n.args[0]))
        if name == "datetime.date":
            return dt.date(*[_conv(a) for a in n.args]).isoformat()
        if name == "datetime.time":
            return dt.time(*[_conv(a) for a in n.args]).isoformat()
        out = {"__t": name}
        if n.args:
            out["__args"] = [_conv(a) for a in n.args]
        for kw in n.keywords:
            out[kw.arg] = _conv(kw.value)
        return out
    raise ValueError(f"unexpected node in genai-prices data: {type(n).__name__}")


def load_genai(path: Path) -> list:
    tree = ast.parse(path.read_text())
    for st in tree.body:
        if isinstance(st, ast.AnnAssign) and getattr(st.target, "id", None) == "providers":
            return _conv(st.value)
    raise ValueError("no `providers` list in genai-prices data.py")


def genai_match_ids(match) -> list:
    """Exact model ids named by a match clause (ClauseEquals leaves), in order."""
    out = []

    def walk(c):
        if isinstance(c, dict):
            if c.get("__t") == "ClauseEquals":
                out.append(c["equals"])
            for v in c.values():
                walk(v)
        elif isinstance(c, list):
            for v in c:
                walk(v)
    walk(match)
    return out


# ---------------------------------------------------------------------------------------------
# models.dev and llmledger

def load_gz_json(path: Path):
    return json.loads(gzip.decompress(path.read_bytes()))
