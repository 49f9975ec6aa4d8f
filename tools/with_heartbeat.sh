#!/usr/bin/env bash
# Runs COMMAND with its output in LOG and, every INTERVAL seconds while it runs, prints
# "PREFIX: still LABEL, T so far, at [ 42%]" (the last progress mark in LOG, when it has one), so
# that long silent work never looks hung (issue 31: a cold build ran 69 minutes without a word).
# COMMAND runs in a session of its own; a SIGINT or SIGTERM of this script ends all of it.
# Exits with COMMAND's status.
# Usage: with_heartbeat.sh PREFIX LABEL INTERVAL LOG COMMAND...   (INTERVAL in seconds)
set -uo pipefail
prefix="$1" label="$2" interval="$3" log="$4"
shift 4
# The traps come first: a signal between the start and a trap set after it ended this script
# alone and left the command running (CI, 2026-12-06: the heartbeat test's grandchild outlived it).
# $! too: the signal may come between the start and `pid=$!`.
pid=""
stop() {
  local command_pid="${pid:-$!}"
  if [ -n "$command_pid" ]; then
    kill "-$1" -- "-$command_pid" 2> /dev/null
    wait "$command_pid" 2> /dev/null
  fi
  exit "$2"
}
trap 'stop TERM 143' TERM
trap 'stop INT 130' INT
setsid "$@" > "$log" 2>&1 &
pid=$!
start=$SECONDS
elapsed() {
  local s=$((SECONDS - start))
  if [ "$s" -lt 60 ]; then echo "$s s"; else echo "$((s / 60)) min $((s % 60)) s"; fi
}
while kill -0 "$pid" 2> /dev/null; do
  for ((waited = 0; waited < interval; waited++)); do
    sleep 1
    kill -0 "$pid" 2> /dev/null || break
  done
  if kill -0 "$pid" 2> /dev/null; then
    mark="$(grep -o '^\[ *[0-9]*%\]' "$log" 2> /dev/null | tail -n 1)"
    echo "$prefix: still $label, $(elapsed) so far${mark:+, at $mark}"
  fi
done
wait "$pid"
