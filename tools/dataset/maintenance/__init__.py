"""Maintenance tools, run by hand when a pin or a fact file changes, never by the build.

Each runs from tools/dataset as a module, so that the package `pipeline` beside it imports:
`cd tools/dataset && python3 -m maintenance.NAME` (docs/pipeline.md lists them).
"""
