"""Playing episodes: the worker, the episode runner, the agents, the step writer, the database thread."""
