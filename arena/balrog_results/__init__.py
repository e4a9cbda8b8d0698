"""Results in the layout of BALROG's leaderboard submissions (BALROG §3; the
balrog-ai/experiments repository): imported with their trajectories as a submission of
kind "imported" (`parsing` reads and checks a folder, `importer` writes it), and any
submission's BALROG runs exported in the same layout (`exporter`).

The layout: `<LLM|VLM>/<date>_<name>/` holds summary.json, metadata.yaml, README.md, and
per environment `<env>/<env>_summary.json` and one `<task>_run_NN.json` (the episode)
with its `<task>_run_NN.csv` (the steps) per episode, in folders that differ per
environment — files are found by walking, never by fixed paths (`files`, `format`).
"""
