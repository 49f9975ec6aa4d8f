#!/usr/bin/env bash
# Long work never looks hung, and a signal says where the results are (issue 31: one kernel ran
# 3.5 minutes without a word; a SIGTERM ended the job with exit 143 and no message).
# 1. While one case runs long, `rkt run` prints "rkt run: [i/N] still running task/kernel: case,
#    T" every RKT_HEARTBEAT_SECONDS (here 1; kCaseHeartbeatSeconds by default), and it says up front
#    what it judges.
# 2. A SIGTERM ends it with a message naming the kernel it was on and the run folder, whose
#    results.json and report.md are there, marked unfinished; its child processes die with it.
# Usage: run_progress_test.sh SUITE PYTHON   (SUITE: a suite with the adversaries)
set -euo pipefail
suite="$1" python="$2"
work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2> /dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/log"; exit 1; }

RKT_HEARTBEAT_SECONDS=1 "$suite" run --kernel relu/cheat_hangs --timeout 300 --out "$work/run" \
  > "$work/log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -q "still running" "$work/log" && break
  kill -0 "$pid" 2> /dev/null || fail "rkt run ended before its case hung"
  sleep 0.5
done
sleep 1.5  # a second heartbeat
grep -qE "^rkt run: judging 1 cpu kernel$" "$work/log" || fail "the run did not say what it judges"
beats=$(grep -cE "^rkt run: \[1/1\] still running relu/cheat_hangs: [a-z_0-9]+, [0-9]+ s$" "$work/log" || true)
[ "$beats" -ge 2 ] || fail "$beats heartbeat lines for a hung case, expected 2 or more"
children=$(pgrep -P "$pid" || true)
[ -n "$children" ] || fail "no child process to judge the case"

kill -TERM "$pid"
code=0
wait "$pid" || code=$?
pid=""
[ "$code" = 143 ] || fail "rkt run exited $code after SIGTERM, expected 143"
grep -qF "rkt run: stopped by SIGTERM during [1/1] relu/cheat_hangs; no kernel had finished; the run folder is $work/run (results.json, report.md and report.html, marked unfinished)" "$work/log" \
  || fail "no message naming the run folder"
"$python" - "$work/run/results.json" <<'PY' || fail "results.json is not there, marked unfinished"
import json, sys
assert json.load(open(sys.argv[1]))["finished"] is False
PY
grep -q "UNFINISHED" "$work/run/report.md" || fail "report.md is not marked unfinished"
for _ in $(seq 1 20); do
  left=""
  for child in $children; do kill -0 "$child" 2> /dev/null && left="$left $child"; done
  [ -z "$left" ] && break
  sleep 0.5
done
[ -z "$left" ] || fail "child processes$left outlived the job"
echo "run progress: $beats heartbeats for a hung case; SIGTERM named $work/run, left it unfinished"
