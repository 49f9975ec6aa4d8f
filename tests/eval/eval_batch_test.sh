#!/usr/bin/env bash
# tools/eval_batch on the CPU: a generated batch (two honest relu kernels, one writing one past
# its output) judged by `rkt eval`, the same files built as a suite against the installed
# package and run on the same seed as two shards merged (the merge exits 1 for the failing
# kernel, which the script must take as a finished suite), and compare_with_suite.py finding every
# verdict as expected and equal to the suite's case by case. Then the comparison must fail where it should: an
# expectation flipped, and a case status changed in the suite's results.
# Usage: eval_batch_test.sh RKT PREFIX PYTHON TOOLS_DIR [CMAKE_ARGS...]
set -euo pipefail
rkt="$1"; prefix="$2"; python="$3"; tools="$4"
shift 4
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export PYTHON="$python"
bash "$tools/eval_batch.sh" "$rkt" "$prefix" "$work/batch" --device cpu --count 3 --timeout 60 --suite-shards 2 -- "$@" \
  > "$work/out" 2>&1 || { cat "$work/out"; fail "the batch did not match"; }
cat "$work/out"
grep -q "^3 files (1 expected to fail): 3 as expected, 3 equal to the suite case by case; 0 problems" "$work/out" ||
  fail "the summary line is missing"

# The comparison fails on a wrong expectation ...
"$python" - "$work/batch/candidates/expected.json" "$work/flipped.json" <<'PY'
import json, sys
expected = json.load(open(sys.argv[1]))
name = sorted(expected)[0]
expected[name]["expect"] = "FAIL"
json.dump(expected, open(sys.argv[2], "w"))
PY
set +e
"$python" "$tools/compare_with_suite.py" "$work/batch/eval.jsonl" "$work/batch/suite_run/results.json" \
  "$work/flipped.json" > "$work/flipped.out"
code=$?
set -e
[ "$code" = 1 ] && grep -q "PROBLEM: relu_batch_00_loop.cpp (loop): rkt eval says pass, expected FAIL" "$work/flipped.out" ||
  { cat "$work/flipped.out"; fail "a flipped expectation was not reported (exit $code)"; }
# ... and on a case whose status differs between eval and the suite.
"$python" - "$work/batch/suite_run/results.json" "$work/changed.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
kernel = next(k for k in results["kernels"] if k["kernel"] == "batch_00_loop")
kernel["cases"][0]["status"] = "skipped"
json.dump(results, open(sys.argv[2], "w"))
PY
set +e
"$python" "$tools/compare_with_suite.py" "$work/batch/eval.jsonl" "$work/changed.json" \
  "$work/batch/candidates/expected.json" > "$work/changed.out"
code=$?
set -e
[ "$code" = 1 ] && grep -q "PROBLEM: relu_batch_00_loop.cpp: case statuses differ" "$work/changed.out" ||
  { cat "$work/changed.out"; fail "a differing case status was not reported (exit $code)"; }
echo "eval batch: verdicts as expected and equal to the suite's; the comparison catches both differences"
