"""`evaluate`: a batch of kernel files judged on a Ray cluster, one record per kernel.

The driver is a loop over `ray.wait`: it hands each idle judge (judge_pool.py) the next file,
waits for any answer, writes that file's records to eval.jsonl the moment they arrive
(record_log.py), and hands the judge the next file. A judge lost with its node (or killed when it
overran its file's deadline) costs its file an attempt: the file goes back to the queue, to a
judge on another node when one is free, and after `max_attempts` lost judges it gets a
`node_lost` record naming them. At the end `rkt merge` writes the run folder
(merged_run_folder.py).

Resume: a file's earlier records travel with it, and the node's `rkt eval` resumes it by library
hash exactly as a second local call into the folder would (it compiles, from its cache when it
can, but judges nothing already judged to the end); the driver appends only records of libraries
whose judge ran in this call. The driver does not compute library hashes itself: rkt's key holds
the compiler, its flags and the linked objects, which only rkt knows.

Recheck (`recheck=K`, rkt eval's `--recheck K`): once every file is judged, the K fastest kernels
that passed and were timed, over the whole batch, are judged again: each chosen file goes back to
a judge with its records and `--recheck N` (N: its chosen kernels, its fastest), and the node's
rkt eval resumes its first judgement and judges those kernels again in fresh processes with a
fresh secret seed. The records then come out once each, final, after the rechecks, as rkt eval
prints them; eval.jsonl gets a rechecked kernel's final record after its first one.
"""
from __future__ import annotations

import datetime
import os
import random
import shutil
import sys
import time
from collections import deque
from typing import Deque, Dict, Iterable, Iterator, List, Optional, TextIO, Tuple, Union

import ray

from rkt_ray.cluster_secrets import secret_environment, without_secrets
from rkt_ray.file_job import FileJob, FileJudgement
from rkt_ray.judge_pool import Judge, JudgePool
from rkt_ray.kernel_source import read_kernel_source
from rkt_ray.merged_run_folder import FileRuns
from rkt_ray.record_log import RecordLog

# Each default once, with its unit.
DEFAULT_MAX_ATTEMPTS = 3  # judges a file may be lost with before its node_lost record
DEFAULT_FILE_TIMEOUT_S = 1200  # [s] rkt eval's --file-timeout default (eval_defaults.h)
COMPILE_ALLOWANCE_S = 300  # [s] rkt's compiler time limit (eval_defaults.h kCompileTimeoutSeconds)
DEADLINE_MARGIN_S = 60  # [s] beyond compile + judge: rkt eval's start, resume, files
POLL_S = 5.0  # [s] the longest ray.wait between deadline checks and pool refreshes
REFRESH_S = 30.0  # [s] how often the pool looks for nodes that joined
NO_JUDGE_WAIT_S = 120.0  # [s] files wait this long for a judge on an empty cluster, then node_lost
RESULT_FETCH_TIMEOUT_S = 120.0  # [s] ray.get of an answer ray.wait already found ready
SEED_VARIABLE = "RKT_SEED"


def _utc_now(layout: str) -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime(layout)


def resolve_rkt(rkt: Optional[str]) -> str:
    """The rkt every node runs: `rkt`, else $RKT_BINARY, else `rkt` on PATH (absolute)."""
    chosen = rkt or os.environ.get("RKT_BINARY") or shutil.which("rkt")
    if not chosen:
        raise ValueError("no rkt: pass rkt=PATH (--rkt), set RKT_BINARY or put rkt on PATH; "
                         "every node needs it at that path")
    return os.path.abspath(chosen) if os.path.exists(chosen) else chosen


def batch_seed(seed: Optional[int]) -> int:
    """One seed for the whole batch (rkt merge refuses runs of different seeds)."""
    if seed is not None:
        return int(seed)
    if os.environ.get(SEED_VARIABLE, "").isdigit():
        return int(os.environ[SEED_VARIABLE])
    return random.SystemRandom().randrange(1, 2 ** 31)


def eval_arguments(task: Optional[str], file_timeout_s: int, case_timeout_s: Optional[int],
                   benchmark_timeout_s: Optional[int], allow_declarations: bool) -> List[str]:
    arguments = ["--file-timeout", str(file_timeout_s), "--jobs", "1"]
    if task:
        arguments += ["--task", task]
    if case_timeout_s:
        arguments += ["--timeout", str(case_timeout_s)]
    if benchmark_timeout_s:
        arguments += ["--benchmark-timeout", str(benchmark_timeout_s)]
    if allow_declarations:
        arguments.append("--allow-declarations")
    return arguments


