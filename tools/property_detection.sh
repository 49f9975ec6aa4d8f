#!/usr/bin/env bash
# Measures how often the default shape property catches each edge bug class over 100 seeds, on the
# CPU (real runs of tests/adversaries/edge_kernels.cpp) and with the CUDA settings (the generator's
# choices, judged by each class's predicate), and records it in docs/property_detection.md.
# A measurement, not a test: run it after changing the edge mixture or the trial defaults.
#
#   bash tools/property_detection.sh [--seeds N]
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${RKT_BUILD_DIR:-$repo_root/build}"
cmake --build "$build_dir" --target rkt_property_detection -j "$(nproc)" >/dev/null
out="$repo_root/docs/property_detection.md"
{
  echo "# Edge bug classes: how often the shape property catches them"
  echo
  echo "Recorded by \`tools/property_detection.sh\` on $(date -u +%Y-%m-%d) ($(uname -m), $(nproc) cores)."
  echo "Goal: every class caught in at least 99 of 100 seeds. Defaults: \`include/rkt/defaults.h\`"
  echo "(kPropertyTrialsCpu, kPropertySmallTrialsCuda, kPropertyFullSizeTrialsCuda, kEdgeDim*Share)."
  echo
  "$build_dir/bin/rkt_property_detection" "$@"
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
