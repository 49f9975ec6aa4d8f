"""eval.jsonl as the driver keeps it (appended per file, a cut last line dropped on reopening),
and a kernel file as it travels to a node."""
import json

from rkt_ray.kernel_source import read_kernel_source
from rkt_ray.record_log import RecordLog


def record(file, library_hash, status="judged"):
    return {"file": file, "library_hash": library_hash, "status": status, "verdict": "pass"}


def test_appended_records_are_read_back_by_base_name(tmp_path):
    log = RecordLog(str(tmp_path))
    log.append([record("/a/relu_1.cpp", "h1"), record("/a/relu_2.cpp", "h2")])
    again = RecordLog(str(tmp_path))
    assert [r["library_hash"] for r in again.records] == ["h1", "h2"]
    assert again.library_hashes == {"h1", "h2"}
    assert [json.loads(line)["file"] for line in again.earlier_lines("relu_1.cpp")] == ["/a/relu_1.cpp"]
    assert again.earlier_lines("other.cpp") == []


def test_a_line_cut_short_by_a_killed_driver_is_dropped_and_the_next_append_starts_clean(tmp_path):
    log = RecordLog(str(tmp_path))
    log.append([record("x.cpp", "h1")])
    with open(log.path, "a") as stream:
        stream.write('{"file": "y.cpp", "library_ha')  # the driver died mid-write
    reopened = RecordLog(str(tmp_path))
    assert [r["file"] for r in reopened.records] == ["x.cpp"]
    reopened.append([record("z.cpp", "h3")])
    lines = log.path.read_text().splitlines()
    assert [json.loads(line)["file"] for line in lines] == ["x.cpp", "z.cpp"]


def test_library_results_are_kept_for_resume(tmp_path):
    log = RecordLog(str(tmp_path))
    log.keep_library_results({"h1": '{"finished": true}'})
    assert RecordLog(str(tmp_path)).library_results("h1") == '{"finished": true}'
    assert log.library_results("missing") == ""


def test_a_source_ships_with_the_headers_it_includes_from_its_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "kernel.cpp").write_text('#include "sub/helper.h"\n#include "../outside.h"\n'
                                         '#include <vector>\nROBUST_KERNEL_TEST(relu, k, f);\n')
    (tmp_path / "sub" / "helper.h").write_text('#include "more.h"\n')
    (tmp_path / "sub" / "more.h").write_text("// more\n")
    (tmp_path.parent / "outside.h").write_text("// not shipped: outside the file's folder\n")
    source = read_kernel_source(str(tmp_path / "kernel.cpp"))
    assert sorted(source.local_includes) == ["sub/helper.h", "sub/more.h"]
    copy = source.write_into(tmp_path / "copy")
    assert open(copy).read() == (tmp_path / "kernel.cpp").read_text()
    assert (tmp_path / "copy" / "sub" / "more.h").read_text() == "// more\n"


def test_a_missing_file_travels_as_its_path_for_rkt_eval_to_judge(tmp_path):
    source = read_kernel_source(str(tmp_path / "missing.cpp"))
    assert source.content is None
    assert source.write_into(tmp_path / "copy") == str(tmp_path / "missing.cpp")