def _lost_record(job: FileJob, allow_declarations: bool, status: str) -> dict:
    """The record of a file whose every judge was lost: it names them and what happened."""
    return {"file": job.path, "library_hash": "", "status": status, "verdict": "FAIL",
            "declarations_allowed": allow_declarations, "nodes": list(job.lost_on),
            "message": "%s: judged %d times, each judge lost before it answered: %s" % (
                job.path, len(job.losses), "; ".join(job.losses))}


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return type(error).__name__ + (": " + text[0][:200] if text else "")


class _Batch:
    """One batch into one run folder: the queue, the judges' calls in flight, the records."""

    def __init__(self, files: List[str], folder: str, seed: int, arguments: List[str],
                 deadline_s: float, deadline_margin_s: float, pool: JudgePool,
                 max_attempts: int, task: Optional[str], allow_declarations: bool,
                 progress: TextIO):
        self.files = files
        self.folder = folder
        self.seed = seed
        self.deadline_margin_s = deadline_margin_s
        self.pool = pool
        self.max_attempts = max_attempts
        self.task = task
        self.allow_declarations = allow_declarations
        self.progress = progress
        self.started_utc = _utc_now("%Y-%m-%dT%H:%M:%SZ")
        self.log = RecordLog(folder)
        self.file_runs = FileRuns(folder)
        self.arguments = arguments
        self.deadline_s = deadline_s
        # Files waiting for a judge, .cu and the rest apart: a position in `files` until a file
        # is first handed out (its source is read then), its FileJob when it comes back.
        self.pending: Dict[bool, Deque[Union[int, FileJob]]] = {True: deque(), False: deque()}
        for index, path in enumerate(files):
            self.pending[path.endswith(".cu")].append(index)
        self.in_flight: Dict["ray.ObjectRef", Tuple[Judge, FileJob, float]] = {}
        self.overdue: set = set()  # refs whose judge was killed at its file's deadline
        self.counts = {"judged": 0, "resumed": 0, "lost": 0, "rechecked": 0}
        self.final: Dict[int, List[dict]] = {}  # each file's latest records, by position

    def say(self, text: str) -> None:
        self.progress.write("rkt_ray: " + text + "\n")
        self.progress.flush()

    def _job(self, index: int) -> FileJob:
        source = read_kernel_source(self.files[index])
        return FileJob(index, source, self.seed, self.arguments, self.deadline_s,
                       self.log.earlier_lines(source.name),
                       self.log.earlier_library_results(source.name))

    def _waiting(self) -> int:
        return len(self.pending[True]) + len(self.pending[False])

    def _assign(self) -> None:
        """Hands waiting files to idle judges: .cu files to GPU judges (CPU judges when the
        cluster has no GPU: rkt eval then skips their kernels), the rest to CPU judges."""
        for cuda_file, queue in self.pending.items():
            while queue:
                entry = queue[0]
                avoid = entry.lost_on if isinstance(entry, FileJob) else []
                judge = self.pool.pick(cuda_file and self.pool.has_gpus(), avoid)
                if judge is None:
                    break
                queue.popleft()
                job = entry if isinstance(entry, FileJob) else self._job(entry)
                judge.busy = True
                self.in_flight[judge.handle.judge.remote(job)] = (judge, job, time.monotonic())

    def _finish(self, job: FileJob, judgement: FileJudgement, judge: Judge) -> List[dict]:
        judged_now = set(judgement.judged_hashes)
        known = self.log.library_hashes
        fresh, resumed = [], []
        for record in judgement.records:
            library_hash = record.get("library_hash", "")
            rechecked = bool(record.get("recheck"))  # a second judgement, new in this call
            (resumed if library_hash and library_hash in known and library_hash not in judged_now
             and not rechecked else fresh).append(record)
        # The libraries' run results first: a record in eval.jsonl can always be resumed.
        self.log.keep_library_results(judgement.library_results)
        self.log.append(fresh)
        if judgement.file_results_json:
            self.file_runs.keep(job.index, judgement.file_results_json)
        else:
            self.file_runs.keep_failed(job.index, job.path, self.task, judgement.records[0],
                                       self.seed, self.started_utc)
        if job.recheck_kernels:
            self.counts["rechecked"] += sum(1 for r in judgement.records if r.get("recheck"))
        else:
            self.counts["judged" if fresh else "resumed"] += 1
        self.final[job.index] = judgement.records
        for record in judgement.records:
            what = record.get("task", "") + "/" + record.get("kernel", "") if "kernel" in record \
                else record.get("status", "")
            second = record.get("recheck")
            note = "; resumed" if record in resumed else ""
            if second:
                note = "; recheck " + ("agrees" if second.get("agrees") else
                                       "DISAGREES: " + str(second.get("disagreement", "")))
            self.say("[%d/%d] %s  %s  %s  (%s, %.1f s%s)" % (
                job.index + 1, len(self.files), record.get("verdict", "FAIL"), job.path, what,
                judge.name(), judgement.seconds, note))
        return judgement.records

    def _fail(self, job: FileJob, status: str) -> List[dict]:
        record = _lost_record(job, self.allow_declarations, status)
        self.log.append([record])
        if job.recheck_kernels:
            # The first judgement stands; the lost recheck is a record of its own beside it.
            record["message"] = "the recheck of " + record["message"]
            self.final[job.index] = self.final.get(job.index, []) + [record]
        else:
            self.file_runs.keep_failed(job.index, job.path, self.task, record, self.seed,
                                       self.started_utc)
            self.final[job.index] = [record]
        self.counts["lost"] += 1
        self.say("[%d/%d] FAIL  %s  %s after %d lost judges" % (
            job.index + 1, len(self.files), job.path, status, len(job.losses)))
        return [record]

    def _answer(self, ref) -> List[dict]:
        judge, job, started = self.in_flight.pop(ref)
        judge.busy = False
        try:
            judgement = ray.get(ref, timeout=RESULT_FETCH_TIMEOUT_S)
        except ray.exceptions.RayError as error:  # the judge's exception, or the judge gone
            self.pool.lose(judge)
            lost_judge = not isinstance(error, ray.exceptions.RayTaskError) or ref in self.overdue
            why = ("no answer within its deadline of %.0f s; killed" % job.deadline_s
                   if ref in self.overdue else _describe(error))
            job.lost_on.append(judge.node_id)
            job.losses.append("%s: %s" % (judge.name(), why))
            self.pool.refresh(force=True)
            if len(job.losses) < self.max_attempts:
                self.say("%s lost on %s (%s); judging it again (attempt %d of %d)" % (
                    job.path, judge.name(), why, len(job.losses) + 1, self.max_attempts))
                self.pending[job.source.is_cuda].appendleft(job)
                return []
            return self._fail(job, "node_lost" if lost_judge else "judge_error")
        return self._finish(job, judgement, judge)

    def _kill_overdue(self) -> None:
        now = time.monotonic()
        for ref, (judge, job, started) in self.in_flight.items():
            if ref not in self.overdue and now - started > job.deadline_s + self.deadline_margin_s:
                self.overdue.add(ref)
                self.say("%s: %s gave no answer in %.0f s; killing it" % (
                    job.path, judge.name(), now - started))
                try:
                    ray.kill(judge.handle, no_restart=True)
                except Exception:
                    pass

    def introduce(self) -> None:
        self.pool.refresh(force=True)
        self.say("%d files, %d CPU and %d GPU judges, seed %d (RKT_SEED=%d reproduces), "
                 "records in %s" % (len(self.files), self.pool.count()["cpu"],
                                    self.pool.count()["cuda"], self.seed, self.seed,
                                    os.path.join(self.folder, "eval.jsonl")))

    def run(self) -> Iterator[dict]:
        """Judges the waiting files; yields each answer's records as they arrive."""
        self.pool.refresh(force=True)
        without_judge_since: Optional[float] = None
        while self._waiting() or self.in_flight:
            self._assign()
            if not self.in_flight:
                # Files wait and no judge is free or busy: every node is gone or resting.
                now = time.monotonic()
                without_judge_since = without_judge_since or now
                if now - without_judge_since > NO_JUDGE_WAIT_S:
                    for queue in self.pending.values():
                        while queue:
                            entry = queue.popleft()
                            job = entry if isinstance(entry, FileJob) else self._job(entry)
                            job.losses.append("no live node had a judge for %.0f s" %
                                              NO_JUDGE_WAIT_S)
                            yield from self._fail(job, "node_lost")
                    break
                time.sleep(min(POLL_S, 1.0))
                self.pool.refresh(force=True)
                continue
            without_judge_since = None
            ready, _ = ray.wait(list(self.in_flight), num_returns=1, timeout=POLL_S)
            for ref in ready:
                yield from self._answer(ref)
            self._kill_overdue()
            self.pool.refresh()

    def queue_rechecks(self, fastest: int) -> int:
        """Queues the files of the `fastest` quickest passing, timed kernels of the batch (by
        benchmark median, as rkt eval picks them); returns how many kernels were chosen."""
        candidates = []
        for index in sorted(self.final):
            for record in self.final[index]:
                benchmark = record.get("benchmark") or {}
                timed = "kernel" in record and benchmark.get("measured")
                if record.get("verdict") == "pass" and timed:
                    candidates.append((float(benchmark["median_ms"]), index))
        candidates.sort(key=lambda candidate: candidate[0])  # stable: the batch's order in a tie
        chosen: Dict[int, int] = {}
        for _, index in candidates[:fastest]:
            chosen[index] = chosen.get(index, 0) + 1
        for index, kernels in sorted(chosen.items()):
            job = self._job(index)
            job.recheck_kernels = kernels
            job.eval_arguments = job.eval_arguments + ["--recheck", str(kernels)]
            self.pending[job.source.is_cuda].append(job)
        return min(fastest, len(candidates))

    def final_records(self) -> Iterator[dict]:
        for index in sorted(self.final):
            yield from self.final[index]

    def merge(self, rkt: str) -> None:
        said = self.file_runs.merge(rkt, self.folder, self.files, without_secrets())
        self.say("%d files: %d judged, %d resumed, %d without a judge, %d kernels rechecked; %s" % (
            len(self.files), self.counts["judged"], self.counts["resumed"], self.counts["lost"],
            self.counts["rechecked"], said))


