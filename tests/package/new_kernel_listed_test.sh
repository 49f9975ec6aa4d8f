#!/usr/bin/env bash
# new_kernel_listed_test.sh <source dir> <build dir> [cmake args...]
#
# ctest must always run every registered kernel's tests. Walks through what a user does to a
# project built against the installed package (issue 31: adding a kernel once left ctest with
# the old list, "100% tests passed ... out of 3", because the list was made only when the judge
# relinked), and after each step checks ctest's list and its verdicts:
#   1. one honest kernel file: 3 tests (correctness, property, integrity), all pass;
#   2. a second, wrong kernel file added to KERNELS, `cmake --build`: 6 tests, its correctness
#      test fails;
#   3. a new ROBUST_KERNEL_TEST appended to the honest file: 9 tests;
#   4. that line removed again: 6 tests, the removed kernel's tests gone;
#   5. a kernel added and only the kernel library built (`--target my_suite_kernels`): ctest
#      itself finds its list older than the library and makes it anew (9 tests);
#   6. a kernel registered against a misspelt task, only the library built: the listing fails at
#      ctest time, and ctest shows one failing test that says why (not the old list).
set -euo pipefail
source_dir="$1" build_dir="$2"
shift 2
project="$build_dir/project"
rm -rf "$build_dir"
mkdir -p "$project"
cp "$source_dir/examples/cpu_project/rmsnorm_two_pass.cpp" "$project/honest.cpp"
cp "$source_dir/tests/package/wrong_kernel/rmsnorm_forgets_weight.cpp" "$project/wrong.cpp"
cp "$project/honest.cpp" "$project/honest.cpp.original"

fail() {
  echo "FAILED: $*"
  ctest --test-dir "$build_dir/build" -N || true
  exit 1
}
write_cmakelists() {
  sed "s|@KERNEL_FILES@|$*|" "$source_dir/tests/package/kernels_added/CMakeLists.txt.in" \
    >"$project/CMakeLists.txt"
}
count_tests() { ctest --test-dir "$build_dir/build" -N | sed -n 's/^Total Tests: //p'; }
expect_tests() {  # expect_tests <count> <step>
  local count
  count="$(count_tests)"
  [ "$count" = "$1" ] || fail "$2: ctest lists $count tests, expected $1"
  echo "ok: $2: $count tests"
}
build() { cmake --build "$build_dir/build" -j 2 "$@" >"$build_dir/build.log" 2>&1 ||
  { tail -n 40 "$build_dir/build.log"; fail "the build failed"; }; }
# A second kernel in the honest file: the same function under another id.
add_second_registration() {
  printf '%s\n' 'ROBUST_KERNEL_TEST(rmsnorm, cpu_two_pass_again, rmsnorm_two_pass)' \
    '    .describe("the same kernel under a second id");' >>"$project/honest.cpp"
}

write_cmakelists honest.cpp
cmake -S "$project" -B "$build_dir/build" "$@" >"$build_dir/configure.log" 2>&1 ||
  { cat "$build_dir/configure.log"; fail "configure"; }
build
expect_tests 3 "one kernel"
ctest --test-dir "$build_dir/build" -j 2 --output-on-failure >"$build_dir/ctest1.log" 2>&1 ||
  { cat "$build_dir/ctest1.log"; fail "the honest kernel's tests failed"; }
echo "ok: the honest kernel's 3 tests pass"

write_cmakelists honest.cpp wrong.cpp
build
expect_tests 6 "a kernel file added"
if ctest --test-dir "$build_dir/build" -j 2 -L correctness >"$build_dir/ctest2.log" 2>&1; then
  cat "$build_dir/ctest2.log"
  fail "ctest passed with the wrong kernel added"
fi
grep -Eq "rmsnorm/cpu_forgets_weight:correctness \.+\*\*\*Failed" "$build_dir/ctest2.log" ||
  { cat "$build_dir/ctest2.log"; fail "the added wrong kernel's correctness test did not fail"; }
echo "ok: the added wrong kernel's correctness test fails"

add_second_registration
build
expect_tests 9 "a ROBUST_KERNEL_TEST added to an old file"
# grep reads a here-string: a pipe into grep -q dies of SIGPIPE under pipefail when grep exits first.
grep -q "rmsnorm/cpu_two_pass_again:correctness" <<<"$(ctest --test-dir "$build_dir/build" -N)" ||
  fail "the new registration's tests are not listed"

cp "$project/honest.cpp.original" "$project/honest.cpp"
build
expect_tests 6 "the ROBUST_KERNEL_TEST removed"
if grep -q "cpu_two_pass_again" <<<"$(ctest --test-dir "$build_dir/build" -N)"; then
  fail "the removed kernel's tests are still listed"
fi

add_second_registration
build --target my_suite_kernels
expect_tests 9 "a kernel added, only the kernel library built"

echo 'ROBUST_KERNEL_TEST(rmsnormm, cpu_misspelt_task, rmsnorm_two_pass);' >>"$project/honest.cpp"
build --target my_suite_kernels
expect_tests 1 "a kernel of an unknown task, only the kernel library built"
if ctest --test-dir "$build_dir/build" --output-on-failure >"$build_dir/ctest6.log" 2>&1; then
  cat "$build_dir/ctest6.log"
  fail "ctest passed although its list could not be made"
fi
grep -q "my_suite_TEST_LIST_FAILED" "$build_dir/ctest6.log" &&
  grep -q "unknown task 'rmsnormm'" "$build_dir/ctest6.log" ||
  { cat "$build_dir/ctest6.log"; fail "the failing listing was not reported as a failing test"; }
echo "ok: a listing that fails is a failing test naming why"
echo "ok: ctest's list followed every change"
