#!/usr/bin/env bash
# Issue 21's batch measurement in one call: a generated batch of relu kernels (a third wrong or
# cheating: make_candidates.py), judged by `rkt eval` from a cold library cache (its wall time is
# the figure), then the same files compiled into one suite against an installed package and run
# by that suite's `run` on the same seed, and compare_with_suite.py: every verdict as expected and
# equal to the suite's, case by case.
#   eval_batch.sh RKT PREFIX OUT [--device cuda|cpu] [--count N] [--timeout S] [--suite-shards K]
#                 [--eval-only] [-- CMAKE_ARGS...]
# --eval-only: stops after rkt eval and the verdicts' check against the right answers (the
# 200-file batch: its suite would not fit in one GPU call beside it).
# --suite-shards K: the suite's run as K shards at once (`run --shard I/K`, then `merge`), which
# share the GPU as rkt eval's judges do (framework/timing/device_lease.h); default 1.
# RKT: the rkt that evaluates; PREFIX: an installed RobustKernelTest (cmake --install); OUT: a
# fresh folder for everything (candidates/, cache/, eval/, suite/, suite_run/, times.txt,
# comparison.md). CMAKE_ARGS go to the suite's configure (e.g. -DCMAKE_PREFIX_PATH=...).
set -euo pipefail
rkt="$1"; prefix="$2"; out="$3"
shift 3
device=cuda count=50 timeout=60 suite_shards=1 eval_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device="$2"; shift 2 ;;
    --count) count="$2"; shift 2 ;;
    --timeout) timeout="$2"; shift 2 ;;
    --suite-shards) suite_shards="$2"; shift 2 ;;
    --eval-only) eval_only=1; shift ;;
    --) shift; break ;;
    *) echo "eval_batch.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ -d "$prefix" ] || { echo "eval_batch.sh: no installed package at '$prefix'" >&2; exit 2; }
prefix="$(cd "$prefix" && pwd)"  # the suite's configure runs elsewhere
python="${PYTHON:-python3}"
rm -rf "$out"
mkdir -p "$out"
export RKT_SEED="${RKT_SEED:-20261202}"
export RKT_EVAL_CACHE="$out/cache"
"$python" "$here/make_candidates.py" "$out/candidates" --count "$count" --device "$device"
extension=cu; [ "$device" = cpu ] && extension=cpp

start=$(date +%s.%N)
set +e
"$rkt" eval "$out/candidates"/*."$extension" --json --out "$out/eval" --timeout "$timeout" \
  > "$out/eval.jsonl" 2> "$out/eval.log"
eval_code=$?
set -e
eval_seconds=$("$python" -c "import time; print(round(time.time() - $start, 1))")
echo "rkt eval of $count files (cold cache): exit $eval_code, $eval_seconds s" | tee "$out/times.txt"
[ "$eval_code" -le 1 ] || { tail -n 30 "$out/eval.log"; exit 1; }
# The verdicts against the right answers at once (the suite's comparison below takes longer and
# may not finish within a GPU call): expected_check.txt.
"$python" - "$out/eval.jsonl" "$out/candidates/expected.json" <<'PY' | tee "$out/expected_check.txt"
import json, sys
records = {}
for line in open(sys.argv[1]):
    if line.strip():
        record = json.loads(line)
        records[record["file"].rsplit("/", 1)[-1]] = record
expected = json.load(open(sys.argv[2]))
wrong = [(name, want["expect"], records.get(name, {}).get("verdict", "missing"), want["family"])
         for name, want in sorted(expected.items())
         if records.get(name, {}).get("verdict") != want["expect"]]
for name, want, got, family in wrong:
    print("not as expected: %s (%s): expected %s, rkt eval says %s" % (name, family, want, got))
print("rkt eval verdicts: %d of %d as expected" % (len(expected) - len(wrong), len(expected)))
PY
[ "$eval_only" = 1 ] && exit "$eval_code"

# The same files as one suite.
mkdir -p "$out/suite_source"
languages=CXX; [ "$device" = cuda ] && languages="CXX CUDA"
{
  echo "cmake_minimum_required(VERSION 3.25)"
  echo "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)"
  echo "  set(CMAKE_CUDA_ARCHITECTURES 90)"
  echo "endif()"
  echo "project(rkt_eval_batch_suite LANGUAGES $languages)"
  [ "$device" = cuda ] && echo "set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)"
  echo "find_package(RobustKernelTest 0.1 REQUIRED)"
  echo "rkt_add_suite(batch NO_CTEST KERNELS"
  for file in "$out/candidates"/*."$extension"; do echo "  \"$file\""; done
  echo ")"
} > "$out/suite_source/CMakeLists.txt"
start=$(date +%s)
cmake -S "$out/suite_source" -B "$out/suite" -DCMAKE_PREFIX_PATH="$prefix" "$@" > "$out/suite_configure.log" 2>&1 ||
  { tail -n 30 "$out/suite_configure.log"; exit 1; }
cmake --build "$out/suite" -j "$(nproc)" > "$out/suite_build.log" 2>&1 || { tail -n 30 "$out/suite_build.log"; exit 1; }
echo "suite of the same files: configure + build $(($(date +%s) - start)) s" | tee -a "$out/times.txt"
start=$(date +%s)
set +e
if [ "$suite_shards" -gt 1 ]; then
  pids=()
  for i in $(seq 1 "$suite_shards"); do
    "$out/suite/batch" run --kernel relu/batch_ --shard "$i/$suite_shards" --out "$out/suite_shard_$i" \
      --timeout "$timeout" > "$out/suite_run_$i.log" 2>&1 &
    pids+=($!)
  done
  suite_code=0
  for pid in "${pids[@]}"; do
    wait "$pid"
    code=$?
    [ "$code" -gt "$suite_code" ] && suite_code=$code
  done
  shards=()
  for i in $(seq 1 "$suite_shards"); do shards+=("$out/suite_shard_$i"); done
  # merge exits 1 when a merged kernel fails, as `rkt run` does (a third of the batch should);
  # 2 when the shards could not be merged.
  "$out/suite/batch" merge --out "$out/suite_run" "${shards[@]}" > "$out/suite_run.log" 2>&1
  code=$?
  [ "$code" -gt "$suite_code" ] && suite_code=$code
else
  "$out/suite/batch" run --kernel relu/batch_ --out "$out/suite_run" --timeout "$timeout" > "$out/suite_run.log" 2>&1
  suite_code=$?
fi
set -e
echo "suite run: exit $suite_code, $(($(date +%s) - start)) s" | tee -a "$out/times.txt"
[ "$suite_code" -le 1 ] || { tail -n 30 "$out/suite_run.log"; exit 1; }
"$python" "$here/compare_with_suite.py" "$out/eval.jsonl" "$out/suite_run/results.json" \
  "$out/candidates/expected.json" | tee "$out/comparison.md"
