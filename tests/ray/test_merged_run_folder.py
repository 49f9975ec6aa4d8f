"""The batch's run folder: files without a run of their own, and stems made unique, through the
real `rkt merge` (no judging: fast)."""
import json

from rkt_ray.merged_run_folder import FileRuns, unique_stems
from rkt_ray.cluster_secrets import without_secrets


def test_stems_are_made_unique_as_rkt_eval_makes_them():
    assert unique_stems(["a/relu.cpp", "b/relu.cpp", "c/relu.cu", "softmax.cpp"]) == [
        "relu", "relu#2", "relu#3", "softmax"]


def test_files_without_a_run_of_their_own_are_failing_entries_rkt_merge_reads(real_rkt, tmp_path):
    out = tmp_path / "run"
    runs = FileRuns(str(out))
    paths = ["a/relu_x.cpp", "b/relu_x.cpp", "c/softmax_y.cu"]
    lost = {"file": paths[0], "status": "node_lost", "message": "judged 3 times, each judge lost"}
    for index, path in enumerate(paths):
        runs.keep_failed(index, path, None, dict(lost, file=path), 7, "2026-12-03T00:00:00Z")
    said = runs.merge(real_rkt, str(out), paths, without_secrets())
    assert "3 kernels from 3 shards" in said
    merged = json.loads((out / "results.json").read_text())
    assert sorted(k["kernel"] for k in merged["kernels"]) == ["relu_x", "relu_x#2", "softmax_y"]
    assert all(k["verdict"] == "FAIL" for k in merged["kernels"])
    assert all(k["problems"][0].startswith("node_lost: ") for k in merged["kernels"])
    assert {k["device"] for k in merged["kernels"]} == {"cpu", "cuda"}
    assert (out / "report.md").exists() and (out / "report.html").exists()
    assert not (out / ".file_runs").exists()


def test_a_kernel_keeps_its_id_unless_another_file_registers_it_too(real_rkt, tmp_path):
    from rkt_ray.merged_run_folder import failed_file_results
    out = tmp_path / "run"
    runs = FileRuns(str(out))
    paths = ["a/relu_one.cpp", "b/relu_two.cpp", "c/relu_three.cpp"]
    kernels = ["my_kernel", "my_kernel", "other_kernel"]  # the first two files register one id
    for index, (path, kernel) in enumerate(zip(paths, kernels)):
        results = failed_file_results("unused", path, "relu", {"status": "judged"}, 7,
                                      "2026-12-03T00:00:00Z")
        entry = results["kernels"][0]
        entry.update({"kernel": kernel, "verdict": "FAIL", "problems": [],
                      "cases": [{"name": "relu/%s.correctness_x1" % kernel, "status": "failed",
                                 "milliseconds": 1.0, "message": "wrong"}]})
        runs.keep(index, json.dumps(results))
    runs.merge(real_rkt, str(out), paths, without_secrets())
    merged = json.loads((out / "results.json").read_text())
    assert sorted(k["kernel"] for k in merged["kernels"]) == [
        "other_kernel", "relu_one:my_kernel", "relu_two:my_kernel"]
