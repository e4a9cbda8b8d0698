.PHONY: serve test bench install

# The two commands of the quick start. Both install what they need first.
serve:
	scripts/bootstrap.sh
	scripts/serve.sh

# Test files are spread over TEST_PROCESSES processes, each file whole in one (its
# module-wide servers start once); 2 halves the suite's time on a 2-core machine. The
# files go longest first, by the last run's times (tests/support/scheduling.py), so the
# processes end together.
TEST_PROCESSES ?= 2

test:
	scripts/bootstrap.sh --test
	.venv/bin/python -m pytest -q -n $(TEST_PROCESSES) --dist loadfile

install:
	scripts/bootstrap.sh

bench:
	scripts/bootstrap.sh
	.venv/bin/python bench/runner_overhead.py
