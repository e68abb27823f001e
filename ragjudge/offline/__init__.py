"""The offline judge: a pure-Python NLP model (no LM) and its DSPy engine.

`ragjudge.offline.model` holds `OfflineModel`, `OfflineParams` and `fit_offline`;
`ragjudge.offline.engine` wires the model into DSPy as an LM engine.
"""
