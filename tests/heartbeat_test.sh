#!/usr/bin/env bash
# tools/with_heartbeat.sh, which keeps tools/bootstrap.sh's build (an hour when cold) from looking
# hung: a "still <label>" line with the last progress mark every interval, the command's exit
# status passed on, and a SIGTERM that ends the command's whole process group.
# Usage: heartbeat_test.sh TOOLS_DIR
set -euo pipefail
tool="$1/with_heartbeat.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/out" 2> /dev/null; exit 1; }

"$tool" test working 1 "$work/log" sh -c 'echo "[ 42%] Building x.o"; sleep 3.5' > "$work/out"
beats=$(grep -cE '^test: still working, [0-9]+ s so far, at \[ 42%\]$' "$work/out" || true)
[ "$beats" -ge 2 ] || fail "$beats heartbeat lines over 3.5 s at 1 s, expected 2 or more"
grep -q "Building x.o" "$work/log" || fail "the command's output is not in the log"

code=0
"$tool" test working 1 "$work/log" sh -c 'exit 3' > "$work/out" || code=$?
[ "$code" = 3 ] || fail "exit status $code, expected the command's 3"

"$tool" test working 1 "$work/log" sh -c 'sleep 300 & echo $! > '"$work"'/grandchild; wait' > "$work/out" &
pid=$!
for _ in $(seq 1 50); do [ -s "$work/grandchild" ] && break; sleep 0.1; done
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
[ "$code" = 143 ] || fail "exit status $code after SIGTERM, expected 143"
# The group's signal is delivered at once, but a loaded machine (ctest -j 2 beside a build) may
# take a while to run the dying child: wait up to 5 s (0.5 s was not enough once in CI).
state=""
for _ in $(seq 1 50); do
  state="$(ps -o stat= -p "$(cat "$work/grandchild")" || true)"  # a zombie (Z) is dead, not yet reaped
  { [ -z "$state" ] || [[ "$state" == Z* ]]; } && break
  sleep 0.1
done
[ -z "$state" ] || [[ "$state" == Z* ]] || fail "the command's child outlived a SIGTERM by 5 s ($state)"
echo "heartbeat: $beats lines, exit status passed on, SIGTERM ends the command's group"
