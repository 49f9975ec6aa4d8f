#!/usr/bin/env bash
# Prints, after a failed ctest run, what failed and why, in a few lines: for each failed test, its
# gtest failures (the "[  FAILED  ]" lines and each assertion's message) or, for a test that is not
# a gtest binary, the end of its output. ctest's --output-on-failure prints the whole output of a
# failed test, and rkt_selftest's is thousands of lines: a CI log shown by its head and tail then
# hides the one line that says which case failed. tools/test.sh calls this last, so it is the tail.
# Usage: ctest_failure_digest.sh BUILD_DIR
set -euo pipefail
results="${1:?usage: ctest_failure_digest.sh BUILD_DIR}/Testing/Temporary"
log="$results/LastTest.log"
failed_list="$results/LastTestsFailed.log"  # lines "NUMBER:NAME", one per failed test
if [[ ! -r "$log" || ! -r "$failed_list" ]]; then
  echo "ctest failure digest: no $log or $failed_list to read" >&2
  exit 0
fi
lines_after_failure=8  # an assertion's message: the expression, its values, the streamed text
tail_lines=15          # the end of a failed test's output when it printed no gtest failure
echo
echo "==== ctest failure digest (from $log) ===="
awk -v failed_list="$failed_list" -v after="$lines_after_failure" -v tail_n="$tail_lines" '
  function flush(   i, j, start, shown) {
    if (name == "" || !(name in failed)) return
    print "---- " name " (" (verdict != "" ? verdict : "no verdict") (seconds != "" ? " after " seconds " s" : "") ")"
    shown = 0
    for (i = 1; i <= n; i++) {
      if (out[i] ~ /^\[  FAILED  \]/) { print "  " out[i]; shown = 1 }
      if (out[i] ~ /: Failure$/) {
        print "  " out[i]
        for (j = i + 1; j <= n && j <= i + after && out[j] !~ /^\[ +(FAILED|RUN|OK) +\]/; j++)
          print "  " out[j]
        shown = 1
      }
    }
    if (!shown) {
      start = n - tail_n + 1; if (start < 1) start = 1
      for (i = start; i <= n; i++) print "  " out[i]
    }
  }
  BEGIN { while ((getline entry < failed_list) > 0) failed[substr(entry, index(entry, ":") + 1)] = 1 }
  /^[0-9]+\/[0-9]+ Testing: / {
    flush(); name = substr($0, index($0, "Testing: ") + 9); n = 0; in_output = 0; verdict = ""; seconds = ""; next
  }
  name == "" { next }
  /^Output:$/ { in_output = 1; getline; next }  # the separator line after it
  /^<end of output>$/ { in_output = 0; next }
  / end time: / { flush(); name = ""; next }
  in_output { out[++n] = $0; next }
  /^Test time = / { seconds = $4 }  # "Test time =   1.01 sec": a timeout shows as its limit here
  /^Test (Failed|Passed)|Timeout|Exception|Exit code/ { verdict = $0 }
  END { flush() }
' "$log"
