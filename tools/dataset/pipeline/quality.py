"""The measures of the data-quality report (report.py prints them) of a built snapshot and its
quarantine: the events a first publish emits (as publish derives them: docs/publishing.md), the
checks the history must pass, the lifecycle and launch-date coverage. Standard library only.
"""
from collections import Counter, defaultdict
from decimal import Decimal

from . import evidence, limit_evidence
from .launch import BASES, coverage
from .lifecycle import STALE_DAYS
from .render import value_at_hist
from .screen import BIG_MOVE, FIRST_LAUNCH, UNDO_DAYS, independent_sources, placeholder_shutdown
from .series import days_between

def source_ids(step):
    return sorted({s.split(" ", 1)[0] for s in step.get("sources", ())})


def price_events(snap, since):
    """(type, channel, step, previous step, series) for every price step after another price."""
    gen = snap["generated_at"][:10]
    for p in snap["prices"]:
        h = p["history"]
        for a, b in zip(h, h[1:]):
            if a["price"] is None or b["price"] is None or a["price"] == b["price"] or b["from"] < since:
                continue
            yield ("price_change_scheduled" if b["from"] > gen else "price_change"), p["channel"], b, a, p


def limit_events(snap, since):
    """(model, limits entry) per `limit_change` event the publish emits: one per limit that moved
    between two entries of a model's limits history (sql/50_publish.sql), so an entry moving both
    limits is two events (deepseek-chat on 2024-12-26: 128K -> 64K context, 4K -> 8K output)."""
    for m in snap["models"]:
        lim = m.get("limits") or []
        for a, b in zip(lim, lim[1:]):
            if b["from"] < since:
                continue
            for f in ("context_window", "max_output_tokens"):
                if a[f] is not None and b[f] is not None and a[f] != b[f]:
                    yield m, b


def checks(snap):
    """Names of the failed history checks, each with its offenders (empty: all hold)."""
    gen = snap["generated_at"][:10]
    bad = {}
    for p in snap["prices"]:
        h = p["history"]
        name = f'{p["model"]} {p["channel"]} {p["component"]} {p["tier"]}'
        prices = [x for x in h if x["price"] is not None]
        for a, b in zip(prices, prices[1:]):
            lo, hi = sorted((Decimal(a["price"]), Decimal(b["price"])))
            if lo > 0 and hi / lo >= BIG_MOVE and min(len(independent_sources(x.get("sources", ()))) for x in (a, b)) < 2:
                bad.setdefault("move of 10x or more with one independent source", []).append(f'{name} {b["from"]}')
        for a, b, c in zip(h, h[1:], h[2:]):
            if None not in (a["price"], b["price"]) and c["price"] == a["price"] and days_between(b["from"], c["from"]) <= UNDO_DAYS:
                bad.setdefault("move undone within 60 days", []).append(f'{name} {b["from"]}')
    shut = {}
    for m in snap["models"]:
        if m["deprecation_date"] and m["retirement_date"] and m["deprecation_date"] > m["retirement_date"]:
            bad.setdefault("deprecation after retirement", []).append(m["id"])
        if m["launch_date"] and m["launch_date"] < FIRST_LAUNCH:
            bad.setdefault("launch before 2015", []).append(m["id"])
        launch = [m.get(f) for f in ("launch_basis", "launch_source", "launch_precision")]
        if any(launch) and not (m["launch_date"] and all(launch)) or m["launch_date"] and not all(launch):
            bad.setdefault("launch date without its basis, source and precision", []).append(m["id"])
        if m["status"] == "retired":
            shut[m["id"]] = m["retirement_date"]
    ended = {(m["id"], st["channel"]): st["shutdown"] for m in snap["models"] for st in m.get("lifecycle", ())
             if st["shutdown"] and st["shutdown"] <= gen}
    for p in snap["prices"]:
        last = [x for x in p["history"] if x["from"] <= gen][-1:]
        current = bool(last) and last[0]["price"] is not None
        if p["model"] in shut and current and not stale(p, gen):
            bad.setdefault("price a source still confirms of a retired model", []).append(f'{p["model"]} {p["channel"]}')
        if current and (p["model"], p["channel"]) in ended:
            bad.setdefault("current price after the shutdown a provider page states", []).append(
                f'{p["model"]} {p["channel"]}')
        if any(placeholder_shutdown(x["from"], gen) for x in p["history"]):
            bad.setdefault("a step 10 or more years after the snapshot (a placeholder date)", []).append(
                f'{p["model"]} {p["channel"]} {p["component"]} {p["tier"]}')
    # a lifecycle status or date rests on a provider's statement, the one the card names
    for m in snap["models"]:
        said = [st for st in m.get("lifecycle", ()) if st["decides"]]
        if m["status"] != "active" and len(said) != 1:
            bad.setdefault("deprecated or retired without a provider's statement", []).append(m["id"])
        stated = {d for st in m.get("lifecycle", ()) for d in (st["announced"], st["shutdown"])}
        for f in ("deprecation_date", "retirement_date"):
            if m[f] and m[f] not in stated:
                bad.setdefault(f"{f} no provider statement gives", []).append(m["id"])
        if m["successor"] and m["successor"] not in {st["successor"] for st in m.get("lifecycle", ())}:
            bad.setdefault("successor no provider statement names", []).append(m["id"])
    return bad


