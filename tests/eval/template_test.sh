#!/usr/bin/env bash
# `rkt template TASK [--device cpu|cuda]`: the printed skeleton compiles as printed, for tasks of
# each shape (elementwise, row reduction, several inputs with weights, a backward task, a
# KernelBench task), with the package's C++ compiler on the CPU and with nvcc -c for --device
# cuda (relu and cross_entropy; compile only: no GPU needed); it states the task's inputs and outputs and the
# ROBUST_KERNEL_TEST line; an unwritten skeleton judged by rkt eval fails (it must never pass by
# accident); an unknown task or device is a usage error (exit 2) with the nearest task id.
# Usage: template_test.sh RKT CXX INCLUDE_DIR [NVCC]
set -euo pipefail
rkt="$1"; cxx="$2"; include="$3"; nvcc="${4:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tasks="relu softmax layernorm cross_entropy rkb_layernorm_backward kb_l1_019"
for task in $tasks; do
  if ! "$rkt" template "$task" --device cpu > "$work/$task.cpp" 2> "$work/err"; then
    # A task id that this build does not have is a test error, not a skip.
    cat "$work/err"; fail "rkt template $task failed"
  fi
  grep -qF "ROBUST_KERNEL_TEST($task, my_cpu_kernel" "$work/$task.cpp" || fail "$task: no registration line"
  grep -qF ".precision(rkt::Precision::fp32)" "$work/$task.cpp" || fail "$task: no declared precision"
  grep -qF "call.input(0)" "$work/$task.cpp" || fail "$task: does not read its first input"
  "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$include" "$work/$task.cpp" \
    || fail "the cpu skeleton of $task does not compile"
  if [ -n "$nvcc" ] && { [ "$task" = relu ] || [ "$task" = cross_entropy ]; }; then  # nvcc is slow
    "$rkt" template "$task" --device cuda > "$work/$task.cu"
    grep -qF "ROBUST_KERNEL_TEST($task, my_cuda_kernel" "$work/$task.cu" || fail "$task.cu: no registration line"
    grep -qF "<<<" "$work/$task.cu" || fail "$task.cu: launches nothing"
    "$nvcc" -std=c++17 -c -I"$include" "$work/$task.cu" -o "$work/$task.o" \
      || fail "the cuda skeleton of $task does not compile with nvcc -c"
  fi
done
grep -qF "0  x  float32 [B, N]" "$work/relu.cpp" || fail "relu's input is not described"
grep -qF "0  y  float32 [" "$work/relu.cpp" || fail "relu's output is not described"
grep -qF "grad_" "$work/rkb_layernorm_backward.cpp" || fail "the backward task's cotangent input is not listed"

# An unwritten skeleton is judged and fails (its kernel throws "not written yet").
set +e
RKT_EVAL_CACHE="$work/cache" "$rkt" eval "$work/relu.cpp" --json --out "$work/run" --timeout 20 \
  > "$work/records" 2> "$work/log"
code=$?
set -e
[ "$code" = 1 ] || { cat "$work/log"; fail "eval of the unwritten skeleton exited $code, expected 1"; }
grep -qF '"verdict":"FAIL"' "$work/records" || fail "the unwritten skeleton did not fail"
grep -qF "not written yet" "$work/records" || fail "the failure does not say the kernel is not written"

# Usage errors.
set +e
"$rkt" template sofmax > "$work/out" 2>&1; code=$?
set -e
[ "$code" = 2 ] && grep -qF "unknown task 'sofmax'; did you mean 'softmax'?" "$work/out" \
  || { cat "$work/out"; fail "unknown task: exit $code"; }
set +e
"$rkt" template relu --device gpu > "$work/out" 2>&1; code=$?
set -e
[ "$code" = 2 ] && grep -qF -- "--device takes 'cpu' or 'cuda', not 'gpu'" "$work/out" \
  || { cat "$work/out"; fail "bad device: exit $code"; }
set +e
"$rkt" template > "$work/out" 2>&1; code=$?
set -e
[ "$code" = 2 ] && grep -qF "template takes one task id" "$work/out" || { cat "$work/out"; fail "no task: exit $code"; }
echo "template: $(echo $tasks | wc -w) tasks compile (cpu${nvcc:+, cuda with nvcc -c}); skeleton fails; usage errors exit 2"
