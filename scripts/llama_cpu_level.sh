# Sourced by the llama.cpp build scripts: the instruction sets the build may use, as
# cmake options in `cpu_level_options`, chosen by ARENA_LLAMA_CPU:
#   portable (default)  x86-64-v2 (SSE4.2) at most: the tests' binaries, whose cache may be
#                       carried to any machine.
#   x86-64-v3           AVX2, FMA, F16C, BMI2: about an order of magnitude faster on a CPU
#                       that has them; what the benches against real servers use, since a
#                       portable build reads a prompt at a few tokens per second there.
case "${ARENA_LLAMA_CPU:-portable}" in
  portable)
    cpu_level_options=(-DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF) ;;
  x86-64-v3)
    if ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
      echo "ARENA_LLAMA_CPU=x86-64-v3 needs a CPU with AVX2; this one has none" >&2
      exit 1
    fi
    cpu_level_options=(-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON) ;;
  *)
    echo "ARENA_LLAMA_CPU must be 'portable' or 'x86-64-v3', not '${ARENA_LLAMA_CPU}'" >&2
    exit 1 ;;
esac
