#!/usr/bin/env bash
# The twin agreement check can fail: with the wrong twins of tests/twins_wrong/, every task whose
# twin disagrees, raises or is missing is named, and the check exits non-zero.
# Usage: twins_check_test.sh RKT PYTHON REPO
set -uo pipefail
rkt="$1" python="$2" repo="$3"
fail() { echo "FAIL: $*"; exit 1; }
output="$("$python" "$repo/tools/twins/check_twins.py" --rkt "$rkt" --twins "$repo/tests/twins_wrong" 2>&1)"
status=$?
echo "$output"
[ "$status" -ne 0 ] || fail "the check passed with wrong twins"
grep -q "^FAIL     relu: .*disagree; the worst: .*worst element \[" <<<"$output" \
  || fail "the relu twin that returns its input was not named with its worst element"
grep -q "^FAIL     softmax: 4 of 4 cases disagree" <<<"$output" \
  || fail "the softmax twin 0.1% off was not named on every distribution"
grep -q "^FAIL     sum_dim: .*the twin raised: IndexError" <<<"$output" \
  || fail "the sum_dim twin that raises was not named with its error"
grep -q "^MISSING  matmul: no twin" <<<"$output" || fail "a forward task without a twin passed"
grep -q "^no twin  rkb_layernorm_backward: a backward task" <<<"$output" \
  || fail "backward tasks are not listed as having no twin"
grep -q "^twins: 0 passed, [0-9]* failed" <<<"$output" || fail "the summary line is missing"
echo "twin check: wrong, raising and missing twins named; exit status $status"
