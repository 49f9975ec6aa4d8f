#!/usr/bin/env python3
"""Builds the AOTInductor packages of the `compiled` baseline.

    build/bin/rkt aoti-spec --device cuda > spec.json
    python tools/aoti/build_packages.py spec.json [--jobs N] [--tasks relu,softmax]

For each task in the spec (written by `rkt aoti-spec`: package path, input names, shapes and
dtypes at the benchmark size), the task's Python twin (tasks/twins/*.py) is exported with
torch.export and compiled with torch._inductor.aoti_compile_and_package into the spec's path.
A backward task (the spec names its forward task) is built from its forward task's twin: the
vector-Jacobian product of the forward inputs and the cotangents, traced to ATen operators with
make_fx (torch.export cannot trace autograd itself); it recomputes what the forward saved, as a
backward kernel given the same inputs must.
Packages are cached: a package is rebuilt only when its twin's source file changed (a sidecar
<package>.json records the source's hash). A task without a twin, or whose build fails, gets
<package>.absent holding the reason, which the benchmark reports. Builds run in parallel.
The C++ side checks every package against the task's C++ reference before timing it.
"""
import argparse
import concurrent.futures
import hashlib
import importlib.util
import json
import multiprocessing
import os
import sys
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_TWINS = os.path.join(REPO, "tasks", "twins")


