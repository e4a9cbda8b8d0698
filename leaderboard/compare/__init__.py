"""Comparing two submissions: their episodes paired by seed, the bootstrap interval, the
page and the API answer."""
