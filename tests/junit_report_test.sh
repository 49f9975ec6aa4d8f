#!/usr/bin/env bash
# `rkt test --junit FILE` and `--gtest_output=xml:FILE` (GoogleTest's spelling) write per-case
# JUnit XML that CI tools read: one testsuite named task/kernel per kernel, one testcase per case
# (a crashed case too), failures with non-empty messages and the replay command, and counts that
# agree with the cases. A ctest entry writes its own file into the build tree.
# Usage: junit_report_test.sh SUITE PYTHON CTEST_SCRIPT
#   SUITE: a suite with the adversaries; CTEST_SCRIPT: the main suite's ctest listing
set -euo pipefail
suite="$1"
python="$2"
ctest_script="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"

# run EXPECTED_EXIT ARGS...: the suite's `test` with ARGS must exit EXPECTED_EXIT.
run() {
  local expected="$1"; shift
  set +e
  "$suite" test "$@" > run.log 2>&1
  local code=$?
  set -e
  [ "$code" = "$expected" ] || { cat run.log; fail "'test $*' exited $code, expected $expected"; }
}

# check FILE CASES...: FILE is JUnit XML whose testcases are exactly CASES ("suite.case:status").
check() {
  "$python" - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
path, expected = sys.argv[1], dict(arg.rsplit(":", 1) for arg in sys.argv[2:])
root = ET.parse(path).getroot()
assert root.tag == "testsuites", root.tag
seen = {}
totals = {"tests": 0, "failures": 0, "skipped": 0}
for suite in root.findall("testsuite"):
    name = suite.get("name")
    assert "/" in name and not name.endswith(")"), f"suite name {name!r} is not task/kernel"
    cases = suite.findall("testcase")
    counts = {"tests": len(cases), "failures": 0, "skipped": 0}
    for case in cases:
        assert case.get("classname") == name, (case.get("classname"), name)
        float(case.get("time"))
        failure, skipped = case.find("failure"), case.find("skipped")
        status = "passed"
        if failure is not None:
            status = failure.get("type")
            counts["failures"] += 1
            assert failure.get("message", "").strip(), f"{name}.{case.get('name')}: empty failure message"
            assert failure.get("message") != "Failed", "gtest's header is the summary"
            assert "replay: " in (failure.text or ""), failure.text
            assert f"test --filter '{name}.{case.get('name')}'" in failure.text, failure.text
        elif skipped is not None:
            status = "skipped"
            counts["skipped"] += 1
        seen[f"{name}.{case.get('name')}"] = status
    for key, value in counts.items():
        assert int(suite.get(key)) == value, f"{name}: {key}={suite.get(key)}, counted {value}"
        totals[key] += value
for key, value in totals.items():
    assert int(root.get(key)) == value, f"testsuites {key}={root.get(key)}, counted {value}"
assert seen == expected, f"testcases {seen}, expected {expected}"
PY
}

# A failing kernel: every case a testcase of suite relu/cheat_throws, each failure with a message.
run 1 --kernel relu/cheat_throws --filter '*.correctness_x1:*.correctness_x3:*.property_shapes' \
  --junit "$work/reports/throws.xml"
check "$work/reports/throws.xml" relu/cheat_throws.correctness_x1:failed \
  relu/cheat_throws.correctness_x3:failed relu/cheat_throws.property_shapes:failed \
  || fail "--junit: wrong report"

# GoogleTest's spelling, two kernels: a crash is a testcase too (type crashed; in-process, so
# that the segfault ends the judging child rather than a worker), an honest kernel's cases pass,
# in their own suite.
run 1 --in-process --kernel relu/ --filter 'relu/cheat_segfaults.correctness_x1:relu/honest_loop.correctness_x1:relu/honest_loop.correctness_x3' \
  --gtest_output=xml:gtest_spelling.xml
check gtest_spelling.xml relu/cheat_segfaults.correctness_x1:crashed \
  relu/honest_loop.correctness_x1:passed relu/honest_loop.correctness_x3:passed \
  || fail "--gtest_output=xml:FILE: wrong report"
grep -q 'type="crashed"' gtest_spelling.xml || fail "the crash is not a crashed failure"

# --gtest_output=xml alone: GoogleTest's default file name.
run 0 --kernel relu/honest_loop --filter '*.correctness_x1' --gtest_output=xml
check test_detail.xml relu/honest_loop.correctness_x1:passed || fail "--gtest_output=xml: wrong report"

# Each ctest entry writes its own JUnit file into the build tree.
grep -q -- '--junit "[^"]*/junit/relu\.cpu_loops\.correctness\.xml"' "$ctest_script" \
  || fail "the ctest entries do not write JUnit files: $(grep -m1 add_test "$ctest_script")"
echo "4 passed, 0 failed"
