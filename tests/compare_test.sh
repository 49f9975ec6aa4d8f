#!/usr/bin/env bash
# `rkt compare` on synthetic results.json files derived from the golden run (tests/golden/): each
# exit code (0 no regression, 1 regression, 2 input error) and that the message or table names
# what decided it.
# Usage: compare_test.sh RKT PYTHON GOLDEN_RESULTS_JSON
set -euo pipefail
rkt="$1" python="$2" golden="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The base: the golden run without its two failing kernels (a failure in NEW is a regression by
# itself). Variants change one thing each.
"$python" - "$golden" "$work" <<'PY'
import copy, json, sys
golden, work = sys.argv[1], sys.argv[2]
base = json.load(open(golden))
base["kernels"] = [k for k in base["kernels"] if k["verdict"] == "pass"]
def write(name, run):
    json.dump(run, open(f"{work}/{name}.json", "w"), indent=1)
def variant(change):
    run = copy.deepcopy(base)
    kernels = {k["task"] + "/" + k["kernel"]: k for k in run["kernels"]}
    change(run, kernels)
    return run
def set_time(kernel, median, noise):
    kernel["benchmark"]["time"]["median_ms"] = median
    kernel["benchmark"]["time"]["relative_noise"] = noise
write("base", base)
# softmax/fast: base median 1 ms, noise 1%: interval [0.99, 1.01].
write("slower", variant(lambda r, k: set_time(k["softmax/fast"], 1.05, 0.01)))        # [1.0395, 1.0605]
write("within", variant(lambda r, k: set_time(k["softmax/fast"], 1.015, 0.01)))       # [1.00485, ...]
write("noisy", variant(lambda r, k: set_time(k["softmax/fast"], 1.3, 0.25)))          # [0.975, ...]
write("faster", variant(lambda r, k: set_time(k["softmax/fast"], 0.5, 0.01)))
def fail_case(r, k):
    kernel = k["softmax/slow"]
    kernel["cases"][0]["status"] = "failed"
    kernel["cases"][0]["message"] = "wrong at B=3"
    kernel["verdict"] = "FAIL"
write("failing", variant(fail_case))
def lie(r, k):
    k["softmax/slow"]["cases"][0]["status"] = "failed"  # verdict still "pass": inconsistent
write("inconsistent", variant(lie))
write("unfinished", variant(lambda r, k: r.update(finished=False)))
write("other_schema", variant(lambda r, k: r.update(schema="rkt-results/1")))
write("no_kernels_field", variant(lambda r, k: r.pop("kernels")))
open(f"{work}/truncated.json", "w").write(json.dumps(base)[:300])
PY
mkdir -p "$work/run_folder" && cp "$work/base.json" "$work/run_folder/results.json"

# Runs `rkt compare`, expecting exit code $1; the output (stdout and stderr) goes to $work/out.
expect() {
  local code="$1"; shift
  set +e
  "$rkt" compare "$@" > "$work/out" 2>&1
  local got=$?
  set -e
  [ "$got" = "$code" ] || { cat "$work/out"; fail "rkt compare $* exited $got, expected $code"; }
}
says() { grep -q -- "$1" "$work/out" || { cat "$work/out"; fail "output lacks '$1'"; }; }

expect 0 "$work/base.json" "$work/base.json"
says "| softmax/fast | cuda | pass | pass | 1 \[0.99, 1.01\] | 1 \[0.99, 1.01\] | +0.0% |"
says "No regression"
expect 0 "$work/run_folder" "$work/base.json"                      # a run folder is accepted
expect 1 "$work/base.json" "$work/slower.json"
says "softmax/fast (cuda): slower beyond noise"
says "| softmax/fast | cuda | pass | pass | 1 \[0.99, 1.01\] | 1.05 \[1.04, 1.06\] | +5.0% | +0.0% | \*\*slower beyond noise\*\* |"
expect 0 "$work/base.json" "$work/slower.json" --tolerance 5       # widened by 5%: not beyond
expect 0 "$work/base.json" "$work/within.json"
says "| softmax/fast |.*| within noise |"
expect 0 "$work/base.json" "$work/noisy.json"                      # +30% but noise 25%
says "| softmax/fast |.*+30.0%.*| within noise |"
expect 0 "$work/base.json" "$work/faster.json"
says "faster beyond noise"
expect 1 "$work/base.json" "$work/failing.json"
says "softmax/slow (cuda): FAILS (passed on base)"
expect 1 "$work/base.json" "$work/unfinished.json"
says "the new run did not finish"
expect 0 "$work/unfinished.json" "$work/base.json"                 # an unfinished base: a note
says "Note: the base run did not finish"
expect 1 "$work/base.json" "$golden"                               # the golden run has failures
says "softmax/wrong (cuda): FAILS (new kernel)"

# Input errors: exit 2 and a message naming the file and what is wrong.
expect 2 "$work/base.json" "$work/missing.json"
says "cannot read NEW: '$work/missing.json' does not exist"
expect 2 "$work/nowhere" "$work/base.json"
says "cannot read BASE: '$work/nowhere' does not exist"
expect 2 "$work/base.json" "$work/truncated.json"
says "truncated.json': line 1, column 301: "
expect 2 "$work/base.json" "$work/other_schema.json"
says "schema is 'rkt-results/1', this rkt reads 'rkt-results/3'"
expect 2 "$work/base.json" "$work/no_kernels_field.json"
says "field 'kernels' is missing"
expect 2 "$work/base.json" "$work/inconsistent.json"
says "field 'kernels\[1\].verdict' is 'pass' but its cases and benchmark make it 'FAIL' (softmax/slow)"
expect 2 "$work/base.json"
says "compare takes two results"
expect 2 "$work/base.json" "$work/base.json" --tolerance -3
says "\-\-tolerance takes a percentage >= 0"
expect 2 "$work/base.json" "$work/base.json" --threshold 3
says "unknown option '--threshold'"
echo "compare: exit codes 0/1/2 and their messages as expected"
