#!/usr/bin/env python3
"""Issue 23's equality checks: a run or a baseline table made in shards on several GPUs against
the same made whole on one GPU.

    check_split_equals_whole.py run MERGED/results.json WHOLE/results.json
    check_split_equals_whole.py baselines MERGED/results.json WHOLE/results.json

run: the same kernels with the same verdicts, and each kernel's median within noise of the
other's (the ~95% intervals, median x (1 +- relative_noise), overlap). baselines: the same tasks,
and each available baseline's median intervals (median_low_ms..median_high_ms) overlap. Prints
one line per disagreement and a summary; exits 1 on any disagreement."""
import json
import sys


def run_rows(path):
    rows = {}
    for kernel in json.load(open(path))["kernels"]:
        time = kernel["benchmark"]["time"]
        median, noise = time.get("median_ms", 0), time.get("relative_noise", 0)
        rows[kernel["task"] + "/" + kernel["kernel"]] = (
            kernel["verdict"], (median * (1 - noise), median * (1 + noise)) if median else None)
    return rows


def baseline_rows(path):
    rows = {}
    for task in json.load(open(path))["tasks"]:
        rows[task["task"]] = {b["name"]: (b["median_low_ms"], b["median_high_ms"])
                              for b in task["baselines"] if b.get("available")}
    return rows


def overlap(a, b):
    return a[0] <= b[1] and b[0] <= a[1]


def main():
    kind, split_path, whole_path = sys.argv[1:4]
    problems = []
    if kind == "run":
        split, whole = run_rows(split_path), run_rows(whole_path)
        for name in sorted(set(split) | set(whole)):
            if name not in split or name not in whole:
                problems.append(f"{name}: only in {'the split run' if name in split else 'the whole run'}")
                continue
            (verdict_a, interval_a), (verdict_b, interval_b) = split[name], whole[name]
            if verdict_a != verdict_b:
                problems.append(f"{name}: verdict {verdict_a} split, {verdict_b} whole")
            elif interval_a and interval_b and not overlap(interval_a, interval_b):
                problems.append(f"{name}: median {interval_a} split, {interval_b} whole (no overlap)")
        compared = len(set(split) & set(whole))
    elif kind == "baselines":
        split, whole = baseline_rows(split_path), baseline_rows(whole_path)
        compared = 0
        for task in sorted(set(split) | set(whole)):
            if task not in split or task not in whole:
                problems.append(f"{task}: only in {'the split table' if task in split else 'the whole table'}")
                continue
            for name in sorted(set(split[task]) | set(whole[task])):
                a, b = split[task].get(name), whole[task].get(name)
                compared += 1
                if a is None or b is None:
                    problems.append(f"{task} {name}: available in one table only")
                elif not overlap(a, b):
                    problems.append(f"{task} {name}: {a} ms split, {b} ms whole (no overlap)")
    else:
        sys.exit(f"check_split_equals_whole: unknown kind {kind!r} (run or baselines)")
    for problem in problems:
        print(problem)
    print(f"{kind}: {compared} compared, {len(problems)} disagreements")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
