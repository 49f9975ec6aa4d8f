#!/usr/bin/env bash
# A failing case's `reproduce` string, pasted into a shell in another folder, runs that case again
# with the binary that found it (here a suite that is not called rkt) and fails the same way; the
# message carries no framework source locations.
# Usage: replay_test.sh SUITE PYTHON
set -euo pipefail
suite="$1"
python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
set +e
"$suite" test --kernel softmax/edge_odd --filter '*.property_shapes' --json > first.json 2> first.err
code=$?
set -e
[ "$code" = 1 ] || { cat first.err; fail "the edge adversary's property exited $code, expected 1"; }
"$python" - first.json > failed.txt <<'PY'
import json, sys
cases = [c for c in json.load(open(sys.argv[1]))["cases"] if c["status"] == "failed"]
assert cases, "no failed case"
print(cases[0]["reproduce"])
print(cases[0]["message"])
PY
reproduce="$(head -n 1 failed.txt)"
echo "reproduce: $reproduce"
case "$reproduce" in
  *"$suite test --filter 'softmax/edge_odd.property_shapes'"*) ;;
  *) fail "reproduce does not run this binary on this case: $reproduce" ;;
esac
case "$reproduce" in RC_PARAMS=*) ;; *) fail "reproduce does not start with RC_PARAMS" ;; esac
! grep -qE "framework/.*\.cpp:[0-9]+|RC_FAIL\(" failed.txt || fail "the message shows framework source locations"
mkdir elsewhere && cd elsewhere
set +e
sh -c "$reproduce" > replay.out 2>&1
code=$?
set -e
[ "$code" = 1 ] || { cat replay.out; fail "the pasted replay exited $code, expected 1"; }
grep -q "softmax/edge_odd.property_shapes" replay.out || { cat replay.out; fail "the replay ran another case"; }
echo "1 passed, 0 failed"
