#!/usr/bin/env python3
"""Where a batch's time went: each kernel's phases from an `rkt eval --out DIR` results.json.

Run 43's 50-file batch took 210 s, and five honest files took 36-38 s against a 7.8 s median,
but its records held only each case's milliseconds. results.json holds each kernel's phases
(drawing, references, kernel_calls, comparison, timing, buffer_sharing, device_wait: waiting for
another judge's hold on the GPU, baselines: the benchmark's baselines, docs/results_schema.md) and each case's. This prints the batch's
totals per phase, then the slowest kernels with their phases and their longest cases.

    eval_phases.py RESULTS_JSON [--slowest N]
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--slowest", type=int, default=8, help="kernels listed one by one")
    args = parser.parse_args()
    try:
        with open(args.results) as handle:
            kernels = json.load(handle)["kernels"]
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"eval_phases.py: cannot read kernels from {args.results}: {error}")
    if not kernels:
        sys.exit(f"eval_phases.py: {args.results} has no kernels")

    totals = {}
    for kernel in kernels:
        for phase, seconds in (kernel.get("time_breakdown_s") or {}).items():
            totals[phase] = totals.get(phase, 0.0) + seconds
    wall = sum(kernel.get("seconds", 0.0) for kernel in kernels)
    print(f"{len(kernels)} kernels, {wall:.1f} s of judge time in all (judges ran side by side)")
    for phase, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"  {phase:<15} {seconds:8.1f} s  {100 * seconds / wall if wall else 0:5.1f}%")
    print(f"  {'(the rest)':<15} {wall - sum(totals.values()):8.1f} s  (starts, writing, waits outside a phase)")

    print(f"\nthe {min(args.slowest, len(kernels))} slowest kernels:")
    for kernel in sorted(kernels, key=lambda k: -k.get("seconds", 0.0))[: args.slowest]:
        phases = kernel.get("time_breakdown_s") or {}
        shown = ", ".join(f"{name} {seconds:.1f}" for name, seconds in
                          sorted(phases.items(), key=lambda item: -item[1]) if seconds >= 0.05)
        print(f"{kernel['task']}/{kernel['kernel']}: {kernel.get('verdict')}, "
              f"{kernel.get('seconds', 0.0):.1f} s ({shown or 'no phase over 0.05 s'})")
        # The sanitizer cases run beside the others (a worker each under the tool); a record's
        # milliseconds for one are how long its gtest case then waited for it to end. What
        # neither explains of the kernel's seconds is its starts and its benchmark.
        all_cases = kernel.get("cases", [])
        in_turn = sum(c.get("milliseconds", 0.0) for c in all_cases
                      if not c.get("case", "").startswith("sanitizer_")) / 1000
        beside = [c for c in all_cases if c.get("case", "").startswith("sanitizer_")]
        longest_beside = max(beside, key=lambda c: c.get("milliseconds", 0.0), default=None)
        print(f"    cases in turn {in_turn:.1f} s"
              + (f"; then waited {longest_beside.get('milliseconds', 0.0) / 1000:.1f} s at most for a "
                 f"sanitizer case beside them ({longest_beside['case']})" if longest_beside else "; none beside"))
        cases = sorted(all_cases, key=lambda c: -c.get("milliseconds", 0.0))[:3]
        for case in cases:
            wait = (case.get("time_breakdown_ms") or {}).get("device_wait", 0.0)
            print(f"    {case['case']:<34} {case['status']:<8} {case.get('milliseconds', 0.0) / 1000:6.1f} s"
                  f"  (device_wait {wait / 1000:.1f} s)")


if __name__ == "__main__":
    main()
