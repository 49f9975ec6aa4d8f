#!/usr/bin/env bash
# example_project_test.sh <example source dir> <build dir> <expected tests> [cmake args...]
#
# Builds one of examples/ out of tree as a user would (configure with the given arguments, e.g.
# -DCMAKE_PREFIX_PATH=<installed package>, build, ctest), checks that ctest registered the
# expected number of tests, each with the example's label, and prints the time from configure
# (find_package) to the first green ctest. The configure must print no CMake warning: LibTorch's
# own (CUDA architectures, kineto) are the package's to keep quiet, not the user's to read.
set -euo pipefail
source_dir="$1" build_dir="$2" expected_tests="$3"
shift 3
rm -rf "$build_dir"
mkdir -p "$build_dir"
start=$(date +%s)
cmake -S "$source_dir" -B "$build_dir" "$@" 2>&1 | tee "$build_dir/configure.log"
configured=$(date +%s)
if grep -q "CMake Warning" "$build_dir/configure.log"; then
  echo "FAILED: the configure printed a CMake warning ($build_dir/configure.log):"
  grep -A 3 "CMake Warning" "$build_dir/configure.log"
  exit 1
fi
cmake --build "$build_dir" -j 2
built=$(date +%s)
registered=$(ctest --test-dir "$build_dir" -N | sed -n 's/^Total Tests: //p')
labelled=$(ctest --test-dir "$build_dir" -N -L example | sed -n 's/^Total Tests: //p')
if [ "$registered" != "$expected_tests" ] || [ "$labelled" != "$expected_tests" ]; then
  echo "FAILED: expected $expected_tests tests labelled 'example', ctest has $registered" \
       "($labelled labelled 'example')"
  ctest --test-dir "$build_dir" -N -V | grep -E "Test +#|Labels" || true
  exit 1
fi
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j 2 \
  --output-junit "$build_dir/junit.xml"
done_at=$(date +%s)
echo "$(basename "$source_dir"): configure $((configured - start)) s, build $((built - configured))" \
     "s, ctest $((done_at - built)) s: find_package to green ctest in $((done_at - start)) s"
