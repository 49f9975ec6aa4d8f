#!/usr/bin/env bash
# `rkt run --shard I/N` and `rkt merge` on the CPU: over a few cheap kernels, every kernel and
# every case runs in exactly one shard (N=2 and N=3), the merged report keeps each shard's
# entries exactly, and it equals an unsharded run of the same seed except where a measurement
# is allowed to differ between two runs (listed in `MEASURED` below). Then each refusal of
# `rkt merge` (exit 2, with its reason).
# Usage: sharding_test.sh RKT PYTHON KERNEL_FRAGMENT
set -euo pipefail
rkt="$1" python="$2" fragment="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_SEED=20261201  # One seed for every shard and the unsharded run: the same inputs.

run() {  # run OUT [ARGS...]: rkt run over the fragment's kernels; a failing kernel is fine here.
  local out="$1"; shift
  "$rkt" run --kernel "$fragment" --out "$work/$out" "$@" > "$work/$out.log" 2>&1 \
    || [ $? = 1 ] || { cat "$work/$out.log"; fail "rkt run $* failed to run"; }
}
run whole
for n in 2 3; do
  for i in $(seq 1 "$n"); do run "shard_${i}_of_$n" --shard "$i/$n"; done
  shards=()
  for i in $(seq "$n" -1 1); do shards+=("$work/shard_${i}_of_$n"); done  # any order
  "$rkt" merge --out "$work/merged_$n" "${shards[@]}" > "$work/merge_$n.log" 2>&1 \
    || [ $? = 1 ] || { cat "$work/merge_$n.log"; fail "rkt merge of $n shards refused"; }
  for file in results.json report.md report.html; do
    [ -s "$work/merged_$n/$file" ] || fail "merge wrote no $file"
  done
  grep -q "merged from $n shards" "$work/merged_$n/report.md" || fail "report.md does not say merged"
done

"$python" - "$work" <<'PY' || fail "sharded and unsharded runs differ (above)"
import copy, json, sys
work = sys.argv[1]
load = lambda name: json.load(open(f"{work}/{name}/results.json"))
whole = load("whole")
ids = lambda run: [k["task"] + "/" + k["kernel"] for k in run["kernels"]]
cases = lambda run: [c["name"] for k in run["kernels"] for c in k["cases"]]
assert len(whole["kernels"]) >= 2, "the fragment should select at least two kernels"
assert whole["shard"] is None and whole["merged_shards"] == 0

# What may differ between two runs of the same seed: the time a run started, what was measured
# with a clock (wall times, benchmark samples and everything derived from them: medians, stop
# reasons, speedups, the strongest baseline, the floor and roofline from the measured device
# peaks, the aggregates of speedups), and which shard a report is. Verdicts, case lists, case
# statuses and messages, dims, seeds, reproduce strings, spot checks, availability of baselines,
# counts and correctness aggregates must be equal.
MEASURED_TOP = ["started_utc", "devices", "shard", "merged_shards"]
MEASURED_BENCHMARK = ["time", "stop_reason", "floor_ms", "roofline", "strongest_baseline",
                      "speedup_vs_strongest", "faster_than_strongest"]
MEASURED_BASELINE = ["time", "speedup"]
MEASURED_SUMMARY = ["fast_p", "geomean_speedup", "geomean_memory_efficiency"]
# A benchmark the judge refused (its clock disagreed with the worker's, as on a loaded machine)
# is a measurement too, and so is which kernel of its task then timed the baselines. For a task
# where one of the two runs refused a benchmark, the benchmark entries are left out of the
# comparison, and the test says so; everything else about those kernels is still compared.
def refused_tasks(*runs):
    return {k["task"] for run in runs for k in run["kernels"]
            if k["verdict"] == "pass" and not k["benchmark"]["measured"]}

def unmeasured(run, refused=frozenset()):
    run = copy.deepcopy(run)
    for key in MEASURED_TOP: run.pop(key)
    for kernel in run["kernels"]:
        kernel.pop("seconds")
        kernel.pop("time_breakdown_s")  # where those seconds went: measured too
        for case in kernel["cases"]:
            case.pop("milliseconds")
            case.pop("time_breakdown_ms", None)  # where a case's milliseconds went: measured too
        if kernel["task"] in refused:
            kernel.pop("benchmark")
            continue
        for key in MEASURED_BENCHMARK: kernel["benchmark"].pop(key)
        for baseline in kernel["benchmark"]["baselines"]:
            for key in MEASURED_BASELINE: baseline.pop(key)
    for device in run["summary"]:
        for key in MEASURED_SUMMARY: device.pop(key)
    return run

