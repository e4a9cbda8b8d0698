#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` once, for the tests that need a real OpenAI-compatible
# model server (tests/support/llama_server.py), and prints the binary's path on stdout.
#
# The llama.cpp source comes from the llama-cpp-python sdist on PyPI (it vendors llama.cpp),
# so nothing outside the package registries is needed. Only the server target is built:
# CPU only, static, no HTTPS/curl, no web UI, and not tuned to this CPU, because the cache
# may be carried to another machine. The binary is kept outside the clone, in
#   ${ARENA_CACHE_DIR:-$HOME/.cache/arena}/llama-server-<version>-<recipe hash>/bin/
# so a fresh clone (CI) reuses it; a second run does nothing. Build output goes to stderr
# and to build.log in the cache directory; stdout carries only the binary's path.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
repo_root=$(cd "$(dirname "$0")/.." && pwd)

# The CPU level (scripts/llama_cpu_level.sh): portable by default, so the tests' binary
# runs wherever the cache lands; ARENA_LLAMA_CPU=x86-64-v3 (AVX2) for the benches.
source "$(dirname "$0")/llama_cpu_level.sh"
# The cmake options are part of the cache key: changing them builds a new binary.
cmake_options=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  # No -march=native: the binary runs on any machine of its CPU level (below).
  -DGGML_NATIVE=OFF "${cpu_level_options[@]}"
  # ggml's own thread pool instead of libgomp: one dependency less, no runtime library.
  -DGGML_OPENMP=OFF
  -DGGML_CCACHE=OFF
  # No network at build or run time: no HTTPS client (this version's successor of
  # LLAMA_CURL) and no web UI downloaded from a model hub.
  -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON
)
recipe_hash=$(printf '%s\n' "$LLAMA_CPP_PYTHON_VERSION" "${cmake_options[@]}" | sha256sum | cut -c1-12)

cache_root=${ARENA_CACHE_DIR:-$HOME/.cache/arena}
install_dir="$cache_root/llama-server-$LLAMA_CPP_PYTHON_VERSION-$recipe_hash"
binary="$install_dir/bin/llama-server"

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

fail() {
  echo "build_llama_server.sh: error: $*" >&2
  exit 1
}

for tool in cmake c++ make tar; do
  command -v "$tool" >/dev/null || fail "'$tool' is not installed (scripts/bootstrap.sh --test installs it from scripts/apt-packages-test.txt)"
done

mkdir -p "$install_dir"
# Two test runs starting at once must not build twice into the same place.
exec 9>"$install_dir/.lock"
flock 9
if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

if [ -n "${PYTHON:-}" ]; then
  python=$PYTHON
elif [ -x "$repo_root/.venv/bin/python" ]; then
  python=$repo_root/.venv/bin/python
else
  python=python3
fi

work=$(mktemp -d "$install_dir/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
log="$install_dir/build.log"
: >"$log"

echo "building llama-server from llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION (one time, several minutes) into $install_dir" >&2
started=$(date +%s)

if ! "$python" -m pip download --quiet --no-deps --no-binary :all: \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" -d "$work/sdist" >>"$log" 2>&1; then
  tail -n 30 "$log" >&2
  fail "could not download the llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION source distribution from PyPI with pip (see above); the real model server tests cannot run without it"
fi
sdist=$(find "$work/sdist" -maxdepth 1 -name "llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" | head -n 1)
[ -n "$sdist" ] || fail "pip download produced no llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"

# Only llama.cpp's own tree is needed; its CMake files and sources are all under vendor/llama.cpp.
tar -xzf "$sdist" -C "$work" "llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp" \
  || fail "could not unpack $sdist"
source_dir="$work/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

run_logged() {
  if ! nice "$@" >>"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "'$1 ${2:-}' failed while building llama-server; the full log is $log"
  fi
}
run_logged cmake -S "$source_dir" -B "$work/build" "${generator[@]}" "${cmake_options[@]}"
run_logged cmake --build "$work/build" --target llama-server --parallel "${ARENA_BUILD_JOBS:-2}"

mkdir -p "$install_dir/bin"
cp "$work/build/bin/llama-server" "$binary.partial"
strip "$binary.partial" 2>/dev/null || true
# The rename is atomic: a binary that exists is always a complete one.
mv "$binary.partial" "$binary"

echo "built llama-server in $(($(date +%s) - started)) s" >&2
echo "$binary"
