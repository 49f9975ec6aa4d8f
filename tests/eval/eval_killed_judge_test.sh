#!/usr/bin/env bash
# A judge killed mid-kernel keeps the cases that finished (issue 28): rkt run rewrites results.json
# after every case, so when rkt eval's --file-timeout kills the judge of relu_hang.cpp (it spins on
# the x0.01 inputs; the case timeout is longer than the file's), the kernel's record holds the cases
# that ran before the hang, passed, and fails saying it was stopped; the judge_timeout record says
# that no kernel was judged to the end.
# Usage: eval_killed_judge_test.sh RKT HANG_CANDIDATE PYTHON
set -euo pipefail
rkt="$1"; hang="$2"; python="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
export RKT_SEED=20261202
# The hanging call is left to the reply timeout (120 s): its own bound (10 s, hung_call_limit.h)
# would end it, and the kernel, before --file-timeout kills the judge.
export RKT_HUNG_CALL_FACTOR=0
set +e
"$rkt" eval "$hang" --json --out "$work/run" --timeout 300 --file-timeout 45 > "$work/records" 2> "$work/log"
code=$?
set -e
[ "$code" = 1 ] || { cat "$work/log"; fail "exit $code, expected 1"; }
"$python" - "$work/records" "$work/run/results.json" <<'PY' || { cat "$work/log"; exit 1; }
import json, sys
records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
statuses = [r["status"] for r in records]
assert statuses == ["judged", "judge_timeout"], statuses
kernel, timeout = records
assert kernel["kernel"] == "eval_hang" and kernel["verdict"] == "FAIL", kernel
passed = [c["name"] for c in kernel["cases"] if c["status"] == "passed"]
assert passed, kernel["cases"]
assert any(p.startswith("unfinished: the judge was stopped") for p in kernel["problems"]), kernel["problems"]
assert "with no kernel judged to the end" in timeout["message"], timeout["message"]
results = json.load(open(sys.argv[2]))
entry = [k for k in results["kernels"] if k["kernel"] == "eval_hang"]  # its one name
assert entry and [c["status"] for c in entry[0]["cases"]].count("passed") == len(passed), entry
print(f"killed judge: {len(passed)} finished cases kept ({', '.join(passed[:3])}, ...)")
PY
echo "eval killed judge: finished cases kept"
