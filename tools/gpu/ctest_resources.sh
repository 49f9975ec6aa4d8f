#!/usr/bin/env bash
# Writes ctest's resource spec for this host: one `gpus` entry per visible NVIDIA GPU, one slot
# each, so that `ctest --resource-spec-file FILE -j N` runs at most one CUDA test per GPU at a
# time (CUDA tests ask for `gpus:1`; the judge pins the allocated GPU, framework/supervision/gpu_pinning.h).
#
#   bash tools/gpu/ctest_resources.sh > build/resources.json
#   ctest --test-dir build --resource-spec-file build/resources.json -j 8 -L cuda
set -euo pipefail
mapfile -t ids < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null || true)
printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [\n    {\n      "gpus": ['
for i in "${!ids[@]}"; do
  printf '%s{"id": "%s", "slots": 1}' "$([[ $i -gt 0 ]] && echo ', ')" "${ids[$i]// /}"
done
printf ']\n    }\n  ]\n}\n'