def stale(p, gen):
    """A price row no source release confirmed in the 30 days before `gen` (lifecycle.STALE_DAYS)."""
    return days_between(p["last_verified_at"][:10], gen) > STALE_DAYS


def lifecycle_events(snap, since):
    """(type, model, statement) of every lifecycle event publish emits (docs/publishing.md): a
    `deprecation` on each statement's announcement day, a `retirement` on its shutdown day, future
    days included (published ahead)."""
    for m in snap["models"]:
        for st in m.get("lifecycle", ()):
            for kind, day in (("deprecation", st["announced"]), ("retirement", st["shutdown"])):
                if day and day >= since:
                    yield kind, m, st


def lifecycle_report(snap, since):
    """Per provider and channel: deprecated and retired models with their dates and successor; per
    lifecycle page (notice): the rows it has, the events they publish, and why a row publishes
    none."""
    gen = snap["generated_at"][:10]
    print(f"\nlifecycle per provider (maker): deprecated / retired models; with deprecation date, "
          f"retirement date, successor; lifecycle events from {since} (ahead of {gen})")
    per = defaultdict(Counter)
    for m in snap["models"]:
        c = per[m["provider"]]
        c[m["status"]] += 1
        if m["status"] != "active":
            c["dated"] += bool(m["deprecation_date"] or m["retirement_date"])
            c["deprecation_date"] += bool(m["deprecation_date"])
            c["retirement_date"] += bool(m["retirement_date"])
            c["successor"] += bool(m["successor"])
    for kind, m, st in lifecycle_events(snap, since):
        per[m["provider"]][kind + " events"] += 1
        per[m["provider"]]["ahead"] += (st["announced"] if kind == "deprecation" else st["shutdown"]) > gen
    cols = ("deprecated", "retired", "dated", "deprecation_date", "retirement_date", "successor",
            "deprecation events", "retirement events", "ahead")
    print("  " + f"{'provider':14s}" + "".join(f"{c:>19s}" for c in cols))
    for prov in sorted(p for p, c in per.items() if c["deprecated"] or c["retired"] or c["retirement events"]):
        print("  " + f"{prov:14s}" + "".join(f"{per[prov][c]:19d}" for c in cols))
    tot = Counter()
    for c in per.values():
        tot.update(c)
    print("  " + f"{'total':14s}" + "".join(f"{tot[c]:19d}" for c in cols))
    print("\nlifecycle per channel: statements (with shutdown, of them ahead), events")
    chan = defaultdict(Counter)
    for m in snap["models"]:
        for st in m.get("lifecycle", ()):
            chan[st["channel"]]["statements"] += 1
            chan[st["channel"]]["with shutdown"] += bool(st["shutdown"])
            chan[st["channel"]]["ahead"] += bool(st["shutdown"] and st["shutdown"] > gen)
            chan[st["channel"]]["with successor"] += bool(st["successor"])
    for kind, _m, st in lifecycle_events(snap, since):
        chan[st["channel"]][kind + " events"] += 1
    for ch in sorted(chan):
        print(f"  {ch:12s} " + ", ".join(f"{k} {v}" for k, v in sorted(chan[ch].items())))
    print("\nlifecycle pages (notices): rows on the page, events published, rows without an event and why")
    notices = sorted(evidence.load() + limit_evidence.load(), key=lambda n: n["id"])
    stated = defaultdict(set)       # (notice source, model) -> the days its rows state
    for n in notices:
        for d in n.get("deprecations", ()):
            stated[(evidence.source_of(n), d["model"])] |= {d.get("announced"), d.get("shutdown")}
    # an event counts for the notice that states its day (a statement may draw on several, oldest
    # first): a deprecation for the first that states it, a retirement for the newest
    published = Counter()
    for kind, m, st in lifecycle_events(snap, "0000-00-00"):
        day, srcs = st["announced"], st["source"].split(evidence.SOURCES_SEP)
        if kind == "retirement":
            day, srcs = st["shutdown"], srcs[::-1]
        published[next((src for src in srcs if day in stated[(src, m["id"])]), srcs[0])] += 1
    # a statement drawing on several notices names them all (evidence.SOURCES_SEP)
    carried = {(m["id"], st["channel"], src) for m in snap["models"] for st in m.get("lifecycle", ())
               for src in st["source"].split(evidence.SOURCES_SEP)}
    models = {m["id"] for m in snap["models"]}
    for n in notices:
        if "deprecations" not in n:
            continue
        src = evidence.source_of(n)
        why = Counter(x["why"] for x in n.get("not_entered", ()))
        for d in n["deprecations"]:
            chans = d.get("channels") or n.get("channels", ("official",))
            if d["model"] not in models:
                why["no model of the snapshot"] += 1
            elif not any((d["model"], ch, src) in carried for ch in chans):
                why["superseded by the rows around it (an older deprecation day, a newer end and successor), "
                    "or a channel that does not sell the model"] += 1
            elif not (d.get("announced") or d.get("shutdown")):
                why["no day stated (" + ("a planned end only" if d.get("not_before") else "deprecated, undated") + ")"] += 1
        rows = len(n["deprecations"]) + len(n.get("not_entered", ()))
        print(f"  {n['id']:48s} rows {rows:3d}, events {published[src]:3d}"
              + "".join(f"; {v} {k}" for k, v in sorted(why.items())))


