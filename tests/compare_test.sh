#!/usr/bin/env bash
# `rkt compare` on synthetic results.json files derived from the golden run (tests/golden/): each
# exit code (0 no regression, 1 regression, 2 input error) and that the message or table names
# what decided it. By default a kernel is slower only when its median and its ratio to a baseline
# of the same run both moved beyond noise, so a run compared with itself passes whether the
# machine or the baseline alone drifted, and a real regression still fails. A kernel judged but
# not timed, or missing from the new run, fails the gate.
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
def scale_time(time, factor):
    for field in ("median_ms", "q1_ms", "q3_ms", "iqr_ms", "mean_ms", "stddev_ms"):
        time[field] *= factor
# The machine (or the kernel alone) got slower: every time of the kernel by kernel_factor, every
# baseline timed beside it by machine_factor; the speedups follow.
def drift(kernel, kernel_factor, machine_factor):
    bench = kernel["benchmark"]
    scale_time(bench["time"], kernel_factor)
    for baseline in bench["baselines"]:
        if baseline["available"]:
            scale_time(baseline["time"], machine_factor)
            for end in ("ratio", "low", "high"):
                baseline["speedup"][end] *= machine_factor / kernel_factor
    for end in ("ratio", "low", "high"):
        bench["speedup_vs_strongest"][end] *= machine_factor / kernel_factor
def drift_all(run, kernels, factor):
    for kernel in kernels.values():
        drift(kernel, factor, factor)
def drop_baselines(kernel):
    for baseline in kernel["benchmark"]["baselines"]:
        baseline["available"] = False
        baseline["absent_reason"] = "not built"
    kernel["benchmark"]["strongest_baseline"] = ""
write("base", base)
# softmax/fast: base median 1 ms, noise 1%: interval [0.99, 1.01].
write("slower", variant(lambda r, k: set_time(k["softmax/fast"], 1.05, 0.01)))        # [1.0395, 1.0605]
write("within", variant(lambda r, k: set_time(k["softmax/fast"], 1.015, 0.01)))       # [1.00485, ...]
write("noisy", variant(lambda r, k: set_time(k["softmax/fast"], 1.3, 0.25)))          # [0.975, ...]
write("faster", variant(lambda r, k: set_time(k["softmax/fast"], 0.5, 0.01)))
# The same code on a machine 30% slower: kernels and baselines alike.
write("drifted", variant(lambda r, k: drift_all(r, k, 1.3)))
# The issue's run against itself: the kernel +16.2%, the eager baseline beside it +31.6%.
write("drifted_unevenly", variant(lambda r, k: drift(k["softmax/fast"], 1.162, 1.316)))
# A real regression (+10%) on the drifted machine.
def drifted_regression(r, k):
    drift_all(r, k, 1.3)
    drift(k["softmax/fast"], 1.10, 1.0)
write("drifted_regression", variant(drifted_regression))
# Identical code, the baseline alone drifted (issue 31: eager_fp32 ran 12.4% faster, the kernel's
# median moved within its noise): the ratio reads +14.7%, the median does not move.
write("baseline_drifted", variant(lambda r, k: [drift(x, 1.005, 0.876) for x in k.values()]))
# softmax/fast passed but its benchmark was refused: nothing measured.
def refused(r, k):
    bench = k["softmax/fast"]["benchmark"]
    bench["measured"] = False
    bench["problem"] = "timing refused: 60 of 116 timed requests unexplained by the judge's clock"
write("refused", variant(refused))
# softmax/slow is not in the new run.
write("without_slow", variant(lambda r, k: r.update(kernels=[x for x in r["kernels"] if x["kernel"] != "slow"])))
# softmax/fast 5% slower, with no baseline timed beside it in the new run.
def slower_unbaselined(r, k):
    set_time(k["softmax/fast"], 1.05, 0.01)
    drop_baselines(k["softmax/fast"])
write("slower_unbaselined", variant(slower_unbaselined))
def fail_case(r, k):
    kernel = k["softmax/slow"]
    kernel["cases"][0]["status"] = "failed"
    kernel["cases"][0]["message"] = "wrong at B=3"
    kernel["verdict"] = "FAIL"
write("failing", variant(fail_case))
def lie(r, k):
    k["softmax/slow"]["cases"][0]["status"] = "failed"  # verdict still "pass": inconsistent
