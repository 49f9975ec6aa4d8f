"""The judges: Ray actors that each judge one file at a time with an `rkt eval` child.

`CudaJudge` holds one GPU (`num_gpus=1`: Ray sets its CUDA_VISIBLE_DEVICES) and judges `.cu`
files; `CpuJudge` holds one CPU and judges `.cpp` files, one per node, since CPU benchmarks side
by side would time each other (rkt eval judges its `.cpp` files one at a time for that reason).

Until the warm judge (`rkt serve`) lands, a judge runs `rkt eval FILE --json --out FOLDER` per
file in a node-local scratch folder, which it seeds with the file's earlier records so that
rkt eval resumes it by library hash itself. The libraries go to the node's cache for the judge's
device kind (device_kind.py). The secrets (RKT_SECRET_SEED, RKT_HIDDEN_SUITE) are in the actor's
environment, put there by Ray's runtime_env; rkt reads and removes them, and nothing here prints
or returns the environment.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import socket
import tempfile
import uuid
from typing import List, Optional

import ray

from rkt_ray.device_kind import default_cache_root, device_kind, library_cache_folder
from rkt_ray.eval_child import run_eval_child
from rkt_ray.file_job import FileJob, FileJudgement

LOG_TAIL_LINES = 12  # [lines] of rkt eval's standard error quoted when it ends without records
# A node's own choice of scratch folder (default: the system's temporary folder). A file's
# folder is removed once rkt eval gave its records; one that gave none is kept for its log.
SCRATCH_ROOT_VARIABLE = "RKT_RAY_SCRATCH"


def _tail(path: pathlib.Path, count: int) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-count:])


class KernelJudge:
    """Judges one file per call with rkt eval; one instance per GPU, or per node for CPU files."""

    def __init__(self, rkt: str, cuda: bool, cache_root: Optional[str] = None,
                 scratch_root: Optional[str] = None):
        self.rkt = rkt
        self.device_kind = device_kind(cuda)
        self.cache = library_cache_folder(cache_root or default_cache_root(), self.device_kind)
        root = scratch_root or os.environ.get(SCRATCH_ROOT_VARIABLE) or tempfile.gettempdir()
        self.scratch = pathlib.Path(root) / "rkt_ray" / ("judge-" + uuid.uuid4().hex[:12])
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.node_id = ray.get_runtime_context().get_node_id()

    def describe(self) -> dict:
        """Where this judge runs (for the driver's progress lines and node_lost records)."""
        return {"node_id": self.node_id, "device_kind": self.device_kind,
                "host": socket.gethostname(), "pid": os.getpid(), "cache": self.cache}

    def judge(self, job: FileJob) -> FileJudgement:
        folder = self.scratch / ("file-%d-%s" % (job.index, uuid.uuid4().hex[:8]))
        run = folder / "run"
        (run / "libraries").mkdir(parents=True)
        source_path = job.source.write_into(folder / "source")
        if job.earlier_records:
            (run / "eval.jsonl").write_text("".join(line + "\n" for line in job.earlier_records))
        for library_hash, text in job.earlier_library_results.items():
            (run / "libraries" / library_hash).mkdir(parents=True, exist_ok=True)
            (run / "libraries" / library_hash / "results.json").write_text(text)
        environment = dict(os.environ)
        environment["RKT_EVAL_CACHE"] = self.cache
        environment["RKT_SEED"] = str(job.seed)
        argv = [self.rkt, "eval", source_path, "--json", "--out", str(run)] + job.eval_arguments
        log = folder / "eval.log"
        outcome = run_eval_child(argv, environment, job.deadline_s, str(log), str(folder))
        records = self._records_of(outcome.stdout, job, source_path)
        judged = sorted(h.name for h in (run / "libraries").iterdir()
                        if (h / "judge.log").exists())
        library_results = {h: (run / "libraries" / h / "results.json").read_text()
                           for h in judged if (run / "libraries" / h / "results.json").exists()}
        file_results = run / "results.json"
        file_results_json = file_results.read_text() if file_results.exists() else None
        if not records:
            records = [self._judge_error(job, outcome.exit_code, outcome.seconds, log, folder)]
            file_results_json = None  # the merge gives it a failing entry of its own
        else:
            shutil.rmtree(folder, ignore_errors=True)
        return FileJudgement(job.index, self.node_id, self.device_kind, records, file_results_json,
                             library_results, judged, outcome.seconds, outcome.exit_code)

    @staticmethod
    def _records_of(stdout: str, job: FileJob, source_path: str) -> List[dict]:
        """rkt eval's JSON lines, naming the driver's path instead of the scratch copy."""
        records = []
        source_folder = os.path.dirname(source_path) + "/"
        original_folder = os.path.dirname(job.path)
        original_folder = original_folder + "/" if original_folder else ""
        for line in stdout.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(record, dict) or "file" not in record:
                continue
            if record["file"] == source_path:
                record["file"] = job.path
            if isinstance(record.get("message"), str) and source_path != job.path:
                record["message"] = record["message"].replace(source_folder, original_folder)
            records.append(record)
        return records

    def _judge_error(self, job: FileJob, exit_code: Optional[int], seconds: float,
                     log: pathlib.Path, folder: pathlib.Path) -> dict:
        """The record of an rkt eval that gave none: killed at the deadline, crashed, refused."""
        if exit_code is None:
            how = "was killed at its deadline of %.0f s" % job.deadline_s
        elif exit_code < 0:
            how = "was ended by signal %d after %.1f s" % (-exit_code, seconds)
        else:
            how = "exited with %d after %.1f s" % (exit_code, seconds)
        return {"file": job.path, "library_hash": "", "status": "judge_error", "verdict": "FAIL",
                "declarations_allowed": "--allow-declarations" in job.eval_arguments,
                "message": "rkt eval on node %s %s without a record; its folder %s is kept; the "
                           "last lines of its log:\n%s" % (self.node_id, how, folder,
                                                           _tail(log, LOG_TAIL_LINES))}


# Ray's idiom: actors with declared resources. No restarts: a judge lost with its node is
# replaced by the driver on a live node (judge_pool.py), and its file judged again there.
CudaJudge = ray.remote(num_gpus=1, max_restarts=0, max_task_retries=0)(KernelJudge)
CpuJudge = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(KernelJudge)