def first_difference(a, b, path="results"):
    if type(a) != type(b): return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b: return f"{path}.{key}: present in one only"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found: return found
    elif isinstance(a, list):
        if len(a) != len(b): return f"{path}: {len(a)} vs {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found: return found
    elif a != b:
        return f"{path}: {a!r} vs {b!r}"
    return None

for n in (2, 3):
    shards = [load(f"shard_{i}_of_{n}") for i in range(1, n + 1)]
    for i, shard in enumerate(shards, 1):
        assert shard["shard"] == {"index": i, "count": n, "selected_kernels": len(whole["kernels"])}, shard["shard"]
    # Exactly once: every kernel and every case of the unsharded run in one shard, none twice.
    shard_ids = [kid for shard in shards for kid in ids(shard)]
    shard_cases = [case for shard in shards for case in cases(shard)]
    assert sorted(shard_ids) == sorted(ids(whole)), (n, shard_ids, ids(whole))
    assert sorted(shard_cases) == sorted(cases(whole)), (n, len(shard_cases), len(cases(whole)))
    assert len(set(shard_cases)) == len(shard_cases), "a case ran in two shards"
    # The rule: sorted ids, position p to shard p mod n + 1.
    for p, kid in enumerate(sorted(ids(whole))):
        assert kid in ids(shards[p % n]), (kid, p, n)
    merged = load(f"merged_{n}")
    assert merged["merged_shards"] == n and merged["shard"] is None and merged["finished"]
    assert merged["seed"] == whole["seed"] == shards[0]["seed"]
    # Lossless: each kernel's entry in the merged report is its shard's entry, numbers included.
    by_id = {kid: kernel for shard in shards for kid, kernel in zip(ids(shard), shard["kernels"])}
    for kid, kernel in zip(ids(merged), merged["kernels"]):
        assert kernel == by_id[kid], f"merge changed {kid}: " + first_difference(kernel, by_id[kid])
    # Equal to the unsharded run, outside what was measured with a clock.
    refused = refused_tasks(whole, merged)
    if refused:
        print(f"N={n}: a benchmark was refused in one run (load); benchmarks of {sorted(refused)} "
              "are not compared")
    difference = first_difference(unmeasured(whole, refused), unmeasured(merged, refused))
    assert difference is None, f"N={n}: merged differs from unsharded at {difference}"
    print(f"N={n}: {len(shard_ids)} kernels and {len(shard_cases)} cases, each in one shard; "
          "merged report equals the unsharded one outside measured times")

# Inputs for the refusals.
def write(name, run):
    import os
    os.makedirs(f"{work}/{name}", exist_ok=True)
    json.dump(run, open(f"{work}/{name}/results.json", "w"))
s1 = load("shard_1_of_2")
s2 = load("shard_2_of_2")
write("other_seed", dict(s2, seed=s2["seed"] + 1))
write("in_process", dict(s2, isolation="in-process (debugging mode)"))
write("twin_of_1", dict(s1, shard=dict(s1["shard"], index=2)))
write("unfinished", dict(s2, finished=False))
write("old_schema", dict(s2, schema="rkt-results/2"))
PY

refused() {  # refused MESSAGE RUN...: rkt merge must exit 2 and say MESSAGE.
  local message="$1"; shift
  set +e
  "$rkt" merge --out "$work/refused" "$@" > "$work/refused.log" 2>&1
  local code=$?
  set -e
  [ "$code" = 2 ] || { cat "$work/refused.log"; fail "merge exited $code, expected 2 ($message)"; }
  grep -qF -- "$message" "$work/refused.log" || { cat "$work/refused.log"; fail "merge did not say: $message"; }
}
refused "shards missing: 3/3" "$work/shard_1_of_3" "$work/shard_2_of_3"
refused "is given twice" "$work/shard_1_of_2" "$work/shard_1_of_2" "$work/shard_2_of_2"
refused "the shard count N is '2'" "$work/shard_1_of_2" "$work/shard_2_of_3"
refused "the seed is" "$work/shard_1_of_2" "$work/other_seed"
refused "the isolation mode is 'isolated'" "$work/shard_1_of_2" "$work/in_process"
refused "is in two shards" "$work/shard_1_of_2" "$work/twin_of_1"
refused "did not finish" "$work/shard_1_of_2" "$work/unfinished"
refused "is not a shard (it was not run with --shard I/N)" "$work/whole" "$work/shard_1_of_2"
refused "schema is 'rkt-results/2'" "$work/shard_1_of_2" "$work/old_schema"
refused "$work/absent' does not exist" "$work/shard_1_of_2" "$work/absent"
refused "merge needs the shards' run folders"
echo "sharding: every case once across shards, merged equals unsharded, refusals named"
