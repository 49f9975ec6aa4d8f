#!/usr/bin/env bash
# Every error a user can cause from the command line: exit code 2 and a message that names what
# was wrong (the flag, the command, the value, the file, the line), and, for the hidden inputs,
# that the message does not reveal the secret it is about.
# Usage: cli_errors_test.sh RKT
set -euo pipefail
rkt="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
checked=0

# error MESSAGE COMMAND...: COMMAND must exit 2 and print MESSAGE (a fixed string).
error() {
  local message="$1"; shift
  set +e
  "$@" > "$work/out" 2>&1
  local code=$?
  set -e
  [ "$code" = 2 ] || { cat "$work/out"; fail "'$*' exited $code, expected 2"; }
  grep -qF -- "$message" "$work/out" || { cat "$work/out"; fail "'$*' did not say: $message"; }
  checked=$((checked + 1))
}
# never TEXT: the last command's output does not contain TEXT.
never() { ! grep -qF -- "$1" "$work/out" || { cat "$work/out"; fail "the message reveals '$1'"; }; }

# Commands and flags.
error "unknown command 'frobnicate'; commands: list, test, run, eval, serve, template, compare, merge" "$rkt" frobnicate
error "unknown command '--verbose'" "$rkt" --verbose
error "unknown option '--kernels'; this command takes --out, --kernel, --timeout, --benchmark-timeout, --shard, --replace" \
  "$rkt" run --kernels relu
error "unknown option '--json'; this command takes no options" "$rkt" catalog --json
error "option '--kernel' needs a value" "$rkt" test --kernel
error "--timeout takes a positive number of seconds, not 'soon'" "$rkt" test --timeout soon
error "--device takes 'cpu' or 'cuda', not 'gpu'" "$rkt" aoti-spec --device gpu
error "Usage:" "$rkt"

# --kernel that selects nothing: says so and suggests the nearest ids.
error "--kernel 'sofmax/cpu_loops' matches none of the" "$rkt" test --kernel sofmax/cpu_loops
grep -qF "did you mean 'softmax/cpu_loops'" "$work/out" || fail "no suggestion for sofmax/cpu_loops"
error "--kernel 'rleu' matches none of the" "$rkt" run --kernel rleu --out "$work/never"
grep -qF "did you mean 'relu/" "$work/out" || fail "no suggestion for rleu"
[ ! -e "$work/never" ] || fail "a run that selected nothing created its folder"
error "--kernel 'qqqqqqqqqqqqqqqqqqqq' matches none of the" "$rkt" test --kernel qqqqqqqqqqqqqqqqqqqq
grep -qF "'rkt list' shows them" "$work/out" || fail "no pointer to 'rkt list'"

# Repeated selections are never silently the last one (before, `--kernel rleu --kernel
# relu/cpu_loops` ran relu/cpu_loops alone and said nothing of rleu; a second --filter replaced the
# first). A repeated --kernel selects the union, so each fragment must select something; a second
# --filter is refused with the one-filter spelling of the union.
error "--kernel 'rleu' matches none of the" "$rkt" run --kernel rleu --kernel relu/cpu_loops --out "$work/never"
error "--kernel 'rleu' matches none of the" "$rkt" test --kernel relu/cpu_loops --kernel rleu
error "--filter given twice ('*.correctness_x1', '*.correctness_x3'); join the patterns with ':' in one --filter (--filter '*.correctness_x1:*.correctness_x3')" \
  "$rkt" test --kernel relu/cpu_loops --filter '*.correctness_x1' --filter '*.correctness_x3'
error "no case of the kernels matching 'relu/cpu_loops, softmax/cpu_loops' matches the filter '*.no_such_case'" \
  "$rkt" test --kernel relu/cpu_loops --kernel softmax/cpu_loops --filter '*.no_such_case'
# ... and the union runs: one case of each kernel (ids that no other id contains: --kernel
# selects ids containing the fragment).
"$rkt" test --kernel dropout/cpu_loops --kernel sum_dim/cpu_loops --filter '*.correctness_x1' --json \
  > "$work/union.json" 2> "$work/out" || { cat "$work/out"; fail "the union of two --kernel did not pass"; }
for name in dropout/cpu_loops.correctness_x1 sum_dim/cpu_loops.correctness_x1; do
  grep -qF "\"name\": \"$name\"" "$work/union.json" || { cat "$work/union.json"; fail "--kernel twice did not run $name"; }
done
[ "$(grep -c '"name": ' "$work/union.json")" = 2 ] || { cat "$work/union.json"; fail "--kernel twice ran other cases"; }

# JUnit reports (rkt test --junit, --gtest_output): refused before any case runs.
error "unknown option '--gtest_filter=relu*'; this command takes --kernel, --filter, --timeout, --json, --junit, --gtest_output" \
  "$rkt" test --gtest_filter='relu*'
error "--gtest_output takes 'xml', 'xml:FILE' or 'xml:DIR/' (JUnit XML), not 'json:r.json'; rkt test --json writes JSON records to standard output" \
  "$rkt" test --kernel relu/cpu_loops --gtest_output=json:r.json
error "--gtest_output=xml: needs a file name after 'xml:' (or use --gtest_output=xml for test_detail.xml)" \
  "$rkt" test --kernel relu/cpu_loops --gtest_output=xml:
error "--junit needs a file name" "$rkt" test --kernel relu/cpu_loops --junit ""
error "--junit and --gtest_output both name the JUnit report; give one of them once" \
  "$rkt" test --kernel relu/cpu_loops --junit a.xml --gtest_output=xml:b.xml
