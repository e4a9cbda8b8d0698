#!/usr/bin/env bash
# Builds llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`)
# once, for the tests that play against it (tests/support/llama_cpp_python_server.py), and
# prints the Python that runs it on stdout.
#
# It is a separate virtual environment, not the project's: the server pulls in FastAPI,
# uvicorn and a compiled llama.cpp the product itself never needs. It is built from the
# same llama-cpp-python sdist as scripts/build_llama_server.sh, with the same
# compiler options (portable unless ARENA_LLAMA_CPU says otherwise), and kept outside the
# clone, in
#   ${ARENA_CACHE_DIR:-$HOME/.cache/arena}/llama-cpp-python-<version>-<recipe hash>/
# so a fresh clone (CI) reuses it; a second run does nothing. Build output goes to
# build.log there; stdout carries only the interpreter's path.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
source "$(dirname "$0")/llama_cpu_level.sh"
cmake_args="-DGGML_NATIVE=OFF ${cpu_level_options[*]} \
-DGGML_OPENMP=OFF -DGGML_CCACHE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAVA_BUILD=OFF -DMTMD_BUILD=OFF"
recipe_hash=$(printf '%s\n' "$LLAMA_CPP_PYTHON_VERSION" "$cmake_args" server | sha256sum | cut -c1-12)

cache_root=${ARENA_CACHE_DIR:-$HOME/.cache/arena}
install_dir="$cache_root/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION-$recipe_hash"
python_out="$install_dir/venv/bin/python"
ready="$install_dir/.ready"

if [ -f "$ready" ]; then
  echo "$python_out"
  exit 0
fi

fail() {
  echo "build_llama_cpp_python.sh: error: $*" >&2
  exit 1
}

for tool in cmake c++ make; do
  command -v "$tool" >/dev/null || fail "'$tool' is not installed (scripts/bootstrap.sh --test installs it from scripts/apt-packages-test.txt)"
done

mkdir -p "$install_dir"
# Two test runs starting at once must not build twice into the same place.
exec 9>"$install_dir/.lock"
flock 9
if [ -f "$ready" ]; then
  echo "$python_out"
  exit 0
fi

python=${PYTHON:-python3}
log="$install_dir/build.log"
: >"$log"
rm -rf "$install_dir/venv"
echo "building llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION with its server (one time, several minutes) into $install_dir" >&2
started=$(date +%s)
"$python" -m venv "$install_dir/venv" >>"$log" 2>&1 || fail "could not create a virtual environment with $python"
if ! CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="${ARENA_BUILD_JOBS:-2}" \
    nice "$install_dir/venv/bin/pip" install --no-cache-dir --no-binary llama-cpp-python \
    "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" >>"$log" 2>&1; then
  tail -n 40 "$log" >&2
  fail "pip could not build llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION; the full log is $log"
fi
"$python_out" -c "import llama_cpp.server.app" >>"$log" 2>&1 || fail "the built llama_cpp.server does not import; see $log"
touch "$ready"
echo "built llama-cpp-python's server in $(($(date +%s) - started)) s" >&2
echo "$python_out"
