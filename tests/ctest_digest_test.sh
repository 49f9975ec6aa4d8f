#!/usr/bin/env bash
# tools/ctest_failure_digest.sh on a real ctest run of a small project: a passing test, a skipped
# one, a gtest-style failure buried in long output, a plain script that fails and one that times out. The digest names
# the three failed tests with ctest's verdict, each assertion's message and the plain test's last lines, and nothing of
# the tests that passed or skipped.
# Usage: ctest_digest_test.sh TOOLS_DIR
set -euo pipefail
digest="$1/ctest_failure_digest.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/digest" 2> /dev/null; exit 1; }

mkdir "$work/src"
cat > "$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(digest_fixture LANGUAGES NONE)
enable_testing()
add_test(NAME quiet_pass COMMAND sh -c "echo passing output line")
add_test(NAME skipped COMMAND sh -c "echo skipped output line; exit 77")
set_tests_properties(skipped PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME gtest_like COMMAND sh -c "i=0; while [ $i -lt 3000 ]; do echo \"[       OK ] Filler.Case$i (1 ms)\"; i=$((i+1)); done; echo '[ RUN      ] Suite.Breaks'; echo 'case.cpp:12: Failure'; echo 'Expected equality of these values:'; echo '  verdict'; echo '    Which is: pass'; echo '[  FAILED  ] Suite.Breaks (5 ms)'; exit 1")
add_test(NAME plain_script COMMAND sh -c "echo first line; echo the reason it stopped; exit 2")
add_test(NAME hangs COMMAND sh -c "echo waiting forever; sleep 30")
set_tests_properties(hangs PROPERTIES TIMEOUT 1)
CMAKE
cmake -S "$work/src" -B "$work/build" > /dev/null
ctest --test-dir "$work/build" > /dev/null 2>&1 && fail "the fixture's ctest passed"
"$digest" "$work/build" > "$work/digest"

grep -q -- '^---- gtest_like (Test Failed. after [0-9.]* s)$' "$work/digest" || fail "the gtest failure is not named"
grep -q -- '^---- plain_script (Test Failed. after [0-9.]* s)$' "$work/digest" || fail "the plain failure is not named"
grep -q -- '^---- hangs (Test Failed. after 1\.[0-9]* s)$' "$work/digest" ||
  fail "the timed-out test is not named with its time"
grep -q 'waiting forever' "$work/digest" || fail "the timed-out test's output is missing"
grep -q 'case.cpp:12: Failure' "$work/digest" || fail "the assertion's location is missing"
grep -q 'Which is: pass' "$work/digest" || fail "the assertion's message is missing"
grep -q '\[  FAILED  \] Suite.Breaks' "$work/digest" || fail "the failed case's name is missing"
grep -q 'the reason it stopped' "$work/digest" || fail "the plain test's last lines are missing"
if grep -q -E 'Filler|passing output|skipped output|quiet_pass|^---- skipped' "$work/digest"; then
  fail "the digest shows output of tests that did not fail"
fi
lines=$(wc -l < "$work/digest")
[ "$lines" -le 40 ] || fail "the digest has $lines lines for three failures"
echo "ctest failure digest: named the three failures in $lines lines"