def load_twins(directory):
    """{task id: (function, source hash)} from every module in `directory`."""
    twins = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".py") or name.startswith("_"):
            continue
        path = os.path.join(directory, name)
        spec = importlib.util.spec_from_file_location("rkt_twins_" + name[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with open(path, "rb") as source:
            digest = hashlib.sha256(source.read()).hexdigest()
        for task, function in getattr(module, "TWINS", {}).items():
            if task in twins:
                raise SystemExit(f"build_packages: task '{task}' has two twins ({path})")
            twins[task] = (function, digest)
    return twins


def write_text(path, text):
    temporary = path + ".tmp"
    with open(temporary, "w") as out:
        out.write(text + "\n")
    os.replace(temporary, path)


def backward_twin(forward, forward_inputs):
    """The gradients of `forward` at its floating arguments among the first `forward_inputs`
    (integer ones, such as class targets, are held fixed), given one cotangent per forward output
    in the arguments after them; in input order, as the backward task's outputs are."""
    import torch

    def gradients(*args):
        primals, cotangents = list(args[:forward_inputs]), tuple(args[forward_inputs:])
        floating = [i for i, primal in enumerate(primals) if primal.is_floating_point()]

        def of_floating(*values):
            arguments = list(primals)
            for i, value in zip(floating, values):
                arguments[i] = value
            return tuple(forward(*arguments))

        _, vector_jacobian_product = torch.func.vjp(of_floating, *[primals[i] for i in floating])
        return tuple(vector_jacobian_product(cotangents))
    return gradients


def build_one(task, twins_dir, device, inputs, package, forward=None):
    """Runs in a worker process: exports and packages one twin. Returns (seconds, error).
    `forward`: (forward task, number of forward inputs) for a backward task."""
    import torch  # Imported here so that the parent stays light.

    start = time.time()
    twins = load_twins(twins_dir)
    function = twins[forward[0]][0] if forward else twins[task][0]

    class Twin(torch.nn.Module):
        def forward(self, *args):
            return function(*args)

    dtypes = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
              "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32}
    examples = []
    for spec in inputs:
        dtype = dtypes[spec["dtype"]]
        if dtype.is_floating_point:
            examples.append(torch.randn(spec["shape"], dtype=dtype, device=device))
        else:
            examples.append(torch.zeros(spec["shape"], dtype=dtype, device=device))
    try:
        if forward:
            from torch.fx.experimental.proxy_tensor import make_fx
            function = make_fx(backward_twin(function, forward[1]))(*examples)
        with torch.no_grad():
            exported = torch.export.export(Twin(), tuple(examples))
            temporary = package[: -len(".pt2")] + ".building.pt2"
            torch._inductor.aoti_compile_and_package(exported, package_path=temporary)
        os.replace(temporary, package)
        return time.time() - start, None
    except Exception as error:  # The reason lands in <package>.absent and in the report.
        last = traceback.format_exception_only(type(error), error)[-1].strip()
        return time.time() - start, f"AOTInductor could not build the twin of {task}: {last}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", help="the output of `rkt aoti-spec`")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    parser.add_argument("--twins", default=DEFAULT_TWINS, help="folder of twin modules")
    args = parser.parse_args()

    with open(args.spec) as spec_file:
        spec = json.load(spec_file)
    import torch

    version = torch.__version__.split("+")[0]
    if version != spec["torch"]:
        raise SystemExit(f"build_packages: Python torch {torch.__version__} differs from "
                         f"LibTorch {spec['torch']}; packages must be built by the same version")
    if spec["device"] == "cuda" and not torch.cuda.is_available():
        raise SystemExit("build_packages: the spec is for CUDA but no GPU is visible")
    if spec["device"] == "cuda":
        # Packages are keyed by the GPU's architecture (rkt's file names say cuda-sm<arch>): a
        # spec written beside another GPU would file this GPU's code under that one's key.
        major, minor = torch.cuda.get_device_capability()
        if spec.get("gpu_architecture") != f"{major}{minor}":
            raise SystemExit(f"build_packages: the spec is for GPU architecture "
                             f"{spec.get('gpu_architecture') or 'none'} but this GPU is "
                             f"{major}.{minor}; run `rkt aoti-spec` on this machine")
    twins = load_twins(args.twins)
    wanted = set(filter(None, args.tasks.split(",")))
    unknown = wanted - {task["task"] for task in spec["tasks"]}
    if unknown:
        raise SystemExit(f"build_packages: unknown task(s) {', '.join(sorted(unknown))}")

    rows, jobs = [], {}
    started = time.time()
    # Spawned workers: this process has touched CUDA (is_available), and CUDA cannot be used in
    # a forked child.
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
        for task in spec["tasks"]:
            if wanted and task["task"] not in wanted:
                continue
            package = task["package"]
            os.makedirs(os.path.dirname(package), exist_ok=True)
            forward = (task["forward_task"], task["forward_inputs"]) if "forward_task" in task else None
            twin_of = forward[0] if forward else task["task"]
            if twin_of not in twins:
                write_text(package + ".absent",
                           f"task {twin_of} has no Python twin (tasks/twins/), so "
                           f"{task['task']} has no compiled baseline")
                rows.append((task["task"], "no twin", 0.0))
                continue
            digest = twins[twin_of][1]
            sidecar = package + ".json"
            if os.path.exists(package) and os.path.exists(sidecar):
                with open(sidecar) as recorded:
                    if json.load(recorded).get("twin_sha256") == digest:
                        rows.append((task["task"], "cached", 0.0))
                        continue
            jobs[pool.submit(build_one, task["task"], args.twins, spec["device"],
                             task["inputs"], package, forward)] = (task, digest)
        for future in concurrent.futures.as_completed(jobs):
            task, digest = jobs[future]
            package = task["package"]
            try:
                seconds, error = future.result()
            except Exception as crash:  # A worker that died takes only its own task down.
                seconds, error = 0.0, f"the build of {task['task']} crashed: {crash!r}"[:2000]
            if error:
                write_text(package + ".absent", error)
                rows.append((task["task"], "failed: " + error, seconds))
                continue
            if os.path.exists(package + ".absent"):
                os.remove(package + ".absent")
            write_text(package + ".json", json.dumps(
                {"task": task["task"], "dims": task["dims"], "twin_sha256": digest,
                 "torch": torch.__version__, "build_seconds": round(seconds, 1)}))
            rows.append((task["task"], "built", seconds))
    for task, status, seconds in sorted(rows):
        print(f"{task:40s} {seconds:7.1f} s  {status}")
    built = sum(1 for row in rows if row[1] == "built")
    print(f"{len(rows)} tasks: {built} built, "
          f"{sum(1 for row in rows if row[1] == 'cached')} cached, "
          f"{sum(1 for row in rows if row[1] == 'no twin')} without a twin, "
          f"{sum(1 for row in rows if row[1].startswith('failed'))} failed; "
          f"{time.time() - started:.0f} s with {args.jobs} jobs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