def launch_report(snap, quarantine):
    """Launch coverage of the active models: per basis, source, provider and channel; what each
    source gave; what the launch rule passed over and why; the archived OpenRouter moves."""
    cov = coverage(snap["models"])
    n, dated, first = cov["active"], cov["dated"], cov["first_party"]
    print(f"\nlaunch dates (active models): {dated} of {n} ({100 * dated / max(n, 1):.1f}%); first-party basis "
          f"(announced, maker_api, first_listed) {first} ({100 * first / max(dated, 1):.1f}% of those dated)")
    print("  per basis: " + ", ".join(f"{k} {v}" for k, v in cov["by_basis"].items()))
    print("  per source: " + ", ".join(f"{k} {v}" for k, v in cov["by_source"].items()))
    cols = list(BASES) + ["unknown"]
    print(f"  {'provider':22s} " + " ".join(f"{c[:13]:>13s}" for c in cols))
    others = Counter()
    for prov, row in sorted(cov["by_provider"].items(), key=lambda x: (-sum(x[1].values()), x[0])):
        if sum(row.values()) < 5:
            others.update(row)      # the makers of fewer than five active models, in one row
            continue
        print(f"  {prov:22s} " + " ".join(f"{row.get(c, 0):13d}" for c in cols))
    print(f"  {'(fewer than 5 each)':22s} " + " ".join(f"{others.get(c, 0):13d}" for c in cols))
    active = {m["id"]: m for m in snap["models"] if m["status"] == "active"}
    gen = snap["generated_at"][:10]
    per_channel = {}
    for p in snap["prices"]:
        if p["model"] in active and p["tier"] == "standard" and value_at_hist(p["history"], gen) is not None:
            per_channel.setdefault(p["channel"], set()).add(p["model"])
    print(f"  {'channel':22s} " + " ".join(f"{c[:13]:>13s}" for c in cols))
    for ch, ids in sorted(per_channel.items(), key=lambda x: -len(x[1])):
        row = Counter(active[i].get("launch_basis") or "unknown" for i in ids)
        print(f"  {ch:22s} " + " ".join(f"{row.get(c, 0):13d}" for c in cols))
    given = snap["report"].get("launch_sources", {})
    print("  models each source gave a launch day for (any status): "
          + ", ".join(f"{k} {v}" for k, v in given.get("given", {}).items()))
    dropped = Counter((q["rule"], q["steps"][0]["sources"][0].split("@")[0].split(" ")[0])
                      for q in quarantine if q["component"] == "launch_date")
    print("  passed over (quarantine.json), per rule and source:")
    for (rule, src), v in sorted(dropped.items()):
        print(f"    {rule[:70]:70s} {src:32s} {v:5d}")
    moves = given.get("openrouter_archive_moves")
    if moves:
        print(f"  OpenRouter's archived catalogues: {moves['bounded']} price moves between two copies, "
              f"{moves['dated']} bounded within 7 days (none published: a move dated only between copies "
              f"further apart is not a dated change)")
