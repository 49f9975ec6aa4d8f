"""The Ray front end with the real rkt on the three-node loopback cluster (issue 30's CI check).

One batch of generated relu `.cpp` files (tools/eval_batch/make_candidates.py: every third one
wrong or cheating) is judged twice on the same seed and secret seed: by `rkt eval` on this
machine (the reference), and by `python -m rkt_ray eval` against the cluster, whose run goes:

1. once the first record is in eval.jsonl, a worker node is killed (its raylet and workers);
2. once the driver says it is judging the lost file again and another record is in, the driver
   itself is killed (SIGKILL) and eval.jsonl as it stood is kept;
3. `rkt_ray.evaluate` into the same folder finishes the batch, and a further call resumes it all.

The tests below check the outcome: verdicts equal to the reference case by case, every file
recorded once, the killed driver's records intact, nothing judged twice, the merged run folder,
and the secret seed nowhere in the output. The reference runs beside the cluster's run (verdicts
do not depend on the load). RKT_RAY_TEST_FILES=N judges N files instead of FILES_IN_CI (at least
6, so that a node is still judging when the first record is in).
"""
import io
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from rkt_ray import evaluate
from rkt_ray.device_kind import default_cache_root, device_kind, library_cache_folder

FILES_IN_CI = 12  # [files] the twelve: 3.5 min for the whole pytest run (docs/scale_out.md)
FILES = int(os.environ.get("RKT_RAY_TEST_FILES", FILES_IN_CI))
SEED = 20261202
SECRET_SEED = "572957295729"
BATCH_TIMEOUT_S = 900  # [s] the reference and the cluster's run, each
FILE_TIMEOUT_S = 300  # [s] rkt eval --file-timeout for the cluster's judges: bounds the calls
POLL_S = 0.5  # [s]
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


def records_of(path: pathlib.Path):
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            pass  # a line cut short by the killed driver
    return records


def wait_until(condition, timeout_s: float, what: str, process=None):
    deadline = time.monotonic() + timeout_s
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError("the driver exited (%s) before %s" % (process.returncode, what))
        if time.monotonic() > deadline:
            raise AssertionError("no %s within %.0f s" % (what, timeout_s))
        time.sleep(POLL_S)


def verdicts(records):
    """Per file: status, verdict, kernel and every case's status (the benchmark's numbers are
    measurements, not verdicts, and are left out)."""
    return {os.path.basename(r["file"]): (
        r["status"], r["verdict"], r.get("kernel"),
        tuple((c["name"], c["status"]) for c in r.get("cases", []))) for r in records}


@pytest.fixture(scope="module")
def batch(tmp_path_factory, real_rkt, loopback_cluster):
    loopback_cluster.fill()
    root = tmp_path_factory.mktemp("batch")
    files_folder = root / "candidates"
    subprocess.run([sys.executable, str(REPOSITORY / "tools/eval_batch/make_candidates.py"),
                    str(files_folder), "--count", str(FILES), "--device", "cpu"],
                   check=True, timeout=60, capture_output=True)
    files = sorted(str(p) for p in files_folder.glob("*.cpp"))
    secret_environment = dict(os.environ, RKT_SECRET_SEED=SECRET_SEED, RKT_SEED=str(SEED))
    # The reference shares the judges' library cache: each file is compiled once.
    reference_environment = dict(secret_environment, RKT_EVAL_CACHE=library_cache_folder(
        default_cache_root(), device_kind(cuda=False)))
    # The reference runs beside the cluster's run: one rkt eval leaves most of a core idle, and
    # verdicts do not depend on the load (only the benchmark's numbers do, which are not compared).
    reference_output = root / "reference.jsonl"
    started = reference_started = time.monotonic()
    with open(reference_output, "w") as stdout, open(root / "reference.log", "w") as stderr:
        reference = subprocess.Popen([real_rkt, "eval"] + files +
                                     ["--json", "--out", str(root / "reference")],
                                     env=reference_environment, stdout=stdout, stderr=stderr)
    out = root / "ray"
    log = out / "eval.jsonl"
    driver_output = {"stdout": root / "driver.stdout", "stderr": root / "driver.stderr"}
    with open(driver_output["stdout"], "w") as stdout, open(driver_output["stderr"], "w") as stderr:
        driver = subprocess.Popen(
            [sys.executable, "-m", "rkt_ray", "eval"] + files +
            ["--address", loopback_cluster.address, "--out", str(out), "--json", "--rkt", real_rkt,
             "--seed", str(SEED), "--file-timeout", str(FILE_TIMEOUT_S)],
            stdout=stdout, stderr=stderr, env=secret_environment)
        try:
            wait_until(lambda: len(records_of(log)) >= 1, BATCH_TIMEOUT_S, "first record", driver)
            records_at_kill = len(records_of(log))
            loopback_cluster.kill_worker()
            wait_until(lambda: "judging it again" in driver_output["stderr"].read_text(),
                       120, "retry of the file lost with its node", driver)
            wait_until(lambda: len(records_of(log)) > records_at_kill, BATCH_TIMEOUT_S,
                       "record after the node was lost", driver)
            driver.send_signal(signal.SIGKILL)
            driver.wait(timeout=60)
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.wait(timeout=60)
    first_run_seconds = time.monotonic() - started
    written_by_killed_driver = log.read_bytes()
    first_driver_stderr = driver_output["stderr"].read_text()
    first_driver_stdout = driver_output["stdout"].read_text()

    os.environ["RKT_SECRET_SEED"] = SECRET_SEED
    try:
        started = time.monotonic()
        resume_progress = io.StringIO()
        resumed = list(evaluate(files, out=str(out), rkt=real_rkt, seed=SEED,
                                file_timeout_s=FILE_TIMEOUT_S, progress=resume_progress))
        resume_seconds = time.monotonic() - started
        log_after_resume = log.read_bytes()
        again_progress = io.StringIO()
        started = time.monotonic()
        again = list(evaluate(files, out=str(out), rkt=real_rkt, seed=SEED,
                              file_timeout_s=FILE_TIMEOUT_S, progress=again_progress))
        again_seconds = time.monotonic() - started
    finally:
        os.environ.pop("RKT_SECRET_SEED", None)
    try:
        reference.wait(timeout=BATCH_TIMEOUT_S)
    finally:
        if reference.poll() is None:
            reference.kill()
            reference.wait(timeout=60)
    reference_seconds = time.monotonic() - reference_started
    assert reference.returncode in (0, 1), (root / "reference.log").read_text()[-3000:]
    timing = ("rkt_ray test: %d files; rkt eval alone (beside the cluster's run) %.0f s; cluster "
              "run until the driver was killed %.0f s; resume %.0f s; second resume %.0f s" % (
                  len(files), reference_seconds, first_run_seconds, resume_seconds, again_seconds))
    print(timing)
    return {"files": files, "out": out,
            "reference": [json.loads(line) for line in reference_output.read_text().splitlines()
                          if line.strip()],
            "written_by_killed_driver": written_by_killed_driver,
            "first_driver_stderr": first_driver_stderr, "first_driver_stdout": first_driver_stdout,
            "resumed": resumed, "resume_progress": resume_progress.getvalue(),
            "log_after_resume": log_after_resume, "again": again,
            "again_progress": again_progress.getvalue(), "timing": timing}


