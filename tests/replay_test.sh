#!/usr/bin/env bash
# Every replay line replays, as printed: a failing case's command, taken from each place that
# prints it (the terminal's `[case]` line, `rkt test --json`, the JUnit report, and `rkt run`'s
# results.json, report.md and report.html), pasted into a shell in another folder, runs that case
# again with the binary that found it (here a suite that is not called rkt) and fails the same
# way. All of them are the same command. No output shows a framework source location.
# Usage: replay_test.sh SUITE PYTHON
set -euo pipefail
suite="$1"
python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
case_name="softmax/edge_odd.property_shapes"
no_framework_paths() {
  ! grep -nE "framework/[a-z_/]*\.(cpp|h):[0-9]+|RC_FAIL\(" "$1" || fail "$2 shows framework source locations"
}

# The terminal, JSON and JUnit of one `test`, and the run folder of one `run`.
set +e
"$suite" test --kernel softmax/edge_odd --filter '*.property_shapes' --junit junit.xml > terminal.txt 2>&1
code=$?
"$suite" test --kernel softmax/edge_odd --filter '*.property_shapes' --json > first.json 2> first.err
json_code=$?
"$suite" run --kernel softmax/edge_odd --out run > run.txt 2>&1
run_code=$?
set -e
[ "$code" = 1 ] || { cat terminal.txt; fail "the edge adversary's property exited $code, expected 1"; }
[ "$json_code" = 1 ] || { cat first.err; fail "rkt test --json exited $json_code, expected 1"; }
[ "$run_code" = 1 ] || { tail -20 run.txt; fail "rkt run exited $run_code, expected 1"; }
no_framework_paths terminal.txt "the terminal"

"$python" - "$case_name" > commands.txt <<'PY'
import html, json, re, sys
name = sys.argv[1]
found = {}
# The terminal: the [case] line after the failure ends with "; reproduce COMMAND".
for line in open("terminal.txt"):
    if line.startswith("[case] ") and "; reproduce " in line:
        found["terminal"] = line.rstrip("\n").split("; reproduce ", 1)[1]
cases = [c for c in json.load(open("first.json"))["cases"] if c["name"] == name and c["status"] == "failed"]
assert cases, "no failed case in the JSON"
found["json"] = cases[0]["reproduce"]
junit = open("junit.xml").read()
found["junit"] = html.unescape(re.search(r"replay: ([^\n<]*)", junit).group(1))
run = json.load(open("run/results.json"))
for kernel in run["kernels"]:
    for c in kernel["cases"]:
        if c["name"] == name:
            found["results.json"] = c["reproduce"]
md = open("run/report.md").read()
found["report.md"] = re.search(r"\*\*" + re.escape(name) + r"\*\*.*?\n  - replay: `([^`]*)`", md, re.S).group(1)
page = open("run/report.html").read()
item = page[page.index("<b>" + html.escape(name) + "</b>"):]
found["report.html"] = html.unescape(re.search(r"replay: <code>(.*?)</code>", item, re.S).group(1))
for where in ("terminal", "json", "junit", "results.json", "report.md", "report.html"):
    assert where in found, "no replay line in the " + where
    print(where + "\t" + found[where])
PY
cat commands.txt
! cut -f2 commands.txt | grep -v "test --filter '$case_name'\$" || fail "a replay line does not end with the case's filter"
# The terminal's and the JUnit's come from one run, as do the run folder's three: the same command
# (the same fresh seed) in each place. (The JSON's run drew its own seed.)
[ "$(sed -n '1p;3p' commands.txt | cut -f2 | sort -u | wc -l)" = 1 ] || fail "the terminal and JUnit commands differ"
[ "$(sed -n '4,6p' commands.txt | cut -f2 | sort -u | wc -l)" = 1 ] || fail "results.json, report.md and report.html commands differ"
for file in first.json junit.xml run/results.json run/report.md run/report.html; do
  no_framework_paths "$file" "$file"
done

mkdir elsewhere && cd elsewhere
while IFS=$'\t' read -r where reproduce; do
  case "$reproduce" in
    *"$suite test --filter '$case_name'") ;;
    *) fail "the $where line does not run this binary on this case: $reproduce" ;;
  esac
  case "$reproduce" in RC_PARAMS=*) ;; *) fail "the $where line does not start with RC_PARAMS" ;; esac
  set +e
  sh -c "$reproduce" > replay.out 2>&1
  code=$?
  set -e
  [ "$code" = 1 ] || { cat replay.out; fail "the $where line, pasted, exited $code, expected 1"; }
  grep -q "\[  FAILED  \] $case_name" replay.out || { cat replay.out; fail "the $where line replayed another case"; }
  grep -q "whole_domain failed\|failed after" replay.out || { cat replay.out; fail "the $where line did not fail the same way"; }
  no_framework_paths replay.out "the $where replay"
done < ../commands.txt
echo "6 replay lines replayed"
