#!/usr/bin/env bash
# Run on a Debian 12 machine (yours or CI's): downloads the Debian packages the GPU machine lacks
# (GoogleTest, Google Benchmark, rapidcheck) into .gpu-deps/, which .gitignore ignores and the
# device run carries along. The GPU machine reaches no registry; dpkg -x unpacks them there.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$repo_root/.gpu-deps"
cd "$repo_root/.gpu-deps"
apt-get download libgtest-dev libgmock-dev googletest libbenchmark-dev libbenchmark1debian \
  librapidcheck-dev
ls -l
