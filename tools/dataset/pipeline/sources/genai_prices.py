"""genai-prices (the Python package `genai-prices`): its data.py, and what a model's prices say
(start dates, tiers, time-of-day prices, the maker its match rules name).

data.py is Python source made of dataclass constructor calls. It is read with `ast` (never
executed): every call becomes a dict {"__t": ClassName, **keyword arguments}. Standard library only.
"""
import ast
import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

from ..loaders import mtok_text
from ..resolve import ORG_MAKERS, slugify, split_org


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


GENAI_COMPONENTS = {"input": "input_mtok", "output": "output_mtok", "cached_input": "cache_read_mtok"}


def time_of_day_priced(m):
    """A genai-prices model whose price depends on the time of day (DeepSeek's off-peak hours)."""
    pr = m.get("prices")
    return isinstance(pr, list) and any((c.get("constraint") or {}).get("__t") == "TimeOfDateConstraint" for c in pr)


def time_of_day_since(m):
    """The day a time-of-day priced genai-prices model began to be priced by time of day: its
    first dated price (genai-prices keeps the flat rate before it as the undated first price:
    DeepSeek V4 from 2026-08-17), or None when it is priced by time of day from its first price."""
    days = [c["constraint"]["start_date"] for c in m["prices"]
            if (c.get("constraint") or {}).get("__t") == "StartDateConstraint"]
    return min(days) if days else None


def genai_peak_figures(m):
    """{component: figure} of a genai-prices model's time-of-day prices where all its windows
    agree (DeepSeek V4 Pro's 1.32 / 0.044 / 3.96 in 01:00-04:00 and 06:00-10:00 UTC)."""
    out = {}
    for comp, f in GENAI_COMPONENTS.items():
        vals = {mtok_text(c["prices"].get(f)) for c in m["prices"]
                if (c.get("constraint") or {}).get("__t") == "TimeOfDateConstraint"}
        if len(vals) == 1 and None not in vals:
            out[comp] = vals.pop()
    return out


def prices_of(m):
    """[(start_date or None, ModelPrice dict)] of the standard tier, oldest first."""
    pr = m.get("prices")
    if isinstance(pr, dict):
        steps = [(None, pr)]
    else:
        steps = []
        for c in pr or []:
            con = c.get("constraint")
            if con and con.get("__t") != "StartDateConstraint":
                continue                       # time-of-day (off-peak) prices are not tiers here
            steps.append((con["start_date"] if con else None, c["prices"]))
        steps.sort(key=lambda s: s[0] or "")
        if steps and steps[0][0]:
            # genai-prices uses the first price for any earlier time too: its date only says
            # since when the list carries it, so it is not a price change
            steps[0] = (None, steps[0][1])
    ok = [s for s in steps if any(mtok_text(s[1].get(f)) not in (None, "0") for f in ("input_mtok", "output_mtok"))]
    return ok


# genai-prices' own note that a price on a maker's provider is OpenRouter's, not the maker's:
# "Imported from OpenRouter pricing; verify against OpenAI pricing when native API pricing is
# published." (gpt-oss-120b at 0.039 / 0.18, OpenRouter's figure; OpenAI's API sells no gpt-oss),
# "Can't find pricing on this model, so just trusting open router" (Mistral's
# mistral-small-24b-instruct-2501). A note that goes on to say it was verified against the maker
# (gpt-chat-latest: "... Verified against OpenAI on 2026-10-15") is the maker's price.
OPENROUTER_IMPORT = re.compile(r"Imported from OpenRouter pricing; verify against .+ pricing when native API pricing is published\."
                               r"|Can't find pricing on this model, so just trusting open router")


# genai-prices' own note that its USD figure is a conversion of a price in another currency: the
# Zhipu AI provider (open.bigmodel.cn), "Prices sourced from Zhipu AI open platform pricing (CNY,
# open.bigmodel.cn/pricing), converted to USD at 1 USD = 7.25 CNY (May/June 2026). Zhipu AI does not
# publish USD prices; CNY is the only billing currency." (GLM-4-FlashX-250414 at 0.014: Zhipu's
# 0.1 yuan per 1M tokens divided by 7.25), and the same words on a model ("... converted to USD at
# 1 USD = 7.25 CNY."). An exchange rate the source chose is no price the maker charges in USD.
CURRENCY_CONVERSION = re.compile(r"converted to USD at 1 USD = [0-9.]+ CNY")


NOT_THE_MAKERS_PRICE = ("the maker's price in genai-prices is not the maker's USD price (its own note, the detail: "
                        "OpenRouter's figure, or a conversion from another currency): no price of the maker's own API")


def not_the_makers_price(p, m):
    """genai-prices' own note, on the model `m` or on its provider `p`, that its figure on this
    provider is not the maker's USD price: OpenRouter's figure (OPENROUTER_IMPORT) or a conversion
    at an exchange rate (CURRENCY_CONVERSION). The note, else None."""
    for x in (m, p):
        note = (x.get("price_comments") or "").strip()
        if OPENROUTER_IMPORT.fullmatch(note) or CURRENCY_CONVERSION.search(note):
            return note
    return None


def maker_hint(m):
    """The organisation a genai-prices model's match rules name (e.g. "alpindale/goliath-120b");
    a Fireworks account path (`accounts/fireworks/models/`, `.../routers/`) names none."""
    for mid in genai_match_ids(m.get("match")):
        org, _rest = split_org(re.sub(r"^accounts/[^/]+/[^/]+/", "", mid))
        if org and not org.startswith("~"):
            return ORG_MAKERS.get(org, slugify(org))
    return None
