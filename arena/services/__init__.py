"""Every write to the database, one module per thing written (submissions, runs, episodes, steps, snapshots)."""
