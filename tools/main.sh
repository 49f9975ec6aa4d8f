#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the whole robustness suite over every
# registered task and kernel, writing runs/<UTC time>/results.json and summary.md.
# Without a GPU, CUDA kernels are reported as skipped. Extra arguments go to `rkt run`.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo_root/tools/bootstrap.sh"
build_dir="${RKT_BUILD_DIR:-$repo_root/build}"
cd "$repo_root"
exec "$build_dir/bin/rkt" run "$@"