def evaluate(files: Iterable[str], task: Optional[str] = None, out: Optional[str] = None,
             recheck: int = 0, *, address: Optional[str] = None, rkt: Optional[str] = None,
             max_attempts: int = DEFAULT_MAX_ATTEMPTS,
             file_timeout_s: int = DEFAULT_FILE_TIMEOUT_S, case_timeout_s: Optional[int] = None,
             benchmark_timeout_s: Optional[int] = None, allow_declarations: bool = False,
             seed: Optional[int] = None, cache_root: Optional[str] = None,
             scratch_root: Optional[str] = None, compile_allowance_s: float = COMPILE_ALLOWANCE_S,
             deadline_margin_s: float = DEADLINE_MARGIN_S,
             progress: TextIO = sys.stderr) -> Iterator[dict]:
    """Judges `files` on the Ray cluster; yields each kernel's record as it arrives.

    The records are `rkt eval --json`'s, plus `node_lost` records for files whose every judge
    was lost. `out` (default runs/ray-<UTC time>) gets eval.jsonl as records arrive and, once
    the iterator is exhausted, results.json, report.md and report.html from `rkt merge`. A second
    call into the same `out` judges only what is not judged there yet. `recheck=K` judges the K
    fastest passing, timed kernels again once the batch is judged, as `rkt eval --recheck K`
    does (fresh processes, a fresh secret seed; a disagreement fails the kernel); the records
    are then yielded once each, final, after the rechecks.
    Connects with `ray.init(address=address)` unless Ray is initialised already.

    A judge kills its rkt eval child after file_timeout_s + compile_allowance_s +
    deadline_margin_s (the file gets a judge_error record); the driver kills a judge that has not
    answered deadline_margin_s after that (the file is judged again elsewhere).
    """
    files = [str(path) for path in files]
    if not files:
        raise ValueError("no files to judge")
    if recheck < 0 or max_attempts < 1:
        raise ValueError("recheck must be >= 0 and max_attempts >= 1")
    rkt = resolve_rkt(rkt)
    out = out or os.path.join("runs", "ray-" + _utc_now("%Y%m%dT%H%M%SZ"))
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    runtime_env = {"env_vars": secret_environment()} if secret_environment() else {}
    arguments = eval_arguments(task, file_timeout_s, case_timeout_s, benchmark_timeout_s,
                               allow_declarations)
    deadline_s = file_timeout_s + compile_allowance_s + deadline_margin_s
    pool = JudgePool(rkt, runtime_env, cache_root, scratch_root, REFRESH_S)
    try:
        batch = _Batch(files, out, batch_seed(seed), arguments, deadline_s, deadline_margin_s,
                       pool, max_attempts, task, allow_declarations, progress)
        batch.introduce()
        if recheck == 0:
            yield from batch.run()
        else:
            for _ in batch.run():
                pass
            chosen = batch.queue_rechecks(recheck)
            batch.say("rechecking the %d fastest passing kernels: fresh processes, a fresh "
                      "secret seed" % chosen)
            for _ in batch.run():
                pass
            yield from batch.final_records()
        batch.merge(rkt)
    finally:
        pool.shutdown()
