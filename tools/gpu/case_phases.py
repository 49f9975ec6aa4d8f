#!/usr/bin/env python3
"""Writes each case's phases (its time_breakdown_ms) from the speed step's records, and prints the
phases summed over every kernel: where `rkt test` time goes across the shipped CUDA kernels.

    case_phases.py SPEED_DIR   (reads SPEED_DIR/times.tsv and SPEED_DIR/N.json; writes SPEED_DIR/phases.tsv)
"""
import collections
import json
import pathlib
import sys

PHASES = ("drawing", "references", "kernel_calls", "comparison", "timing", "buffer_sharing", "device_wait", "baselines")


def main():
    speed = pathlib.Path(sys.argv[1])
    totals = collections.Counter()
    case_total = 0.0
    lines = ["kernel\tcase\tstatus\tmilliseconds\t" + "\t".join(PHASES)]
    for row in (speed / "times.tsv").read_text().splitlines():
        n, kernel, _code, _seconds = row.split("\t")
        record = speed / (n + ".json")
        try:
            cases = json.loads(record.read_text())["cases"]
        except (OSError, ValueError, KeyError):
            continue
        for case in cases:
            breakdown = case.get("time_breakdown_ms") or {}
            milliseconds = case.get("milliseconds") or 0
            case_total += milliseconds
            for phase in PHASES:
                totals[phase] += breakdown.get(phase, 0)
            lines.append("\t".join([kernel, case["name"].rsplit(".", 1)[-1], case.get("status", ""),
                                    str(milliseconds)] + [str(round(breakdown.get(p, 0), 1)) for p in PHASES]))
    (speed / "phases.tsv").write_text("\n".join(lines) + "\n")
    print("cases %.1f s; phases: %s" % (case_total / 1000, ", ".join(
        "%s %.1f s" % (phase, totals[phase] / 1000) for phase in PHASES)))


if __name__ == "__main__":
    main()
