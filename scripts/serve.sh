#!/usr/bin/env bash
# Migrates, seeds the baselines, then runs a worker and the web processes until Ctrl-C.
# ARENA_WEB_PROCESSES sets how many web processes (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
PY=.venv/bin/python

$PY manage.py migrate --noinput
$PY manage.py seed_baselines

$PY manage.py arena_worker --matches 2 &
worker=$!
$PY manage.py arena_web --host "$HOST" --port "$PORT" &
web=$!

# Both run in the background so that this script's traps run as soon as a signal comes
# (bash runs a trap only once its foreground command has ended).
stop() {
  kill -TERM "$web" "$worker" 2>/dev/null || true
  wait "$web" "$worker" 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

echo "the arena is at http://$HOST:$PORT/  (worker pid $worker, web launcher pid $web; Ctrl-C stops both)"
# Whichever stops first stops the other (through the EXIT trap).
wait -n "$web" "$worker"
