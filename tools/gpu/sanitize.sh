#!/usr/bin/env bash
# compute-sanitizer over CUDA kernels: memcheck, racecheck and synccheck, one correctness case per
# kernel (distribution x1, every config of its task, default dims), then the out-of-bounds
# adversary (relu/fault_one_past_end), which memcheck must report.
#
#   bash tools/gpu/sanitize.sh [BUILD_DIR] [KERNEL_ID]      (defaults: build, "cuda")
#
# The kernels run --in-process (the debugging mode): the sanitizer instruments the process that
# runs the kernel, and an isolated worker starts with a clean environment, without the
# sanitizer's injection. RKT_SANITIZE_TIMEOUT=S stops each tool after S seconds. Logs go to ${OUT:-sanitize-out}/; the last lines are a table of each
# tool's error count. Exit status 1 when a shipped kernel has errors or the adversary is missed.
set -uo pipefail
build="${1:-build}"
kernels="${2:-cuda}"
out="${OUT:-sanitize-out}"
mkdir -p "$out"
sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
[[ -x "$sanitizer" ]] || { echo "sanitize.sh: compute-sanitizer not found (CUDA toolkit bin/)"; exit 2; }
"$sanitizer" --version | tail -n 1 | tee "$out/sanitizer_version.txt"

errors_in() {  # the sum of the "ERROR SUMMARY: N errors" lines of a log
  grep -o 'ERROR SUMMARY: [0-9]*' "$1" | awk '{s += $3} END {print s + 0}'
}

status=0
printf '%-10s %-28s %8s %8s\n' tool target errors seconds >"$out/summary.txt"
for tool in memcheck racecheck synccheck; do
  start=$(date +%s)
  timeout "${RKT_SANITIZE_TIMEOUT:-3000}" "$sanitizer" --tool "$tool" --target-processes all --print-limit 20 \
    "$build/bin/rkt" --in-process test --kernel "$kernels" --filter '*.correctness_x1' \
    --timeout 900 >"$out/$tool.log" 2>&1
  [[ $? == 124 ]] && echo "(stopped after ${RKT_SANITIZE_TIMEOUT} s)" >>"$out/$tool.log"
  errors=$(errors_in "$out/$tool.log")
  printf '%-10s %-28s %8s %8s\n' "$tool" "shipped ($kernels)" "$errors" "$(($(date +%s) - start))" \
    >>"$out/summary.txt"
  [[ "$errors" == 0 ]] || status=1
done

start=$(date +%s)
"$sanitizer" --tool memcheck --target-processes all --print-limit 5 \
  "$build/bin/rkt_adversaries" --in-process test --filter 'relu/fault_one_past_end.correctness_x1' \
  >"$out/memcheck_adversary.log" 2>&1
errors=$(errors_in "$out/memcheck_adversary.log")
printf '%-10s %-28s %8s %8s\n' memcheck "adversary fault_one_past_end" "$errors" \
  "$(($(date +%s) - start))" >>"$out/summary.txt"
grep -q 'Invalid __global__ write' "$out/memcheck_adversary.log" || status=1

cat "$out/summary.txt"
exit "$status"
