#!/usr/bin/env python3
"""tools/gpu/compare_kb_baselines.py on a small synthetic pair of files: the geometric means per
level, the problems outside the tolerance, and the compiled speedup next to KernelBench's figure.
Usage: compare_kb_baselines_test.py REPO"""
import json
import math
import os
import subprocess
import sys
import tempfile


def task(task_id, fp32, tf32, compiled=None):
    baselines = [
        {"name": "eager_fp32", "available": fp32 is not None, "median_ms": fp32 or 0},
        {"name": "eager_tf32", "available": tf32 is not None, "median_ms": tf32 or 0},
        {"name": "compiled", "available": compiled is not None, "median_ms": compiled or 0},
    ]
    speedup = {"ratio": fp32 / compiled, "low": 0, "high": 0} if compiled else {"ratio": 0}
    return {"task": task_id, "baselines": baselines, "compiled_speedup": speedup}


def main():
    script = os.path.join(sys.argv[1], "tools", "gpu", "compare_kb_baselines.py")
    ours = {"schema": "rkt-baselines/1", "tasks": [
        task("kb_l1_001", 1.0, 0.5, compiled=0.8),   # fp32 as KernelBench; compiled 1.25x
        task("kb_l1_002", 2.0, 2.0, compiled=2.5),   # fp32 +25%: outside 15%; compiled 0.8x
        task("kb_l2_001", 3.0, 1.0),                 # tf32 -50%: outside 15%
        task("softmax", 1.0, 1.0),                   # not a KernelBench problem: ignored
    ]}
    theirs = {"device": "Synthetic GPU", "torch": "0.0", "problems": {
        "kb_l1_001": {"name": "1_Square", "eager_fp32_ms": 1.0, "eager_tf32_ms": 0.5},
        "kb_l1_002": {"name": "2_Standard", "eager_fp32_ms": 1.6, "eager_tf32_ms": 2.0},
        "kb_l1_003": {"name": "3_Missing", "eager_fp32_ms": 1.0, "eager_tf32_ms": 1.0},
        "kb_l2_001": {"name": "1_Conv", "eager_fp32_ms": 3.0, "eager_tf32_ms": 2.0},
    }}
    with tempfile.TemporaryDirectory() as work:
        paths = []
        for name, content in (("ours.json", ours), ("theirs.json", theirs)):
            paths.append(os.path.join(work, name))
            with open(paths[-1], "w") as out:
                json.dump(content, out)
        result = subprocess.run([sys.executable, script] + paths, capture_output=True, text=True)
        text = result.stdout
        print(text, result.stderr)
        assert result.returncode == 0, result.returncode
        expected = [
            "kb_l1: 2 of 3 KernelBench problems measured by both",
            f"eager fp32: geomean ours / KernelBench = {math.sqrt(1.25):.3f} over 2 problems",
            "eager tf32: geomean ours / KernelBench = 1.000 over 2 problems",
            "kb_l1_002 fp32 2.0000 ms vs 1.6000 ms (+25.0%) 2_Standard",
            f"compiled over eager fp32: geomean {math.sqrt(1.25 * 0.8):.2f}x over 2 problems "
            "(KernelBench, Inductor over eager on H100: 1.17x)",
            "kb_l2: 1 of 1 KernelBench problems measured by both",
            "kb_l2_001 tf32 1.0000 ms vs 2.0000 ms (-50.0%) 1_Conv",
            "compiled over eager fp32: no compiled baseline measured (KernelBench, Inductor over "
            "eager on H100: 1.36x)",
        ]
        for line in expected:
            assert line in text, f"missing: {line}"
        assert "kb_l1_001 fp32" not in text and "kb_l1_001 tf32" not in text, "within 15%"
        assert "softmax" not in text
        # A file that is not a baseline table is refused with the reason.
        wrong = subprocess.run([sys.executable, script, paths[1], paths[1]], capture_output=True,
                               text=True)
        assert wrong.returncode != 0 and "rkt-baselines/1" in wrong.stderr, wrong.stderr
    print("compare_kb_baselines: geomeans, outliers and compiled speedups as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
