#!/usr/bin/env bash
# A kernel's verdict through `rkt eval` equals its verdict compiled into the suite: the shipped CPU
# kernels' source (kernels/cpu/reference_loops.cpp) evaluated with --task relu, against `rkt run`
# of the same kernel (relu/cpu_loops) built into `rkt`, on one seed: the same verdict and the same
# status for every case, and --task keeps relu's kernels only (not leaky_relu's, whose id holds
# "relu/"). The benchmark's numbers are measurements and are not compared; both must be measured.
# Usage: eval_matches_suite_test.sh RKT SOURCE PYTHON
set -euo pipefail
rkt="$1"; source="$2"; python="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
export RKT_SEED=424242

"$rkt" eval "$source" --task relu --json --out "$work/eval" --timeout 60 > "$work/records" 2> "$work/eval.log" \
  || { cat "$work/eval.log"; fail "rkt eval of $source did not pass"; }
# --kernel selects ids containing relu/cpu_loops, rkb_mnist_linear_relu/cpu_loops too: its verdict
# is not this test's business, so exit 1 is accepted and relu/cpu_loops' own record compared.
set +e
"$rkt" run --kernel relu/cpu_loops --out "$work/run" --timeout 60 > "$work/run.log" 2>&1
code=$?
set -e
[ "$code" = 0 ] || [ "$code" = 1 ] || { cat "$work/run.log"; fail "rkt run exited $code"; }

"$python" - "$work/records" "$work/run/results.json" <<'PY' || { cat "$work/eval.log" "$work/run.log"; exit 1; }
import json, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
assert {r["task"] for r in records} == {"relu"}, [r.get("task") for r in records]
evaluated = [r for r in records if r["kernel"] == "cpu_loops"]
assert len(evaluated) == 1, records
evaluated = evaluated[0]
suite = [k for k in json.load(open(sys.argv[2]))["kernels"] if k["task"] == "relu" and k["kernel"] == "cpu_loops"]
assert len(suite) == 1
suite = suite[0]
assert evaluated["verdict"] == suite["verdict"] == "pass", (evaluated["verdict"], suite["verdict"])
eval_cases = {c["name"]: c["status"] for c in evaluated["cases"]}
suite_cases = {c["name"]: c["status"] for c in suite["cases"]}
assert eval_cases == suite_cases, (eval_cases, suite_cases)
# Both timed, unless the judge refused a timing because the machine was overloaded.
for name, record in (("eval", evaluated), ("suite", suite)):
    benchmark = record["benchmark"]
    assert benchmark["measured"] or "timing refused" in benchmark.get("problem", ""), (name, benchmark)
print(f"eval equals suite: verdict {suite['verdict']}, {len(suite_cases)} cases with equal statuses")
PY
