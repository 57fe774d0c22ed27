"""The dataset pipeline's unit tests, by stage: test_sources, test_series, test_screen,
test_evidence, test_lifecycle, test_snapshot, test_launch, test_kinds, test_notices, test_sync,
and test_layout (the package's own house rules).
`python3 -m unittest discover -s tools/dataset -p 'test_*.py'` finds them: this folder is a
package, and the discovery puts tools/dataset first on the import path, so `pipeline` imports.
"""
