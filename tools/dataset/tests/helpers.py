"""What the unit tests share: steps and their (date, value) pairs, and the values the litellm stages
read, built from excerpts. Standard library only.
"""
import gzip
import json
from types import SimpleNamespace

from pipeline import REPO

from pipeline.history import LitellmRows
from pipeline.series import Step


def steps(*pairs, srcs=None):
    return [Step(d, v, srcs=(srcs or {}).get(d, ())) for d, v in pairs]


def litellm_inputs(releases, ledger, genai_version=None):
    """What the litellm stages read of Inputs: the releases and llmledger (no pinned bisection)."""
    return SimpleNamespace(releases=releases, ledger=ledger, ledger_src="llmledger 0.2.0", bisected={},
                           genai_version=genai_version, step_sources=None, limit_statements={})


def chosen_rows(releases, lit_best, tally):
    """LitellmRows with the rows of each release already chosen (`lit_best`), no regional rows."""
    rows = LitellmRows.__new__(LitellmRows)
    rows.releases, rows.lit_best, rows.region_best, rows.tally = releases, lit_best, {}, tally
    return rows


NO_PEAKS = SimpleNamespace(peak_since={}, peak_window={}, off_peak_genai={})


def prices(xs):
    return [(s.date, s.value) for s in xs]


def bundled():
    """The bundled snapshot (data/snapshot.json.gz), its models by id and the quarantine report's
    screened-out entries (data/quarantine.json)."""
    data = REPO / "data"
    snap = json.loads(gzip.decompress((data / "snapshot.json.gz").read_bytes()))
    return snap, {m["id"]: m for m in snap["models"]}, json.loads((data / "quarantine.json").read_text())["screened"]
