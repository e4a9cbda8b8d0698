#!/usr/bin/env bash
# Migrates, seeds the baselines, then runs a worker and Daphne until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
PY=.venv/bin/python

$PY manage.py migrate --noinput
$PY manage.py seed_baselines

$PY manage.py arena_worker &
worker=$!
trap 'kill $worker 2>/dev/null; wait $worker 2>/dev/null' EXIT INT TERM

echo "the arena is at http://$HOST:$PORT/  (worker pid $worker; Ctrl-C stops both)"
.venv/bin/daphne -b "$HOST" -p "$PORT" config.asgi:application