def test_verdicts_equal_rkt_eval_on_one_machine_case_by_case(batch):
    reference = verdicts(batch["reference"])
    assert len(reference) == len(batch["files"])
    assert sum(v[1] == "FAIL" for v in reference.values()) == len(batch["files"]) // 3
    assert verdicts(records_of(batch["out"] / "eval.jsonl")) == reference
    assert verdicts(batch["resumed"]) == reference
    assert verdicts(batch["again"]) == reference


def test_a_killed_node_costs_no_file_its_record(batch):
    assert "judging it again (attempt 2 of" in batch["first_driver_stderr"]
    recorded = {r["file"] for r in records_of(batch["out"] / "eval.jsonl")}
    assert recorded == set(batch["files"])
    assert all(r["status"] == "judged" for r in records_of(batch["out"] / "eval.jsonl"))


def test_a_killed_driver_loses_no_record_it_wrote(batch):
    written = batch["written_by_killed_driver"]
    whole_lines = written[:written.rfind(b"\n") + 1]
    assert whole_lines.count(b"\n") >= 2
    assert batch["log_after_resume"].startswith(whole_lines)


def test_a_resumed_call_judges_nothing_twice(batch):
    records = records_of(batch["out"] / "eval.jsonl")
    hashes = [r["library_hash"] for r in records]
    assert len(hashes) == len(set(hashes)) == len(batch["files"]), "a library was judged twice"
    already = batch["written_by_killed_driver"].count(b"\n")
    assert "%d resumed" % already in batch["resume_progress"]
    assert "0 judged, %d resumed" % len(batch["files"]) in batch["again_progress"]
    assert (batch["out"] / "eval.jsonl").read_bytes() == batch["log_after_resume"]


def test_the_run_folder_is_rkt_merges(batch):
    out = batch["out"]
    merged = json.loads((out / "results.json").read_text())
    assert merged["merged_shards"] == len(batch["files"])
    assert merged["seed"] == SEED
    assert len(merged["kernels"]) == len(batch["files"])
    # Each kernel under its registered id ("<file stem>:<kernel>" only where two files register
    # one id); a file without kernels under its stem.
    by_name = {k["kernel"]: k["verdict"] for k in merged["kernels"]}
    for record in batch["again"]:
        stem = os.path.basename(record["file"]).rsplit(".", 1)[0]
        kernel = record.get("kernel") or stem
        name = kernel if kernel in by_name else "%s:%s" % (stem, kernel)
        assert by_name[name] == record["verdict"], (name, sorted(by_name))
    assert (out / "report.md").exists() and (out / "report.html").exists()
    assert not (out / ".file_runs").exists()


def test_the_secret_seed_is_never_printed_nor_recorded(batch):
    for text in (batch["first_driver_stderr"], batch["first_driver_stdout"],
                 batch["resume_progress"], batch["again_progress"], json.dumps(batch["again"])):
        assert SECRET_SEED not in text
    for file in batch["out"].rglob("*"):
        if file.is_file():
            assert SECRET_SEED not in file.read_text(errors="replace"), file

