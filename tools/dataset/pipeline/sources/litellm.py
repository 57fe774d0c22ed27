"""litellm's price file (model_prices_and_context_window_backup.json of the Python package
`litellm`): reading it, and what its rows and fields say (which rows are token-priced, a price
field's component, tier, context threshold and cache-write duration, a regional row's region, the
peak window of a row billed by time of day, the limits, which of a model's rows gives its price).
One release a month is pinned in sources.json; the moves between two pins are dated by llmledger
(sources/llmledger.py) or by the first release that carries them (bisected.json). Standard
library only.
"""
import json
import re
from pathlib import Path
from typing import NamedTuple

from .. import FACTS, screen
from ..loaders import per_token_to_mtok
from ..resolve import BEDROCK_REGION, split_date


def load_litellm(path: Path) -> dict:
    data = json.loads(path.read_text())
    data.pop("sample_spec", None)
    return {k: v for k, v in data.items() if isinstance(v, dict)}


TOKEN_MODES = {"chat", "completion", "responses", "embedding"}
COMPONENTS = {"input": "input_cost_per_token", "output": "output_cost_per_token",
              "cached_input": "cache_read_input_token_cost"}
TIERS = {"standard": "", "batch": "_batches", "flex": "_flex", "priority": "_priority"}
CACHE_WRITE_FIELD = "cache_creation_input_token_cost"
# a litellm price field: the component's base name, then a cache-write duration, then a context
# threshold, then a tier suffix (`cache_creation_input_token_cost_above_1hr_above_200k_tokens_batches`);
# other suffixes (`_ultrafast`, `_decisions`, per-character or per-image fields) are no series here
PRICE_FIELD = re.compile(r"(?P<base>%s)(?:_above_(?P<ttl>\d+hr))?(?:_above_(?P<k>\d+)k_tokens)?(?P<tier>%s)?"
                         % ("|".join(list(COMPONENTS.values()) + [CACHE_WRITE_FIELD]),
                            "|".join(sfx for sfx in TIERS.values() if sfx)))
# the cache-write durations a conditional row can name; litellm's `_above_1hr` is the 1-hour write
CACHE_TTLS = {"1hr": "1h"}
# makers whose pricing page names the duration of the default cache write: Anthropic's 5-minute
# write (1.25x input; the 1-hour write is 2x), on its own API and every channel reselling Claude
DEFAULT_CACHE_TTL = {"anthropic": "5m"}
# makers that bill no cache write: Google prices context caching as cached-input tokens plus
# storage per hour, and litellm's `cache_creation_input_token_cost_above_200k_tokens` on Gemini
# repeats the cached-input rate (gemini-2.5-pro: 0.25, its cached input above 200k)
NO_CACHE_WRITE = {"google"}


# tiers a channel sells where it sells fewer than all: OpenRouter has no batch, flex or priority
# service (its `:batch`-style ids in a source are not an OpenRouter offer)
CHANNEL_TIERS = {"openrouter": {"standard"}}


# routing variants priced as the default region: global endpoints and API-route path segments
DEFAULT_ROUTES = {"global", "global-standard", "invoke", "converse", "us-east-1"}
DATA_ZONES = {"us"}
# a conditional row's `region`: a lower-case name as the channel spells it
REGION_NAME = re.compile(r"[a-z][a-z0-9-]{1,24}")


def region_segments(key, ref):
    """The regions a regional litellm key names besides the default routes: its path segments
    (`azure/eu/...`, `bedrock/eu-west-1/...`) and a Bedrock cross-region prefix (`eu.`, `apac.`)."""
    parts = key.split("/")
    segs = set(parts[1:-1])
    m = BEDROCK_REGION.match(parts[-1]) if ref.channel == "aws_bedrock" else None
    if m:
        segs.add(m.group(1))
    return segs - DEFAULT_ROUTES


