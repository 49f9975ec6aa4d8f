#!/usr/bin/env python3
"""tools/gpu/eval_phases.py on a synthetic results.json: the batch's totals per phase (a judge's
wait for another's hold on the GPU among them), the slowest kernels first with their longest
cases, the cases in turn against the longest beside them, and a clear error for a file without
kernels.
Usage: eval_phases_test.py REPO"""
import json
import os
import subprocess
import sys
import tempfile


def kernel(name, seconds, phases, cases):
    return {"task": "relu", "kernel": name, "verdict": "pass", "seconds": seconds,
            "time_breakdown_s": phases,
            "cases": [{"case": case, "status": "passed", "milliseconds": ms,
                       "time_breakdown_ms": {"device_wait": wait}} for case, ms, wait in cases]}


def main():
    script = os.path.join(sys.argv[1], "tools", "gpu", "eval_phases.py")
    results = {"kernels": [
        kernel("quick", 4.0, {"drawing": 0.5, "timing": 1.0, "device_wait": 0.0},
               [("correctness_x1", 500.0, 0.0)]),
        kernel("waited", 36.0, {"drawing": 0.5, "timing": 1.5, "device_wait": 30.0},
               [("property_shapes", 2000.0, 0.0), ("integrity_escaped_work", 31000.0, 30000.0),
                ("sanitizer_memcheck", 3500.0, 0.0), ("sanitizer_racecheck", 1200.0, 0.0)]),
    ]}
    failures = []
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "results.json")
        with open(path, "w") as handle:
            json.dump(results, handle)
        out = subprocess.run([sys.executable, script, path, "--slowest", "1"], capture_output=True,
                             text=True, check=True).stdout
        for expected in ("2 kernels, 40.0 s of judge time",
                         "device_wait         30.0 s   75.0%",
                         "relu/waited: pass, 36.0 s (device_wait 30.0, timing 1.5, drawing 0.5)",
                         "integrity_escaped_work             passed     31.0 s  (device_wait 30.0 s)",
                         "cases in turn 33.0 s; then waited 3.5 s at most for a sanitizer case beside them (sanitizer_memcheck)"):
            if expected not in out:
                failures.append(f"missing {expected!r}")
        if "relu/quick" in out:
            failures.append("--slowest 1 listed the quicker kernel too")
        empty = os.path.join(work, "empty.json")
        with open(empty, "w") as handle:
            json.dump({"kernels": []}, handle)
        refused = subprocess.run([sys.executable, script, empty], capture_output=True, text=True)
        if refused.returncode == 0 or "has no kernels" not in refused.stderr:
            failures.append(f"an empty file was not refused: {refused.returncode} {refused.stderr!r}")
        if failures:
            print(out)
    for failure in failures:
        print("FAIL:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
