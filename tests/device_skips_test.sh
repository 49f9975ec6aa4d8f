#!/usr/bin/env bash
# `rkt test` on a machine without a GPU: a selection of CUDA kernels' cases only is recorded as
# skipped at once, each with the missing device's reason, in the summary and the JUnit report,
# exit 77, and no judge child is started; a selection with one case that can run here still runs
# in a child, the CUDA case beside it skipped. (On a GPU machine the CUDA cases run: skipped.)
# Usage: device_skips_test.sh RKT
set -euo pipefail
rkt="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  echo "a GPU is visible: the CUDA cases run here, nothing to skip"; exit 77
fi
cuda_cases="conv2d/cuda_implicit_gemm.correctness_x1:conv2d/cuda_implicit_gemm.property_shapes:softmax/cuda_rowwise.sanitizer_racecheck"
# As a CUDA kernel's ctest entry runs it (rkt list --ctest names the device): no child is even
# started ahead.
set +e
RKT_SELECTION_DEVICE=cuda "$rkt" test --filter "$cuda_cases" --junit "$work/cuda.xml" > "$work/cuda.log" 2>&1
code=$?
set -e
cat "$work/cuda.log"
[ "$code" = 77 ] || fail "CUDA cases only: exit $code, expected 77 (all skipped)"
grep -q "every selected case needs a device this machine lacks; 3 skipped without starting a judge child" \
  "$work/cuda.log" || fail "the fast path was not taken or not said"
[ "$(grep -c "needs cuda: no CUDA device is visible" "$work/cuda.log")" = 3 ] || fail "a case lacks its reason"
grep -q 'tests="3" failures="0" errors="0" skipped="3"' "$work/cuda.xml" || fail "the JUnit report does not hold 3 skips"

# Without the device named, a child started ahead is ended unused, and the message says so.
set +e
"$rkt" test --filter "$cuda_cases" > "$work/unnamed.log" 2>&1
code=$?
set -e
[ "$code" = 77 ] || fail "CUDA cases only, device not named: exit $code, expected 77"
grep -q "3 skipped without running a judge child (the one started ahead was ended unused" \
  "$work/unnamed.log" || fail "the child started ahead was not reported"
"$rkt" list --ctest "$work/tests.cmake" > /dev/null 2>&1 || fail "rkt list --ctest failed"
grep -A1 'add_test("softmax/cuda_rowwise:correctness"' "$work/tests.cmake" |
  grep -q 'ENVIRONMENT "RKT_SELECTION_DEVICE=cuda"' || fail "a CUDA kernel's ctest entry does not name its device"
if grep -A1 'add_test("softmax/cpu_loops:correctness"' "$work/tests.cmake" | grep -q 'RKT_SELECTION_DEVICE'; then
  fail "a CPU kernel's ctest entry names a device"
fi

set +e
"$rkt" test --filter "relu/cpu_loops.correctness_x1:conv2d/cuda_implicit_gemm.correctness_x1" > "$work/mixed.log" 2>&1
code=$?
set -e
cat "$work/mixed.log"
[ "$code" = 0 ] || fail "a CPU case beside a CUDA one: exit $code, expected 0"
! grep -q "without starting a judge child" "$work/mixed.log" || fail "a case that can run here was skipped unrun"
grep -q "1 passed, 0 failed, 1 skipped" "$work/mixed.log" || fail "the mixed selection's counts are wrong"
echo "device skips: CUDA-only selections skipped at once with their reasons; mixed ones run"
