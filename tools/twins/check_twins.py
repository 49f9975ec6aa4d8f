#!/usr/bin/env python3
"""Checks that every task's Python twin computes what its C++ reference computes.

    python tools/twins/check_twins.py --rkt build/bin/rkt [--twins DIR] [--task SUBSTRING]

1. `rkt twin-inputs` draws each forward task's inputs exactly as the correctness cases do (small
   dims, every config, the four distributions x1, x3, x0.01, negated; the case seeds, so
   RKT_SEED reproduces a run) and saves them with the C++ torch::pickle_save.
2. This script runs each task's twin (TWINS[task id] in the modules of --twins, default
   tasks/twins/) in float64 on those inputs (the question is whether the two writings compute
   the same thing, not how float32 rounds it; the compiled twin's float32 outputs are checked
   against the reference before every benchmark) and saves its outputs, rounded to float32, with
   torch.save; a twin that raises leaves the error instead.
3. `rkt twin-check` judges every twin output against the C++ reference computed in float64, with
   the fp32 tolerance and the same check a kernel's outputs go through (output_comparison.cpp),
   and prints one line per task (the worst element of every disagreeing task), then
   "N passed, M failed". A forward task without a twin fails; backward tasks have none.

Exits non-zero when any task disagrees or lacks its twin.
"""
import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools", "aoti"))
from build_packages import load_twins  # noqa: E402  (one loader for the builder and this check)


def run_twins(work, twins):
    """Runs the twin of every case in work/cases.tsv; returns (cases run, seconds)."""
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # float32 means float32 (CPU in CI anyway)
    torch.backends.cudnn.allow_tf32 = False
    tensor_list_builder = importlib.import_module("torch.jit._pickle").build_tensorlist
    started, ran = time.time(), 0
    with open(os.path.join(work, "cases.tsv")) as manifest:
        for line in manifest:
            stem, task = line.rstrip("\n").split("\t")[:2]
            if task not in twins:
                continue
            base = os.path.join(work, "cases", stem)
            # The C++ torch::pickle_save rebuilds a tensor list with this one function; allowing
            # it keeps torch.load's weights-only mode (no arbitrary code) for everything else.
            with torch.serialization.safe_globals([tensor_list_builder]):
                inputs = torch.load(base + ".inputs.pt")
            try:
                wide = [x.double() if x.is_floating_point() else x for x in inputs]
                with torch.no_grad():
                    outputs = twins[task][0](*wide)
                if isinstance(outputs, torch.Tensor):
                    raise TypeError("the twin returned a tensor, not a tuple of tensors")
                outputs = list(outputs)
                for index, output in enumerate(outputs):
                    if not isinstance(output, torch.Tensor):
                        raise TypeError(f"output {index} is a {type(output).__name__}, "
                                        "not a tensor")
                outputs = [o.float() if o.dtype == torch.float64 else o for o in outputs]
                torch.save([output.detach().contiguous().clone() for output in outputs],
                           base + ".twin.pt")
            except Exception as error:  # Reported by rkt twin-check, with the task's name.
                last = traceback.format_exception_only(type(error), error)[-1].strip()
                with open(base + ".twin.error", "w") as out:
                    out.write(last)
            ran += 1
    return ran, time.time() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rkt", required=True, help="the rkt executable")
    parser.add_argument("--twins", default=os.path.join(REPO, "tasks", "twins"),
                        help="folder of twin modules (default: tasks/twins)")
    parser.add_argument("--task", default="", help="only tasks whose id contains this")
    parser.add_argument("--work", default="", help="folder for inputs and outputs (default: a "
                        "temporary one, removed afterwards)")
    args = parser.parse_args()

    twins = load_twins(args.twins)
    with tempfile.TemporaryDirectory(prefix="rkt_twins_") as temporary:
        work = args.work or temporary
        task_option = ["--task", args.task] if args.task else []
        generated = subprocess.run([args.rkt, "twin-inputs", "--dir", work] + task_option)
        if generated.returncode != 0:
            print(f"check_twins: rkt twin-inputs failed (exit {generated.returncode})")
            return 1
        ran, seconds = run_twins(work, twins)
        with open(os.path.join(work, "twins.tsv"), "w") as listing:
            for task, (function, _digest) in sorted(twins.items()):
                source = os.path.relpath(function.__code__.co_filename, REPO)
                listing.write(f"{task}\t{source}\n")
        print(f"check_twins: ran {ran} twin cases from {args.twins} in {seconds:.1f} s",
              flush=True)
        checked = subprocess.run([args.rkt, "twin-check", "--dir", work] + task_option)
        return 0 if checked.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
