"""The Builder: runs the stages, from the pinned releases to the snapshot and its quarantine.

The output is deterministic: the same extracted files give the same bytes. Each stage is a module
that takes the values of the stages before it and hands on its own (docs/pipeline.md maps them):
inputs.py (the sources, read by their adapters in sources/) -> entities.py (every row's Ref and
entity, resolve.py's rules) -> collect.py (the price series; litellm's in history.py) -> models.py
(ids, slugs, launch dates, aliases, benchmarks) -> finish.py (each series ended, dated and screened:
events.py, evidence.py, screen.py) -> snapshot.py (lifecycle.py, kinds.py; written by render.py).
What the stages count and screen out goes to one Tally (tally.py). The format and the rules are
documented in docs/snapshot-format.md. Standard library only.
"""
import json

from . import FACTS, render
from .collect import Collected
from .entities import Entities
from .finish import Finisher
from .history import LitellmRows
from .inputs import Inputs
from .models import Models
from .snapshot import Snapshot
from .tally import Tally, quarantine_report


class Builder:
    def __init__(self, as_of=None, keep_future=(), sources=None, bisected=FACTS / "bisected.json"):
        """`as_of`, `sources`, `bisected`: what Inputs reads; `keep_future`: what Snapshot keeps
        after `as_of`."""
        self.as_of = as_of
        self.keep_future = keep_future
        self.sources = sources
        self.bisected_path = bisected

    def run(self):
        """Runs every stage; returns the snapshot. Afterwards `releases` (the litellm releases
        read), `generated`, `screened` and `unbisected` (Tally's) are what sync.py, bisection.py
        and the quarantine report read."""
        inputs = Inputs(self.as_of, self.sources, self.bisected_path)
        tally = Tally()
        entities = Entities(inputs, tally)
        rows = LitellmRows(inputs, entities, tally)
        collected = Collected(inputs, entities, rows, tally)
        models = Models(inputs, entities, rows, collected, tally)
        finisher = Finisher(inputs, rows, collected, models, tally)
        finisher.finish_series()
        finisher.end_modelsdev_with_model()
        self.snapshot = Snapshot(inputs, rows, collected, models, tally, self.keep_future).render()
        self.releases, self.generated = inputs.releases, inputs.generated
        self.screened, self.unbisected = tally.screened, tally.unbisected
        self.models = models.models
        return self.snapshot

    def quarantine_report(self):
        return quarantine_report(self.screened, self.models, self.generated)


def write_outputs(builder, out):
    """Write the built snapshot to `out` and the quarantine report beside it; print the report."""
    data = render.dump(builder.snapshot)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    qpath = out.with_name("quarantine.json")
    qpath.write_text(json.dumps(builder.quarantine_report(), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    render.print_report(builder.snapshot)
    print(f"wrote {qpath} ({len(builder.screened)} screened-out entries)")
    print(f"wrote {out} ({len(data):,} bytes)")