touch "$work/a_file"
error "cannot write the JUnit report '$work/a_file/r.xml': cannot create directory '$work/a_file/'" \
  "$rkt" test --kernel relu/cpu_loops --junit "$work/a_file/r.xml"
error "cannot write the JUnit report '$work': it is a folder" \
  "$rkt" test --kernel relu/cpu_loops --junit "$work"

# A run folder that cannot be created.
touch "$work/a_file"
error "rkt run: cannot create directory '$work/a_file/run' for the run's results (--out)" \
  "$rkt" run --kernel relu/cpu_loops --out "$work/a_file/run"

# --shard.
for bad in 0/2 3/2 x/y 2 1/0 -1/2 1/2/3 ""; do
  error "--shard takes I/N (shard I of N, 1 <= I <= N, e.g. 2/4), not '$bad'" \
    "$rkt" run --kernel relu --shard "$bad" --out "$work/never"
done
error "shards count from 1" "$rkt" run --shard 0/2
error "I is larger than N" "$rkt" run --shard 3/2
error "I and N must be whole numbers" "$rkt" run --shard x/y
error "no '/'" "$rkt" run --shard 2

# --out onto a folder that holds a run: refused, the earlier run untouched; --replace overwrites it.
mkdir -p "$work/earlier/benchmarks"
echo '{"schema": "rkt-results/3", "marker": "earlier run"}' > "$work/earlier/results.json"
echo stale > "$work/earlier/benchmarks/old_record"
error "already holds a run ($work/earlier/results.json); pass --replace to overwrite it" \
  "$rkt" run --kernel relu/cpu_loops --out "$work/earlier"
grep -q "earlier run" "$work/earlier/results.json" || fail "a refused --out changed the earlier run"
set +e
"$rkt" run --kernel relu/cpu_loops --out "$work/earlier" --replace > "$work/out" 2>&1
code=$?
set -e
[ "$code" = 0 ] || { cat "$work/out"; fail "--replace exited $code"; }
! grep -q "earlier run" "$work/earlier/results.json" || fail "--replace kept the earlier results.json"
[ ! -e "$work/earlier/benchmarks/old_record" ] || fail "--replace kept the earlier run's benchmark files"
checked=$((checked + 1))

# Hidden inputs: a malformed or unreadable suite, a malformed secret seed. The messages name the
# line and field, never the suite's text, the file's path or the seed's value.
printf 'scale 2\nfrobnicate 271828\n' > "$work/suite_marker_path.txt"
error "hidden suite line 2: expected 'scale <factor>', 'range <low> <high>' or 'dims <task> NAME=size...'" \
  env RKT_HIDDEN_SUITE="$work/suite_marker_path.txt" "$rkt" list
never 271828; never frobnicate; never suite_marker_path
printf 'dims relu B=5 N=x314159\n' > "$work/suite_marker_path.txt"
error "hidden suite line 1: field 4 is not a number" \
  env RKT_HIDDEN_SUITE="$work/suite_marker_path.txt" "$rkt" list
never 314159
printf 'range 9 1\n' > "$work/suite_marker_path.txt"
error "hidden suite line 1: range needs low < high" \
  env RKT_HIDDEN_SUITE="$work/suite_marker_path.txt" "$rkt" list
# Lines that would test nothing: an unknown task, an unknown dim, a size outside the domain.
printf 'scale 2\ndims relu_marker_q5 N=5\n' > "$work/suite_marker_path.txt"
error "hidden suite line 2: field 2 names a task that is not registered" \
  env RKT_HIDDEN_SUITE="$work/suite_marker_path.txt" "$rkt" list
never relu_marker_q5
printf 'dims relu B=3 Qmarker=7\n' > "$work/suite_marker_path.txt"
error "hidden suite line 1: field 4 names a dim the task does not have" \
  env RKT_HIDDEN_SUITE="$work/suite_marker_path.txt" "$rkt" list
never Qmarker
printf 'dims relu N=9876543 B=2\n' > "$work/suite_marker_path.txt"
error "hidden suite line 1: field 3 lies outside the task's declared domain" \
  env RKT_HIDDEN_SUITE="$work/suite_marker_path.txt" "$rkt" list
never 9876543
error "RKT_HIDDEN_SUITE names a file that cannot be read" \
  env RKT_HIDDEN_SUITE="$work/no_such_suite_marker" "$rkt" list
never no_such_suite_marker
error "RKT_SECRET_SEED is not a non-negative integer" env RKT_SECRET_SEED=12ab34 "$rkt" list
never 12ab34

# compare and merge: missing or unreadable results, missing arguments.
error "cannot read BASE: '$work/base/results.json' does not exist (expected a run folder's results.json)" \
  bash -c "mkdir -p '$work/base' && '$rkt' compare '$work/base' '$work/base'"
error "compare takes two results (BASE and NEW: results.json files or run folders), got 0" "$rkt" compare
echo '{"schema": "rkt-results/3", ' > "$work/broken.json"
error "'$work/broken.json': line 2, column 1: syntax error while parsing object key" \
  "$rkt" compare "$work/broken.json" "$work/broken.json"
error "'$work/missing_shard' does not exist" "$rkt" merge --out "$work/merged" "$work/missing_shard"
error "merge needs --out DIR" "$rkt" merge "$work/base"
error "option '--out' needs a value" "$rkt" merge "$work/base" --out
echo "cli errors: $checked error messages checked"
