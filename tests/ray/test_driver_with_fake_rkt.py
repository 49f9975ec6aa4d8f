"""The driver on the three-node cluster with judges that die, hang or answer on cue (fake_rkt.py).

What rkt itself decides (verdicts, cases) is test_cluster_batch.py's; here: the records written
and resumed, a file whose judges all die, a hanging rkt eval, and where the secrets go.
"""
import io
import json
import os
import pathlib
import subprocess
import sys

from conftest import SECRETS_SEEN
from rkt_ray import evaluate

SEED = 20261203


def kernel_files(folder: pathlib.Path, markers):
    """A file per marker ("" for an honest one), named by position and marker."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, marker in enumerate(markers):
        path = folder / ("relu_%02d%s.cpp" % (index, "_" + marker.replace(" ", "_") if marker else ""))
        path.write_text("// fake: %s\nROBUST_KERNEL_TEST(relu, k%d, f);\n" % (marker, index))
        paths.append(str(path))
    return paths


def judge(paths, out, rkt, tmp_path, **options):
    progress = io.StringIO()
    records = list(evaluate(paths, out=str(out), rkt=rkt, seed=SEED, progress=progress,
                            cache_root=str(tmp_path / "cache"),
                            scratch_root=str(tmp_path / "scratch"), **options))
    return records, progress.getvalue()


def log_lines(out):
    return (pathlib.Path(out) / "eval.jsonl").read_text().splitlines()


def test_every_file_gets_its_records_once_and_a_resumed_call_judges_nothing(full_cluster, fake_rkt,
                                                                             tmp_path):
    paths = kernel_files(tmp_path / "files", ["", "", "fail", "", "", ""])
    out = tmp_path / "run"
    records, progress = judge(paths, out, fake_rkt, tmp_path)
    assert sorted(r["file"] for r in records) == sorted(paths)
    assert {r["file"]: r["verdict"] for r in records}[paths[2]] == "FAIL"
    assert len(log_lines(out)) == 6
    merged = json.loads((out / "results.json").read_text())
    assert merged["merged_shards"] == 6 and len(merged["kernels"]) == 6
    assert (out / "report.md").exists() and (out / "report.html").exists()
    assert "6 judged, 0 resumed" in progress

    again, progress = judge(paths, out, fake_rkt, tmp_path)
    assert sorted(r["file"] for r in again) == sorted(paths)
    assert len(log_lines(out)) == 6, "a resumed call appended records"
    assert "0 judged, 6 resumed" in progress


def test_a_file_whose_judges_all_die_gets_a_node_lost_record_naming_them(full_cluster, fake_rkt,
                                                                         tmp_path):
    paths = kernel_files(tmp_path / "files", ["", "kill-judge", ""])
    out = tmp_path / "run"
    records, progress = judge(paths, out, fake_rkt, tmp_path, max_attempts=2)
    by_file = {r["file"]: r for r in records}
    lost = by_file[paths[1]]
    assert lost["status"] == "node_lost" and lost["verdict"] == "FAIL"
    assert len(lost["nodes"]) == 2
    assert len(set(lost["nodes"])) == 2, "the second attempt was not on another node"
    for node in lost["nodes"]:
        assert node[:12] in lost["message"]
    assert by_file[paths[0]]["status"] == "judged" and by_file[paths[2]]["status"] == "judged"
    assert "judging it again (attempt 2 of 2)" in progress
    merged = json.loads((out / "results.json").read_text())
    assert len(merged["kernels"]) == 3


def test_a_hanging_rkt_eval_is_killed_by_its_judge_which_judges_on(full_cluster, fake_rkt, tmp_path):
    paths = kernel_files(tmp_path / "files", ["hang", "", "", ""])
    out = tmp_path / "run"
    records, progress = judge(paths, out, fake_rkt, tmp_path, file_timeout_s=1,
                              compile_allowance_s=1, deadline_margin_s=2)
    by_file = {r["file"]: r for r in records}
    assert by_file[paths[0]]["status"] == "judge_error"
    assert "killed at its deadline" in by_file[paths[0]]["message"]
    assert all(by_file[p]["status"] == "judged" for p in paths[1:])
    assert "lost on" not in progress, "a judge died with the hanging file"


def test_recheck_judges_the_fastest_passing_kernels_of_the_batch_again(full_cluster, fake_rkt,
                                                                       tmp_path):
    paths = kernel_files(tmp_path / "files", ["median=3", "median=1", "fail median=0.1",
                                              "median=2", "median=5"])
    out = tmp_path / "run"
    records, progress = judge(paths, out, fake_rkt, tmp_path, recheck=2)
    assert [r["file"] for r in records] == paths, "each kernel once, in the batch's order"
    rechecked = {r["file"] for r in records if r.get("recheck")}
    assert rechecked == {paths[1], paths[3]}
    lines = [json.loads(line) for line in log_lines(out)]
    assert len(lines) == 5 + 2, "a rechecked kernel's final record follows its first"
    assert "2 kernels rechecked" in progress


def test_secrets_reach_the_judges_through_the_runtime_env_and_nothing_else(full_cluster, fake_rkt,
                                                                          tmp_path, monkeypatch):
    secret = "918273645546372819"
    monkeypatch.setenv("RKT_SECRET_SEED", secret)
    paths = kernel_files(tmp_path / "files", ["", ""])
    out = tmp_path / "run"
    SECRETS_SEEN.write_text("")
    records, progress = judge(paths, out, fake_rkt, tmp_path)
    assert SECRETS_SEEN.read_text().split() == [secret, secret]
    assert secret not in progress
    assert secret not in json.dumps(records)
    for file in out.rglob("*"):
        if file.is_file():
            assert secret not in file.read_text(errors="replace"), file


def test_the_command_prints_records_and_exits_as_rkt_eval_does(full_cluster, fake_rkt, tmp_path):
    paths = kernel_files(tmp_path / "files", ["", "fail"])
    command = [sys.executable, "-m", "rkt_ray", "eval"] + paths + [
        "--address", full_cluster.address, "--out", str(tmp_path / "run"), "--json",
        "--rkt", fake_rkt, "--seed", str(SEED)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, RKT_RAY_CACHE=str(tmp_path / "cache")))
    assert done.returncode == 1, done.stderr[-2000:]
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(r["file"] for r in records) == sorted(paths)
    assert "rkt_ray: 2 files: 2 judged" in done.stderr
    usage = subprocess.run([sys.executable, "-m", "rkt_ray", "eval"], capture_output=True,
                           text=True, timeout=60)
    assert usage.returncode == 2
