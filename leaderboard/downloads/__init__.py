"""Downloads: the leaderboards as JSON and CSV, and an episode or a run as JSONL, GIF or ZIP."""
