#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test with ctest.
# CUDA cases skip with their reason where no GPU is visible. Extra arguments go to ctest
# (e.g. -L correctness, -R softmax).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo_root/tools/bootstrap.sh"
build_dir="${RKT_BUILD_DIR:-$repo_root/build}"
status=0
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "$@" || status=$?
if [ "$status" -ne 0 ]; then
  # Last, so that a log shown by its tail says which case failed and why.
  "$repo_root/tools/ctest_failure_digest.sh" "$build_dir" || true
fi
exit "$status"
