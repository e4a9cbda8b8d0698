"""Helpers shared by tests and benchmarks (fake servers and the like)."""
