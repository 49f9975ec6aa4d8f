#!/usr/bin/env bash
# cuda_off_build_test.sh <source dir> <build dir> <install prefix> [cmake args...]
#
# The configuration of a machine without CUDA: configures RobustKernelTest with
# -DRKT_ENABLE_CUDA=OFF (the framework, the tasks, the shipped CPU kernels and the in-tree example;
# not the framework's own tests, which the main build runs), checks that no CUDA was configured
# or compiled, runs the in-tree example's cases and the Google Benchmark smoke test, and installs
# the result for the example projects (tests/package/CMakeLists.txt).
#
# Cost: the build directory must sit beside the main one (build-nocuda next to build), so that
# ccache finds the main build's objects (same relative paths; CMakeLists.txt maps the build
# directory in debug info): only the files that test RKT_WITH_CUDA compile again.
set -euo pipefail
source_dir="$1" build_dir="$2" prefix="$3"
shift 3
export CCACHE_BASEDIR="$source_dir"
start=$(date +%s)
cmake -S "$source_dir" -B "$build_dir" -DRKT_ENABLE_CUDA=OFF -DRKT_BUILD_TESTS=OFF "$@"
if ! grep -q '^RKT_WITH_CUDA:INTERNAL=OFF$' "$build_dir/CMakeCache.txt"; then
  echo "FAILED: RKT_ENABLE_CUDA=OFF still configured CUDA kernels"
  exit 1
fi
configured=$(date +%s)
# Hits and misses of the shared cache while this build ran (other builds on the machine count too).
ccache_count() { ccache --print-stats 2>/dev/null | sed -n "s/^$1\t//p"; }
hits_before=$(ccache_count direct_cache_hit) misses_before=$(ccache_count cache_miss)
cmake --build "$build_dir" -j 2
built=$(date +%s)
hits=$(($(ccache_count direct_cache_hit) - ${hits_before:-0}))
misses=$(($(ccache_count cache_miss) - ${misses_before:-0}))
if [ -n "$(find "$build_dir" -name '*.cu.o' -print -quit)" ]; then
  echo "FAILED: a CUDA-off build compiled .cu files"
  exit 1
fi
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j 2 \
  -R 'cpu_online_example|rkt_bench_smoke'
tested=$(date +%s)
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
echo "CUDA-off build: configure $((configured - start)) s, build $((built - configured)) s" \
     "(ccache: $hits hits, $misses misses), ctest $((tested - built)) s"
