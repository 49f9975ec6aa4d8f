#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the whole robustness suite over every
# registered task and kernel, writing runs/<UTC time>/results.json, report.md and report.html.
# Without a GPU, CUDA kernels are reported as skipped. Extra arguments go to `rkt run`.
#
# The compiled baseline's AOTInductor packages (tools/aoti/build_packages.py) are built first on a
# machine with a GPU (cached: later runs reuse them). RKT_COMPILED=1 builds the CPU packages too
# (about a minute each on a 2-core machine); RKT_COMPILED=0 never builds them. Tasks without a
# package report the compiled baseline as absent, with the reason.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo_root/tools/bootstrap.sh"
build_dir="${RKT_BUILD_DIR:-$repo_root/build}"
cd "$repo_root"

device=cpu
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then device=cuda; fi
if [[ "${RKT_COMPILED:-}" == 1 || ( "$device" == cuda && "${RKT_COMPILED:-}" != 0 ) ]]; then
  python="$(sed -n 's/^RKT_PYTHON:FILEPATH=//p' "$build_dir/CMakeCache.txt")"
  "$build_dir/bin/rkt" aoti-spec --device "$device" > "$build_dir/aoti_spec_$device.json"
  "$python" tools/aoti/build_packages.py "$build_dir/aoti_spec_$device.json"
fi
exec "$build_dir/bin/rkt" run "$@"
