#!/usr/bin/env python3
"""Measures the Ray front end against rkt eval alone on this machine (docs/scale_out.md).

    measure_scale_out.py RKT OUT [--files 60] [--nodes 1 3] [--seed 20261203]

Writes OUT/candidates (make_candidates.py --device cpu), then, each from a cold library cache:
`rkt eval` of the whole batch in one call; for each node count, `rkt_ray.evaluate` on a
loopback `ray.cluster_utils.Cluster` of that many one-CPU nodes, and a second call into the same
folder (everything resumed). Prints one JSON line per measurement and writes them to
OUT/measurements.jsonl. Not a test (pytest does not collect it); it takes about a quarter of an
hour per 60 files and configuration on a 2-core machine.
"""
import argparse
import io
import json
import os
import pathlib
import subprocess
import sys
import time

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback addresses
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "python" / "rkt_ray"))
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(REPOSITORY / "python" / "rkt_ray")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from rkt_ray import evaluate  # noqa: E402
from rkt_ray.device_kind import device_kind  # noqa: E402

EVAL_TIMEOUT_S = 7200  # [s]


def emit(out: pathlib.Path, measurement: dict) -> None:
    line = json.dumps(measurement)
    print(line, flush=True)
    with open(out / "measurements.jsonl", "a") as stream:
        stream.write(line + "\n")


def per_minute(files: int, seconds: float) -> float:
    return round(files * 60.0 / seconds, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rkt")
    parser.add_argument("out")
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--skip-rkt-eval", action="store_true")
    options = parser.parse_args()
    out = pathlib.Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    candidates = out / "candidates"
    subprocess.run([sys.executable, str(REPOSITORY / "tools/eval_batch/make_candidates.py"),
                    str(candidates), "--count", str(options.files), "--device", "cpu"],
                   check=True, capture_output=True, timeout=120)
    files = sorted(str(p) for p in candidates.glob("*.cpp"))
    common = {"files": len(files), "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}

    if not options.skip_rkt_eval:
        environment = dict(os.environ, RKT_SEED=str(options.seed),
                           RKT_EVAL_CACHE=str(out / "cache-rkt-eval"))
        started = time.monotonic()
        done = subprocess.run([options.rkt, "eval"] + files + ["--json", "--out", str(out / "rkt-eval")],
                              env=environment, capture_output=True, text=True, timeout=EVAL_TIMEOUT_S)
        seconds = time.monotonic() - started
        emit(out, dict(common, what="rkt eval, one call", exit=done.returncode,
                       seconds=round(seconds, 1), per_file_s=round(seconds / len(files), 2),
                       files_per_minute=per_minute(len(files), seconds)))

    for nodes in options.nodes:
        os.environ["RKT_RAY_CACHE"] = str(out / ("cache-ray-%d" % nodes))
        started = time.monotonic()
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes(timeout=120)
        ray.init(address=cluster.address, log_to_driver=False)
        cluster_seconds = time.monotonic() - started
        try:
            folder = out / ("ray-%d-nodes" % nodes)
            for call in ("cold", "resumed"):
                progress = io.StringIO()
                started = time.monotonic()
                records = list(evaluate(files, out=str(folder), rkt=options.rkt, seed=options.seed,
                                        progress=progress))
                seconds = time.monotonic() - started
                (out / ("ray-%d-nodes-%s.log" % (nodes, call))).write_text(progress.getvalue())
                judged = [float(line.rsplit(", ", 1)[1].split(" s")[0])
                          for line in progress.getvalue().splitlines()
                          if line.startswith("rkt_ray: [") and ", " in line and " s" in line.rsplit(", ", 1)[1]]
                emit(out, dict(common, what="rkt_ray, %d loopback node%s, %s" % (
                    nodes, "s" if nodes > 1 else "", call), nodes=nodes, records=len(records),
                    seconds=round(seconds, 1), cluster_start_s=round(cluster_seconds, 1),
                    per_file_s=round(seconds / len(files), 2),
                    files_per_minute=per_minute(len(files), seconds),
                    mean_rkt_eval_child_s=round(sum(judged) / len(judged), 2) if judged else None,
                    device_kind=device_kind(False)))
        finally:
            ray.shutdown()
            cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
