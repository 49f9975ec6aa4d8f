#!/usr/bin/env bash
# Run on a Debian 12 machine (yours or CI's): downloads the Debian packages the GPU machine lacks
# (GoogleTest, Google Benchmark, rapidcheck, nlohmann/json) into .gpu-deps/, which .gitignore
# ignores and the device run carries along. The GPU machine reaches no registry; dpkg -x unpacks
# them there, and tools/gpu/run.sh's CMAKE_PREFIX_PATH (the unpacked usr/) finds each package's
# CMake config (nlohmann/json's in usr/share/cmake/nlohmann_json/).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$repo_root/.gpu-deps"
cd "$repo_root/.gpu-deps"
apt-get download libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian \
  librapidcheck-dev nlohmann-json3-dev
ls -l
