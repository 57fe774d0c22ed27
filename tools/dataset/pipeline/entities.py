"""Stage 2, the resolved entities: every source row's Ref (resolve.py: channel, provider API id,
maker, match key) and the entity a Ref belongs to, (maker, match key): the rows with the same
maker and key are one model, Bedrock's version suffixes and dated snapshots joined or kept apart
by the rules below (docs/snapshot-format.md 5.1). What no rule resolves is counted as left out.
Standard library only.
"""
from collections import defaultdict
from dataclasses import replace

from . import take
from .loaders import per_token_to_mtok
from .resolve import genai_ref, latest_named, litellm_ref, modelsdev_ref, split_date
from .sources import genai_prices, litellm

# the reason a row phantoms.json lists is left out with
PHANTOM = "names no model its channel lists (tools/dataset/phantoms.json)"


class Entities:
    """`lit_ref` (litellm's (key, provider) -> Ref), `gen_rows` and `md_rows` (genai-prices' and
    models.dev's rows with their Refs), and `entity_of`, the entity a Ref's maker and key belong to."""

    def __init__(self, inputs, tally):
        take(self, inputs, "releases", "phantoms", "ledger", "genai", "modelsdev")
        self.tally = tally
        self.resolve_all()

    def resolve_all(self):
        """Refs for every litellm row (all releases) and every genai-prices model."""
        self.lit_ref = {}            # (key, provider) -> Ref
        lit_reason = {}
        for _v, _d, data in self.releases:
            for key, e in data.items():
                pk = (key, e.get("litellm_provider"))
                if pk in self.lit_ref or pk in lit_reason:
                    continue
                reason = PHANTOM if key in self.phantoms else litellm.row_reason(e)
                ref = None
                if not reason:
                    ref, reason = litellm_ref(key, e, self.ledger.maker.get(key))
                if ref:
                    self.lit_ref[pk] = ref
                else:
                    lit_reason[pk] = reason
        for pk, reason in lit_reason.items():
            if pk not in self.lit_ref:
                self.tally.left_out["litellm: " + reason] += 1

        self.gen_rows = []           # (provider, model, Ref)
        self.gen_batch = set()       # OpenRouter "<model>:batch" ids: that model's batch tier
        for p in self.genai:
            for m in p["models"]:
                mid = m["id"]
                if p["id"] == "openrouter" and mid.endswith(":batch"):
                    mid = mid[: -len(":batch")]
                    self.gen_batch.add((p["id"], m["id"]))
                ref, reason = genai_ref(p["id"], mid, genai_prices.maker_hint(m))
                if not ref:
                    self.tally.left_out["genai-prices: " + reason] += 1
                    continue
                if not genai_prices.prices_of(m):
                    self.tally.left_out["genai-prices: no_token_price"] += 1
                    continue
                self.gen_rows.append((p, m, ref))

        self.md_rows = []            # (provider id, model id, model, Ref): models.dev listings
        for pid, prov in sorted(self.modelsdev.items()):
            for mid, m in sorted(prov["models"].items()):
                ref = modelsdev_ref(pid, mid)
                if ref:
                    # a `-latest` listing from before its id moved is the model it named then
                    named = latest_named(ref.maker, ref.mkey, m.get("release_date"))
                    if named:
                        ref = replace(ref, mkey=named)
                    self.md_rows.append((pid, mid, m, ref))

        # Bedrock version suffixes (-v1:0, -v2, -v2:1): dropped, unless the host lists several
        # versions of one base name (Titan Text Embeddings v1 / v2, Claude v2 / v2.1): then each
        # version is its own model, like dated snapshots
        versions = defaultdict(set)
        for r in list(self.lit_ref.values()) + [r for _p, _m, r in self.gen_rows] + [r for *_x, r in self.md_rows]:
            if r.version is not None:
                versions[(r.maker, r.mkey)].add(r.version)
        self.versioned = {k for k, v in versions.items() if len(v) > 1}
        self.lit_ref = {k: self.with_version(r) for k, r in self.lit_ref.items()}
        self.gen_rows = [(p, m, self.with_version(r)) for p, m, r in self.gen_rows]
        self.md_rows = [(pid, mid, m, self.with_version(r)) for pid, mid, m, r in self.md_rows]

        # dated snapshots: a full-date suffix merges with its undated base only when the base has
        # exactly one dated snapshot across all sources
        refs = list(self.lit_ref.values()) + [r for _p, _m, r in self.gen_rows]
        tags = defaultdict(set)
        tagged = {}
        for r in refs:
            base, tag = split_date(r.mkey)
            if tag:
                tags[(r.maker, base)].add(tag)
                tagged[(r.maker, base, tag)] = r.mkey
        self.tags, self.tagged = tags, tagged
        self.present = {(r.maker, r.mkey) for r in refs}
        # a "-latest" id with no dated snapshot to join is the undated base, unless a litellm release
        # prices the two differently on one channel: then the base id is an older model (Mistral's
        # undated "mistral-small" is Small v1; "mistral-small-latest" the current one) and the
        # "-latest" id is a model of its own, like OpenAI's undated moving aliases
        self.latest_own = set()
        for _v, _d, data in self.releases:
            rows = {}
            for key, e in data.items():
                r = self.lit_ref.get((key, e.get("litellm_provider")))
                if r and not r.regional:
                    rows.setdefault((r.channel, r.maker, r.mkey), e)
            for (ch, maker, mkey), e in rows.items():
                if not mkey.endswith("-latest") or self.tags.get((maker, mkey[: -len("-latest")])):
                    continue
                base = rows.get((ch, maker, mkey[: -len("-latest")]))
                if base and any(per_token_to_mtok(e.get(f)) != per_token_to_mtok(base.get(f))
                                for f in ("input_cost_per_token", "output_cost_per_token")):
                    self.latest_own.add((maker, mkey))

    def with_version(self, r):
        if r.version is None or (r.maker, r.mkey) not in self.versioned:
            return r
        major, minor = r.version
        tag = (f"v{major}" if major >= 0 else "") + (f"-{minor}" if minor else "")
        return replace(r, mkey=f"{r.mkey}-{tag}".replace("--", "-").strip("-"), version=None)

    def entity_of(self, ref_maker, mkey):
        base, tag = split_date(mkey)
        if tag:
            if len(self.tags[(ref_maker, base)]) == 1:
                return (ref_maker, base)
            return (ref_maker, mkey)
        named = latest_named(ref_maker, mkey)
        if named:
            return self.entity_of(ref_maker, named)
        if mkey.endswith("-latest"):
            b = mkey[: -len("-latest")]
            if self.tags.get((ref_maker, b)):
                newest = max(self.tags[(ref_maker, b)])
                return self.entity_of(ref_maker, self.tagged[(ref_maker, b, newest)])
            if (ref_maker, b) in self.present and (ref_maker, mkey) not in self.latest_own:
                return (ref_maker, b)
        return (ref_maker, mkey)
