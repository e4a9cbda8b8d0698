"""Suite pages: the boards and charts a suite's own page shows (BALROG's environments,
TextAtari's games, AdventureGame's experiments, information gathering's curves)."""
