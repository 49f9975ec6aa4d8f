"""tools/gpu/check_split_equals_whole.py on synthetic results (issue 23's equality checks run on
a host with several GPUs; here, that they pass equal halves and name each kind of disagreement)."""
import json
import os
import subprocess
import sys
import tempfile

repo = sys.argv[1]
script = os.path.join(repo, "tools", "gpu", "check_split_equals_whole.py")
work = tempfile.mkdtemp()


def kernel(name, verdict="pass", median=1.0, noise=0.01):
    task, kernel_id = name.split("/")
    return {"task": task, "kernel": kernel_id, "verdict": verdict,
            "benchmark": {"time": {"median_ms": median, "relative_noise": noise}}}


def task(name, **medians):
    return {"task": name, "baselines": [
        {"name": baseline, "available": True, "median_low_ms": low, "median_high_ms": high}
        for baseline, (low, high) in medians.items()]}


def check(kind, split, whole):
    paths = []
    for label, content in (("split", split), ("whole", whole)):
        path = os.path.join(work, f"{kind}_{label}.json")
        json.dump(content, open(path, "w"))
        paths.append(path)
    done = subprocess.run([sys.executable, script, kind, *paths], capture_output=True, text=True)
    return done.returncode, done.stdout


run = {"kernels": [kernel("relu/cuda"), kernel("softmax/cuda", median=2.0)]}
code, text = check("run", run, run)
assert code == 0 and "2 compared, 0 disagreements" in text, text
code, text = check("run", run, {"kernels": [kernel("relu/cuda", verdict="FAIL"),
                                            kernel("softmax/cuda", median=2.5)]})
assert code == 1, text
assert "relu/cuda: verdict pass split, FAIL whole" in text, text
assert "softmax/cuda: median" in text and "no overlap" in text, text
code, text = check("run", run, {"kernels": [kernel("relu/cuda")]})
assert code == 1 and "softmax/cuda: only in the split run" in text, text

table = {"tasks": [task("relu", eager_fp32=(1.0, 1.1)), task("softmax", eager_fp32=(2.0, 2.2))]}
code, text = check("baselines", table, {"tasks": [task("relu", eager_fp32=(1.05, 1.2)),
                                                   task("softmax", eager_fp32=(2.1, 2.3))]})
assert code == 0 and "2 compared, 0 disagreements" in text, text
code, text = check("baselines", table, {"tasks": [task("relu", eager_fp32=(1.5, 1.6)),
                                                   task("softmax", eager_tf32=(1.0, 1.1))]})
assert code == 1, text
assert "relu eager_fp32: (1.0, 1.1) ms split, (1.5, 1.6) ms whole (no overlap)" in text, text
assert "softmax eager_fp32: available in one table only" in text, text
print("check_split_equals_whole: equal halves pass; verdicts, medians and missing rows are named")
