"""What the build counts and screens out on its way, kept apart from the values it hands from one
stage to the next: the rows each source linked and left out (the snapshot's `report`), every figure
a rule screened out (the quarantine report, data/quarantine.json), the litellm moves no ledger event
or pinned bisection dates (what bisection.py bisects), and the models a source lists with a
current price (the coverage check). Every stage that counts or screens is handed the one Tally.
Standard library only.
"""
from collections import Counter

from . import render
from .sources.litellm import LIMIT_FIELDS

# a model's lifecycle dates the gate withheld are listed in the quarantine report like a step
LIFECYCLE_FIELDS = ("deprecation_date", "retirement_date", "launch_date")


class Tally:
    """One per build, handed to every stage that counts or screens."""

    def __init__(self):
        self.left_out = Counter()
        self.linked = Counter()
        self.screened = []         # (series key, rule, [(from, price, sources)], detail)
        self.unbisected = []       # {key, field, value, after, until} of the moves no source dates
        self.listed_now = set()    # models a source lists with a current price (before the screen)

    def quarantine(self, key, rule, steps, detail=None):
        """List steps a rule screened out (written to the quarantine report, counted in left_out)."""
        self.left_out["history: " + rule + " (dropped steps)"] += len(steps)
        self.screened.append((key, rule, [(st.date, st.value, sorted(st.srcs)) for st in steps], detail))


def quarantine_report(screened, models, generated):
    """Every screened-out figure with its rule, sorted (the build's quarantine report)."""
    out = []
    for key, rule, steps, detail in screened:
        ent, ch, comp, tier = key[:4]
        if ent not in models:
            continue                # the model was never priced: nothing was published of it
        row = {"model": models[ent]["id"], "channel": ch, "component": comp, "tier": tier,
               "rule": rule, "steps": [{"from": d, "value" if comp in LIMIT_FIELDS + LIFECYCLE_FIELDS else "price": v, "sources": srcs}
                                       for d, v, srcs in steps]}
        if len(key) > 4:
            row["condition"] = render.condition(*key[4:])
        if detail:
            row["detail"] = detail
        out.append(row)
    out.sort(key=lambda r: (r["model"], r["channel"], r["component"], r["tier"] or "",
                            render.condition_order(r.get("condition")), r["steps"][0]["from"], r["rule"]))
    return {"about": "Source figures the build screened out, with the rule that removed each "
                     "(tools/dataset/pipeline/screen.py, docs/publishing.md).", "generated_at": generated,
            "screened": out}
