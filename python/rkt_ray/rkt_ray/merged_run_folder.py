"""The batch's one run folder, written by `rkt merge` from each file's own eval run.

Every judge's `rkt eval` writes a run folder for its one file (results.json; kernels named by
their registered ids, a file without kernels a failing entry named `<file stem>`). `rkt merge`
combines the shards of one sharded run and refuses anything else, checking that they share the
seed, the hidden inputs, the isolation and the selection, and that no kernel is in two of them.
A batch of N files judged one per call is such a run, split one file to a shard, so the driver
says so in each file's results before the merge: `"shard": {"index": i, "count": N,
"selected_kernels": <entries of the whole batch>}`. Nothing else in them is changed, except the
stem of a file whose stem an earlier file of the batch already has (`name#2`, as rkt eval names
it), and the name of a kernel whose id another file of the batch registers too, which becomes
`<file stem>:<kernel>` (as rkt eval names it in a batch, eval_job.cpp `report_entry`). A file that has no run of its own (node_lost, or an rkt eval that gave no record) gets the
failing entry rkt eval gives a file without kernels (eval_job.cpp, `report_entry`).

Until `rkt merge` reads eval run folders itself, this is the one place that knows the shard fields.
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
from typing import Dict, List, Optional

from rkt_ray.record_log import write_atomically

FILE_RUNS_FOLDER = ".file_runs"  # in the run folder: each file's eval results while the batch runs
MERGE_TIMEOUT_S = 600  # [s] rkt merge reads and writes files only; minutes would mean a hang
# What eval_job.cpp writes into a run folder's header: rkt merge refuses runs that differ.
EVAL_HIDDEN_INPUTS = "as each file's judge read them (RKT_HIDDEN_SUITE)"
EVAL_ISOLATION = "isolated (each file's kernels ran in workers of a judge of its own)"
RESULTS_SCHEMA = "rkt-results/3"


def file_stem(path: str) -> str:
    name = os.path.basename(path)
    dot = name.rfind(".")
    return name if dot <= 0 else name[:dot]


def unique_stems(paths: List[str]) -> List[str]:
    """Each file's entry prefix, `stem`, `stem#2`, ... in the batch's order (as rkt eval does)."""
    uses: Dict[str, int] = {}
    stems = []
    for path in paths:
        stem = file_stem(path)
        uses[stem] = uses.get(stem, 0) + 1
        stems.append(stem if uses[stem] == 1 else "%s#%d" % (stem, uses[stem]))
    return stems


def _empty_summary() -> dict:
    return {"median_ms": 0.0, "q1_ms": 0.0, "q3_ms": 0.0, "iqr_ms": 0.0, "mean_ms": 0.0,
            "stddev_ms": 0.0, "samples": 0, "relative_noise": 0.0}


def failed_file_entry(stem: str, path: str, task: Optional[str], record: dict) -> dict:
    """The results.json entry of a file that yielded no judged kernel, as rkt eval writes it."""
    status = record.get("status", "judge_error")
    message = record.get("message", "")
    device = "cuda" if path.endswith(".cu") else "cpu"
    entry_task = task or "unknown"
    return {
        "task": entry_task, "kernel": stem, "device": device, "precision": "fp32",
        "accumulation": "fp32", "verdict": "FAIL", "task_severity": "healthy",
        "precision_claim": "verified", "task_reasons": [], "seconds": 0.0, "waived_gates": {},
        "allowed_operators": [], "supports": [], "alignment_bytes": 0,
        "time_breakdown_s": {"drawing": 0.0, "references": 0.0, "kernel_calls": 0.0,
                             "comparison": 0.0, "timing": 0.0},
        "cases": [], "problems": ["%s: %s" % (status, message)],
        "benchmark": {
            "measured": False, "problem": "no kernel was judged (%s)" % status, "dims": "",
            "time": _empty_summary(), "stop_reason": "", "peak_memory_bytes": -1.0,
            "floor_ms": 0.0, "impossible": False,
            "roofline": {"achieved_bytes_per_second": 0.0, "achieved_flops_per_second": 0.0,
                         "bandwidth_fraction": 0.0, "flops_fraction": 0.0},
            "spot_checks": {"checked": 0, "failed": 0, "message": ""}, "baselines": [],
            "strongest_baseline": "",
            "speedup_vs_strongest": {"ratio": 0.0, "low": 0.0, "high": 0.0},
            "faster_than_strongest": False,
        },
    }


def failed_file_results(stem: str, path: str, task: Optional[str], record: dict, seed: int,
                        started_utc: str) -> dict:
    """A one-file eval run holding only the failing entry of a file without a run of its own."""
    return {"schema": RESULTS_SCHEMA, "started_utc": started_utc, "seed": seed,
            "hidden_inputs": EVAL_HIDDEN_INPUTS, "isolation": EVAL_ISOLATION, "finished": True,
            "kernel_filter": task + "/" if task else "", "shard": None, "merged_shards": 0,
            "devices": {}, "kernels": [failed_file_entry(stem, path, task, record)], "summary": []}


def _renamed(results: dict, rkt_stem: str, stem: str) -> dict:
    """The file's entries under `stem` where its own rkt eval named them `rkt_stem`."""
    if rkt_stem == stem:
        return results
    for entry in results.get("kernels", []):
        name = entry.get("kernel", "")
        if name == rkt_stem:
            entry["kernel"] = stem
        elif name.startswith(rkt_stem + ":"):
            entry["kernel"] = stem + name[len(rkt_stem):]
    return results