def region_class(key, ref):
    """0 a plain row, 1 a global or API-route variant of it (the default region's price), 2 a US
    data-zone or cross-region row (`azure/us/`, Bedrock `us.` and `bedrock_mantle/`: a premium on
    newer models), 3 any
    other region (EU, APAC, ...: regional premiums)."""
    if not ref.regional:
        return 0
    if key.startswith("bedrock_mantle/"):
        # Bedrock's OpenAI-compatible endpoint bills the US data-zone price: the `us.` row's
        # figure, 1.1x the `global.` row's (gpt-5.6-sol: 5.5 / 33 against global 4 / 20 and
        # us 4.4 / 22 in litellm 1.100.5; gpt-6.1-terra: 1.1 against global 1 in 1.109.1)
        return 2
    segs = region_segments(key, ref)
    if not segs:
        return 1
    return 2 if segs <= DATA_ZONES else 3


def region_name(key, ref):
    """The `region` of a regional row on Azure or Bedrock (`eu` for `azure/eu/gpt-4o` and
    `eu.anthropic.claude-...`, `eu-west-1` for `bedrock/eu-west-1/...`), or None: a default-region
    row, or a key that names no single region (`bedrock_mantle/`: an endpoint, not a region; its
    price is that of the US data zone, which the `us.` row states)."""
    if ref.channel not in screen.REGIONAL_CHANNELS or region_class(key, ref) < 2 or key.startswith("bedrock_mantle/"):
        return None
    segs = region_segments(key, ref)
    name = next(iter(segs)) if len(segs) == 1 else None
    return name if name and REGION_NAME.fullmatch(name) else None


LIMIT_FIELDS = ("context_window", "max_output_tokens")


class PriceField(NamedTuple):
    """What a litellm price field's name says: the component, the tier, the request size above
    which it applies (input tokens, None: any) and the cache-write duration it names (litellm's
    spelling, None: not stated)."""
    component: str
    tier: str
    above_input_tokens: int | None
    duration: str | None

    @property
    def conditional(self):
        """Not a rate of prices[]: a context tier, or a cache write."""
        return self.above_input_tokens is not None or self.component == "cache_write"


def parse_field(name):
    """The PriceField a litellm field name spells, or None when it is no token-price series."""
    m = PRICE_FIELD.fullmatch(name)
    if not m:
        return None
    comp = "cache_write" if m["base"] == CACHE_WRITE_FIELD else next(
        c for c, base in COMPONENTS.items() if base == m["base"])
    if m["ttl"] and comp != "cache_write":
        return None
    tier = next(t for t, sfx in TIERS.items() if sfx == (m["tier"] or ""))
    return PriceField(comp, tier, int(m["k"]) * 1000 if m["k"] else None, m["ttl"])


def cache_ttl(maker, field):
    """The `cache_ttl` of a conditional row of `maker`'s model from `field` (a PriceField): None
    off cache writes and where no page says the write's duration; raises LookupError for a
    cache write no conditional row can carry (a duration other than 5m / 1h, or a maker that bills
    no cache write)."""
    if field.component != "cache_write":
        return None
    if maker in NO_CACHE_WRITE:
        raise LookupError(f"cache write of a {maker} model (billed as cached input plus storage)")
    if field.duration is None:
        return DEFAULT_CACHE_TTL.get(maker)
    if field.duration not in CACHE_TTLS:
        raise LookupError(f"cache write held {field.duration} (no cache_ttl value)")
    return CACHE_TTLS[field.duration]


def field_value(entry, field):
    """The build's reading of one field of a litellm row: a price as USD per 1M tokens text, a
    limit (LIMIT_FIELDS) as integer text; zero or missing is None."""
    if field in LIMIT_FIELDS:
        raw = entry.get("max_output_tokens") if field == "max_output_tokens" else (
            entry.get("max_input_tokens") or (entry.get("max_tokens") if entry.get("mode") == "embedding" else None))
        ok = isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw > 0
        return str(int(raw)) if ok else None
    v = per_token_to_mtok(entry.get(field))
    return None if v in (None, "0") else v


