#!/usr/bin/env bash
# Case and benchmark time limits are separate: `--timeout 5` (cases, each well under a second
# here) never kills a benchmark (about 8 s here; it used to), and a
# benchmark killed by `--benchmark-timeout` fails its kernel, visibly, with exit 1.
# Usage: benchmark_timeout_test.sh RKT PYTHON KERNEL
set -euo pipefail
rkt="$1"
python="$2"
kernel="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

set +e
"$rkt" run --kernel "$kernel" --timeout 5 --out "$work/cases_limited" > "$work/a.log" 2>&1
code=$?
set -e
[ "$code" = 0 ] || { cat "$work/a.log"; fail "a short --timeout failed the run (exit $code)"; }
"$python" - "$work/cases_limited/results.json" "$kernel" <<'PY' || fail "--timeout reached the benchmark"
import json, sys
kernel = [k for k in json.load(open(sys.argv[1]))["kernels"] if k["task"] + "/" + k["kernel"] == sys.argv[2]][0]
assert kernel["verdict"] == "pass", kernel["verdict"]
# A timing refused by the cross-check (a machine loaded by other tests) ran to its end: only a
# benchmark killed by the case limit would fail this test.
problem = kernel["benchmark"].get("problem", "")
assert kernel["benchmark"]["measured"] or "timing refused" in problem, problem
if not kernel["benchmark"]["measured"]:
    print("note: the benchmark ran to its end and its timing was refused:", problem)
PY

# A timing the cross-check refuses for the machine's load stops the loop early: that benchmark
# ends within the second and is never killed (CI at ce47f0e). Tried again, twice at most; a
# third such run is reported, and the kill is then not tested by this run.
for attempt in 1 2 3; do
  set +e
  "$rkt" run --kernel "$kernel" --benchmark-timeout 1 --out "$work/bench_limited" > "$work/b.log" 2>&1
  code=$?
  set -e
  [ "$code" = 0 ] && grep -q "timing refused" "$work/b.log" || break
  echo "note: the benchmark's timing was refused before the limit could kill it (attempt $attempt)"
done
if [ "$code" = 0 ] && grep -q "timing refused" "$work/b.log"; then
  echo "note: three refused timings on this machine's load: the kill was not exercised"
  echo "1 passed, 0 failed (the kill not exercised)"
  exit 0
fi
[ "$code" = 1 ] || { cat "$work/b.log"; fail "a killed benchmark left exit $code, expected 1"; }
"$python" - "$work/bench_limited/results.json" "$kernel" <<'PY' || { cat "$work/b.log"; fail "the killed benchmark is not a failed case"; }
import json, sys
kernel = [k for k in json.load(open(sys.argv[1]))["kernels"] if k["task"] + "/" + k["kernel"] == sys.argv[2]][0]
assert kernel["verdict"] == "FAIL", kernel["verdict"]
crashed = [c for c in kernel["cases"] if c["name"].endswith(".benchmark") and c["status"] == "crashed"]
assert crashed, [c["name"] for c in kernel["cases"]]
assert "1 s" in crashed[0]["message"] or "hang" in crashed[0]["message"], crashed[0]["message"]
PY
echo "2 passed, 0 failed"
