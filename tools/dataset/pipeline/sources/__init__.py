"""The source adapters: one module per source, each reading its releases and saying what its rows
mean, nothing about identity or history (resolve.py, series.py and the stages after them decide):
litellm, llmledger, genai_prices, modelsdev (the price sources), and the launch sources read by
launch.py: listings (first listings extracted from first-party repositories), catalogues
(OpenRouter's own catalogue), radar (archived OpenRouter catalogues), azure_prices (Azure's
retail price pulls). The providers' own statements are read by the stage that applies them:
evidence.py (notices), limit_evidence.py (limit notices), kinds.py (kind statements).
"""
