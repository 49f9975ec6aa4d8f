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
  echo "Seeds 1..N are the rapidcheck seeds of the property; one seed drives the same random stream"
  echo "for every task, so the (task, dim) pairs of part 3 are not independent samples."
  echo "CUDA property time: the small-shape phase stops after kPropertySmallTrialsSecondsCuda (60 s),"
  echo "then kPropertyFullSizeTrialsCuda (3) trials at up to 2x the benchmark size; measure it on a GPU"
  echo "with \`rkt test --filter '*.property_shapes' --json\` (per-case milliseconds)."
  echo "Classes from_1024 and from_4096 (wrong only from N = 1024 or 4096 up) are reached by the shape"
  echo "property's last phase, whole_domain (kPropertyWholeDomainTrialsPerDim trials per domain dim, one"
  echo "dim at a time to the domain's maximum or log-uniformly towards it, within kPropertyWholeDomainInputBudget*)."
  echo "A pair at 0/100 is one the input budget keeps below the threshold (kb_l1_001.N: a square matmul's"
  echo "two N x N inputs fit the CPU's 4 MiB only up to N = 724): not testable there at that budget."
  echo
  "$build_dir/bin/rkt_property_detection" "$@" 2>/dev/null
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
