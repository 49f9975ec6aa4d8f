#!/usr/bin/env python3
"""Compares our baseline table with KernelBench's problems measured on the same GPU.

    python tools/gpu/compare_kb_baselines.py OURS KERNELBENCH [--tolerance 0.15]

OURS is the results.json of `rkt baselines --device cuda` (schema rkt-baselines/1); KERNELBENCH
is a file of per-problem medians with the same task ids ({"problems": {"kb_l1_019": {"name",
"eager_fp32_ms", "eager_tf32_ms", ...}}}, e.g. data/kb_baselines_h200.json). Per KernelBench
level it prints the geometric mean of our eager fp32 and eager TF32 medians over KernelBench's,
every problem whose median differs by more than the tolerance (either way), and the geometric
mean of our compiled (AOTInductor) speedup over eager fp32 next to the Inductor-over-eager
speedup KernelBench published for H100. Standard library only.
"""
import argparse
import json
import math
import sys

# KernelBench's published torch.compile (Inductor) speedup over eager PyTorch on H100, per level,
# as quoted in this project's issue 9. Another GPU and torch version: a reference point, not a
# target.
PUBLISHED_INDUCTOR_OVER_EAGER_H100 = {"kb_l1": 1.17, "kb_l2": 1.36}
LEVELS = ("kb_l1", "kb_l2")


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def our_medians(results):
    """{task: {"eager_fp32": ms, "eager_tf32": ms, "compiled_speedup": x}} of measured tasks."""
    if results.get("schema") != "rkt-baselines/1":
        raise SystemExit(f"compare_kb_baselines: {results.get('schema')!r} is not an "
                         "rkt-baselines/1 file (written by `rkt baselines`)")
    medians = {}
    for task in results["tasks"]:
        entry = {}
        for baseline in task["baselines"]:
            if baseline["available"] and baseline["median_ms"]:
                entry[baseline["name"]] = baseline["median_ms"]
        speedup = (task.get("compiled_speedup") or {}).get("ratio")
        if speedup:
            entry["compiled_speedup"] = speedup
        if entry:
            medians[task["task"]] = entry
    return medians


def compare(ours, theirs, tolerance, out):
    """Prints the comparison; returns the number of problems outside the tolerance."""
    outside_total = 0
    for level in LEVELS:
        problems = sorted(p for p in theirs if p.startswith(level + "_"))
        matched = [p for p in problems if p in ours and "eager_fp32" in ours[p]]
        out.write(f"\n{level}: {len(matched)} of {len(problems)} KernelBench problems measured "
                  "by both\n")
        if not matched:
            continue
        outside = []
        for key, label in (("eager_fp32", "fp32"), ("eager_tf32", "tf32")):
            ratios = []
            for problem in matched:
                mine, reference = ours[problem].get(key), theirs[problem].get(key + "_ms")
                if not mine or not reference:
                    continue
                ratio = mine / reference
                ratios.append(ratio)
                if abs(ratio - 1) > tolerance:
                    outside.append((problem, label, mine, reference, ratio))
            out.write(f"  eager {label}: geomean ours / KernelBench = "
                      f"{geometric_mean(ratios):.3f} over {len(ratios)} problems\n")
        out.write(f"  {len(outside)} medians differ by more than {tolerance:.0%}:\n")
        for problem, label, mine, reference, ratio in outside:
            name = theirs[problem].get("name", "")
            out.write(f"    {problem} {label} {mine:.4f} ms vs {reference:.4f} ms "
                      f"({ratio - 1:+.1%}) {name}\n")
        outside_total += len(outside)
        compiled = [ours[p]["compiled_speedup"] for p in matched if "compiled_speedup" in ours[p]]
        published = PUBLISHED_INDUCTOR_OVER_EAGER_H100[level]
        if compiled:
            out.write(f"  compiled over eager fp32: geomean {geometric_mean(compiled):.2f}x over "
                      f"{len(compiled)} problems (KernelBench, Inductor over eager on H100: "
                      f"{published:.2f}x)\n")
        else:
            out.write(f"  compiled over eager fp32: no compiled baseline measured (KernelBench, "
                      f"Inductor over eager on H100: {published:.2f}x)\n")
    return outside_total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ours", help="results.json of `rkt baselines`")
    parser.add_argument("kernelbench", help="KernelBench's per-problem medians (JSON)")
    parser.add_argument("--tolerance", type=float, default=0.15,
                        help="relative difference of medians reported per problem (default 0.15)")
    args = parser.parse_args()
    with open(args.ours) as file:
        ours = our_medians(json.load(file))
    with open(args.kernelbench) as file:
        kernelbench = json.load(file)
    theirs = kernelbench["problems"]
    sys.stdout.write(f"ours: {args.ours} ({len(ours)} tasks measured); KernelBench: "
                     f"{args.kernelbench} ({kernelbench.get('device', '?')}, "
                     f"torch {kernelbench.get('torch', '?')})\n")
    compare(ours, theirs, args.tolerance, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
