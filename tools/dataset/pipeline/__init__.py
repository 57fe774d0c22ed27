"""The dataset pipeline: the stages that turn the pinned source releases into the bundled snapshot.

The entry scripts beside this package (build.py, sync.py, fetch.py, report.py) import it as
`pipeline`: Python puts a script's own folder first on the import path, and `python3 -m unittest
discover -s tools/dataset` does the same for the tests. docs/pipeline.md maps the stages.
"""
from pathlib import Path

# The fact files the build reads (sources.json, announcements.json, notices/, listings/, ...) stay in
# tools/dataset, beside the entry scripts: their paths are named in the snapshot's quarantine, the
# README's source table and the audits.
FACTS = Path(__file__).resolve().parent.parent
REPO = FACTS.parent.parent


def take(stage, earlier, *names):
    """Sets on `stage` the values `names` of an `earlier` stage (or of the inputs): each stage's
    constructor names in one call per earlier stage what it reads of it."""
    for name in names:
        setattr(stage, name, getattr(earlier, name))