write("inconsistent", variant(lie))
# Short calls (under kShortBenchmarkCallMilliseconds, 0.1 ms): the walk-through of 2026-12-03 ran
# identical code twice and relu/cpu_loops read +31% (0.040 -> 0.053 ms), beyond both runs' noise.
write("short_base", variant(lambda r, k: set_time(k["softmax/fast"], 0.040, 0.02)))
write("short_slower", variant(lambda r, k: set_time(k["softmax/fast"], 0.053, 0.02)))
write("short_grown", variant(lambda r, k: set_time(k["softmax/fast"], 0.4, 0.02)))
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
says "| softmax/fast | cuda | pass | pass | 1 \[0.99, 1.01\] | 1 \[0.99, 1.01\] | +0.0% | eager_fp32 | +0.0% | 0.3333 \[0.3267, 0.3401\] | 0.3333 \[0.3267, 0.3401\] | +0.0% | within noise |"
says "No regression"
says "judged on its median and on its ratio to the strongest baseline both runs timed"
expect 0 "$work/run_folder" "$work/base.json"                      # a run folder is accepted
# softmax/fast 5% slower, its baseline not: the ratio's interval (both noises, 1% each) is above.
expect 1 "$work/base.json" "$work/slower.json"
says "softmax/fast (cuda): slower beyond noise (ratio to eager_fp32 +5.0%, median +5.0%)"
says "| softmax/fast | cuda | pass | pass | 1 \[0.99, 1.01\] | 1.05 \[1.04, 1.06\] | +5.0% | eager_fp32 | +0.0% | 0.3333 \[0.3267, 0.3401\] | 0.35 \[0.3431, 0.3571\] | +5.0% | \*\*slower beyond noise\*\* |"
expect 0 "$work/base.json" "$work/slower.json" --tolerance 5       # widened by 5%: not beyond
expect 1 "$work/base.json" "$work/slower.json" --absolute          # the medians' intervals apart
says "judged on its absolute median (\`--absolute\`)"

# Machine drift: a run compared with itself on a machine 30% slower passes; judged on absolute
# medians (the rule before issue 20) every kernel would read slower.
expect 0 "$work/base.json" "$work/drifted.json"
says "| softmax/fast | cuda | pass | pass | 1 \[0.99, 1.01\] | 1.3 \[1.287, 1.313\] | +30.0% | eager_fp32 | +30.0% | 0.3333 \[0.3267, 0.3401\] | 0.3333 \[0.3267, 0.3401\] | +0.0% | within noise (the median moved up beyond noise, the ratio to eager_fp32 did not: the machine drifted) |"
says "No regression"
expect 1 "$work/base.json" "$work/drifted.json" --absolute
says "softmax/fast (cuda): slower beyond noise"
expect 0 "$work/base.json" "$work/drifted_unevenly.json"           # the issue's +16.2% / +31.6%
says "| softmax/fast |.*| +16.2% | eager_fp32 | +31.6% |"
expect 1 "$work/base.json" "$work/drifted_unevenly.json" --absolute
# Identical code, the baseline alone drifted: the ratio moved, the median did not (failed before:
# "slower beyond noise (ratio to eager_fp32 +14.7%...)").
expect 0 "$work/base.json" "$work/baseline_drifted.json"
says "| softmax/fast |.*| +0.5% | eager_fp32 | -12.4% |.*| +14.7% | within noise (the ratio to eager_fp32 moved up beyond noise, the kernel's median did not: the baseline drifted) |"
says "No regression"
# Judged but not timed (failed before: "not measured", "No regression", exit 0).
expect 1 "$work/base.json" "$work/refused.json"
says "softmax/fast (cuda): NOT TIMED (timing refused: 60 of 116 timed requests unexplained"
says "| softmax/fast | cuda | pass | pass | 1 \[0.99, 1.01\] | - |"
expect 0 "$work/refused.json" "$work/base.json"                  # timed now: no regression by itself
says "| softmax/fast |.*| not measured on base |"
# A kernel missing from the new run (failed before: listed, exit 0).
expect 1 "$work/base.json" "$work/without_slow.json"
says "softmax/slow (cuda): missing from the new run (pass on base)"
says "| softmax/slow | cuda | pass | - |.*| \*\*MISSING from the new run\*\* |"
# A real regression on the drifted machine still fails, and only that kernel.
expect 1 "$work/base.json" "$work/drifted_regression.json"
says "| softmax/fast |.*| +43.0% | eager_fp32 | +30.0% |.*| +10.0% | \*\*slower beyond noise\*\* |"
says "Regression\*\* (1)"
# No baseline timed beside the kernel in both runs: the absolute medians decide, and a note says so.
expect 1 "$work/base.json" "$work/slower_unbaselined.json"
says "softmax/fast (cuda): slower beyond noise (absolute) (median +5.0%)"
says "Note: no baseline was timed (with a measured noise) beside softmax/fast (cuda) in both runs"
# Identical code in two processes, calls of 0.04-0.05 ms: not judged (failed before: "slower
# beyond noise (ratio to eager_fp32 +32.5%, median +32.5%)"); grown tenfold past 0.1 ms: judged.
expect 0 "$work/short_base.json" "$work/short_slower.json"
says "| softmax/fast |.*| not judged: calls under 0.1 ms in both runs are mostly per-call cost"
says "No regression"
expect 1 "$work/short_base.json" "$work/short_grown.json"
says "softmax/fast (cuda): slower beyond noise"
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
