.PHONY: serve test bench install

# The two commands of the quick start. Both install what they need first.
serve:
	scripts/bootstrap.sh
	scripts/serve.sh

test:
	scripts/bootstrap.sh --test
	.venv/bin/python -m pytest -q

install:
	scripts/bootstrap.sh

bench:
	scripts/bootstrap.sh
	.venv/bin/python bench/runner_overhead.py