def _judged(entry: dict) -> bool:
    """A kernel's entry, not the failing entry of a file without kernels (which has no cases)."""
    return bool(entry.get("cases"))


def _told_apart(runs: List[dict], stems: List[str]) -> List[dict]:
    """Each kernel whose task/id another file's entry also has, renamed `<file stem>:<kernel>`."""
    files_naming: Dict[str, set] = {}
    for index, run in enumerate(runs):
        for entry in run.get("kernels", []):
            files_naming.setdefault("%s/%s" % (entry.get("task"), entry.get("kernel")), set()).add(index)
    for index, run in enumerate(runs):
        for entry in run.get("kernels", []):
            name = entry.get("kernel", "")
            clashes = len(files_naming["%s/%s" % (entry.get("task"), name)]) > 1
            if clashes and _judged(entry) and ":" not in name:
                entry["kernel"] = "%s:%s" % (stems[index], name)
    return runs


class FileRuns:
    """Each file's own eval results.json, kept under the run folder until the merge."""

    def __init__(self, out: str):
        self.folder = pathlib.Path(out) / FILE_RUNS_FOLDER
        shutil.rmtree(self.folder, ignore_errors=True)  # an interrupted call's: judged again
        self.folder.mkdir(parents=True)

    def keep(self, index: int, results_json: str) -> None:
        write_atomically(self.folder / ("%06d.json" % index), results_json)

    def keep_failed(self, index: int, path: str, task: Optional[str], record: dict, seed: int,
                    started_utc: str) -> None:
        results = failed_file_results(file_stem(path), path, task, record, seed, started_utc)
        self.keep(index, json.dumps(results, indent=2))

    def merge(self, rkt: str, out: str, paths: List[str], environment: Dict[str, str]) -> str:
        """`rkt merge --out OUT` over every file's run, stamped as shard i/N; returns its output.

        Raises RuntimeError when a file has no run or rkt merge refuses (exit 2)."""
        stems = unique_stems(paths)
        runs = []
        for index, path in enumerate(paths):
            file = self.folder / ("%06d.json" % index)
            if not file.exists():
                raise RuntimeError("no run folder for %s: the batch did not finish" % path)
            runs.append(_renamed(json.loads(file.read_text()), file_stem(path), stems[index]))
        runs = _told_apart(runs, stems)
        selected = sum(len(run.get("kernels", [])) for run in runs)
        staged = self.folder / "shards"
        staged.mkdir(exist_ok=True)
        staged_files = []
        for index, run in enumerate(runs):
            run["shard"] = {"index": index + 1, "count": len(runs), "selected_kernels": selected}
            target = staged / ("%06d.json" % index)
            write_atomically(target, json.dumps(run, indent=2))
            staged_files.append(str(target))
        merged = subprocess.run([rkt, "merge", "--out", out] + staged_files, capture_output=True,
                                text=True, env=environment, timeout=MERGE_TIMEOUT_S, check=False)
        if merged.returncode not in (0, 1):
            raise RuntimeError("rkt merge refused the batch's runs (exit %d): %s" %
                               (merged.returncode, (merged.stderr or merged.stdout).strip()))
        shutil.rmtree(self.folder, ignore_errors=True)
        return merged.stdout.strip()