def per_character(entry):
    """A litellm row whose channel bills its text by the character: every text component it
    prices per token (input; output where it gives one) has a per-character figure beside it.
    Its per-token figures are litellm's conversion, not the channel's price: Vertex AI's
    `gemini-1.5-flash-exp-0827` gives input 1.875e-08 per character and 4.688e-09 per token
    (a quarter of it, 0.004688 per 1M). A row with a per-token output and no per-character
    output is not one (Vertex's `gemini-2.0-flash` from litellm 1.103.0: per-token output 0.6,
    an input per character derived from its per-token 0.15)."""
    priced = [c for c in ("input", "output") if field_value(entry, f"{c}_cost_per_token")]
    return bool(priced) and all(field_value(entry, f"{c}_cost_per_character") for c in priced)


def peak_listed(entry):
    """A litellm row whose list figures are its peak-hour rate: it carries an off-peak rate beside
    them (DeepSeek V4 from litellm 1.104.5)."""
    return "off_peak_pricing" in entry


def off_peak_value(entry, field):
    """The off-peak figure of a price field (USD per 1M tokens text) of a row billed by time of
    day, from its `off_peak_pricing`; None where the row states none."""
    return field_value(entry.get("off_peak_pricing") or {}, field)


def clock_minutes(text):
    h, m = text.split(":")
    return int(h) * 60 + int(m)


def clock_text(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def peak_window(off_peak):
    """The peak window of a litellm `off_peak_pricing`: the complement, per ISO weekday, of the
    off-peak `windows` it states (times UTC; "10:00-00:00" runs to midnight, "00:00-00:00" is the
    whole day), as the series key's time window ("peak", ((weekdays, from, to), ...)); None
    where the windows are not stated in UTC days (Tencent's rows count weekdays in
    Asia/Shanghai) or cannot be read."""
    if off_peak.get("weekday_timezone") not in (None, "UTC") or not off_peak.get("windows"):
        return None
    free = {day: [] for day in range(1, 8)}
    try:
        for w in off_peak["windows"]:
            hours = w["hours_utc"] if isinstance(w["hours_utc"], list) else [w["hours_utc"]]
            for span in hours:
                lo, hi = (clock_minutes(x) for x in span.split("-"))
                for day in w["weekdays"]:
                    free[day].append((lo, hi if hi > lo else 24 * 60))
    except (KeyError, ValueError, TypeError):
        return None
    peak = {}
    for day, spans in free.items():
        at, out = 0, []
        for lo, hi in sorted(spans):
            if lo > at:
                out.append((at, lo))
            at = max(at, hi)
        if at < 24 * 60:
            out.append((at, 24 * 60))
        if out:
            peak.setdefault(tuple(out), []).append(day)
    spans = sorted((tuple(days), clock_text(lo), clock_text(hi)) for out, days in peak.items() for lo, hi in out)
    return ("peak", tuple(spans)) if spans else None


def load_bisected(path=FACTS / "bisected.json"):
    """(key, field, value, after, until) -> {"first", "released"}: the pinned bisection results."""
    path = Path(path)
    if not path.exists():
        return {}
    return {(b["key"], b["field"], b["value"], b["after"], b["until"]): b
            for b in json.loads(path.read_text())["litellm"]}


def row_reason(e):
    mode = e.get("mode")
    if mode not in TOKEN_MODES:
        return f"not_token_priced_mode:{mode}"
    vals = [per_token_to_mtok(e.get(f)) for f in ("input_cost_per_token", "output_cost_per_token")]
    if not any(v not in (None, "0") for v in vals):
        return "no_token_price_or_free"
    return None


def key_rank(key, ref):
    """Which of a model's rows on a channel gives the price: the default region first (see
    region_class), then a dated snapshot's own row before `-latest` and undated alias rows
    (they move on to the next snapshot while the dated row keeps its own price), then the
    shortest id."""
    _b, tag = split_date(ref.mkey)
    return (region_class(key, ref), key.endswith("-latest"), tag is None, len(key), key)
