"""Reported figures: the papers' own numbers (fixtures/reported), parsed, laid out beside the
arena's rows and served at /api/leaderboard/reported/; never ranked."""
