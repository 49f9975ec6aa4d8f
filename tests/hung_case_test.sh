#!/usr/bin/env bash
# A case killed as hung records the inputs it hung on: dims, scale, seed and a `reproduce` that,
# pasted, runs the same case on the same inputs (and hangs again); its message and its JUnit
# failure name them too. A hidden case that hangs keeps its inputs secret. After its first hung
# case a kernel's other cases are not run (recorded as skipped, "not run: <case> hung after N s"),
# so a kernel that hangs everywhere ends in well under its case count times the timeout.
# Usage: hung_case_test.sh SUITE PYTHON   (SUITE: a suite with the adversaries)
set -euo pipefail
suite="$1"
python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"
kernel=relu/cheat_hangs  # never returns

set +e
"$suite" test --kernel "$kernel" --filter '*.correctness_x3:*.property_shapes' --timeout 3 \
  --json --junit hung.xml > hung.json 2> hung.err
code=$?
set -e
[ "$code" = 1 ] || { cat hung.err; fail "the hanging kernel's run exited $code, expected 1"; }
"$python" - hung.json hung.xml > reproduce.txt <<'PY' || { cat hung.json; fail "a hung case's record lacks its inputs"; }
import json, sys, xml.etree.ElementTree as ET
run = json.load(open(sys.argv[1]))
cases = {c["case"]: c for c in run["cases"]}
assert set(cases) == {"correctness_x3", "property_shapes"}, list(cases)
# Fail fast: the first case hung, the second was not run, and says why.
not_run = cases.pop("property_shapes")
assert not_run["status"] == "skipped" and not_run["message"] == "not run: correctness_x3 hung after 3 s", not_run
for name, case in cases.items():
    assert case["status"] == "crashed" and "hang" in case["message"], case
    assert case.get("dims"), f"{name}: no dims"
    assert isinstance(case.get("seed"), int), f"{name}: seed {case.get('seed')!r}"
    assert case["milliseconds"] >= 3000, f"{name}: {case['milliseconds']} ms"
    dims = " ".join(f"{k}={v}" for k, v in case["dims"].items())
    assert f"dims {dims}" in case["message"] and f"seed {case['seed']}" in case["message"], case["message"]
    assert case["reproduce"].startswith(f"RKT_SEED={run['seed']} "), case["reproduce"]
    assert case["reproduce"].endswith(f" test --filter '{case['name']}'"), case["reproduce"]
assert cases["correctness_x3"]["scale"] == 3, cases["correctness_x3"]
for case in ET.parse(sys.argv[2]).getroot().iter("testcase"):
    if case.get("name") == "property_shapes":
        assert case.find("skipped") is not None, ET.tostring(case)
        continue
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "crashed", ET.tostring(case)
    assert f"replay: RKT_SEED={run['seed']} " in failure.text, failure.text
c = cases["correctness_x3"]
print(c["reproduce"]); print(json.dumps(c["dims"])); print(c["seed"])
PY
checked=1

# The reproduce line, pasted elsewhere (with a short limit), hangs on the same inputs.
mkdir elsewhere && cd elsewhere
set +e
sh -c "$(sed -n 1p ../reproduce.txt) --timeout 3 --json" > replay.json 2> replay.err
code=$?
set -e
[ "$code" = 1 ] || { cat replay.err; fail "the pasted replay exited $code, expected 1"; }
"$python" - replay.json "$(sed -n 2p ../reproduce.txt)" "$(sed -n 3p ../reproduce.txt)" <<'PY' \
  || { cat replay.json; fail "the replay did not hang on the same inputs"; }
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert [c["case"] for c in cases] == ["correctness_x3"], cases
assert cases[0]["status"] == "crashed", cases[0]
assert cases[0]["dims"] == json.loads(sys.argv[2]) and cases[0]["seed"] == int(sys.argv[3]), cases[0]
PY
cd ..
checked=$((checked + 1))

# Every case of the hanging kernel: one waits out its timeout, the others are not run, so the
# whole kernel ends in well under (its case count) x (the timeout).
start=$(date +%s)
set +e
"$suite" test --kernel "$kernel" --timeout 3 --json > all.json 2> all.err
code=$?
set -e
elapsed=$(($(date +%s) - start))
[ "$code" = 1 ] || { cat all.err; fail "the hanging kernel's full run exited $code, expected 1"; }
"$python" - all.json "$elapsed" <<'PY' || { cat all.json; fail "a hanging kernel did not fail fast"; }
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
elapsed = int(sys.argv[2])
hung = [c for c in cases if c["status"] == "crashed"]
assert len(hung) == 1 and "hang" in hung[0]["message"], hung
rest = [c for c in cases if c is not hung[0]]
assert len(rest) >= 10, len(rest)
assert all(c["status"] == "skipped" and c["message"] == f"not run: {hung[0]['case']} hung after 3 s" for c in rest), rest
assert elapsed < len(cases) * 3 / 2, f"{len(cases)} cases took {elapsed} s at a 3 s timeout"
print(f"{len(cases)} cases in {elapsed} s: 1 hung, {len(rest)} not run")
PY
checked=$((checked + 1))

# The same kernel with the case timeout at its default (300 s): its worker, which does not answer
# within RKT_WORKER_REPLY_TIMEOUT, is killed and the case fails; the kernel's other cases are
# not run either (each would wait as long: at the default 120 s, 17 cases took 34 min).
start=$(date +%s)
set +e
RKT_WORKER_REPLY_TIMEOUT=2 "$suite" test --kernel "$kernel" --json > worker_hung.json 2> worker_hung.err
code=$?
set -e
elapsed=$(($(date +%s) - start))
[ "$code" = 1 ] || { cat worker_hung.err; fail "the hanging kernel's run with a short worker reply timeout exited $code, expected 1"; }
"$python" - worker_hung.json "$elapsed" <<'PY' || { cat worker_hung.json; fail "a kernel whose worker hung did not fail fast"; }
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
elapsed = int(sys.argv[2])
hung = [c for c in cases if c["status"] != "skipped"]
# Cases that run beside each other may each have been under way when the first hang ended.
assert 1 <= len(hung) <= 3, hung
assert all(c["status"] == "failed" and "did not answer within 2 s (hung)" in c["message"] for c in hung), hung
rest = [c for c in cases if c["status"] == "skipped"]
assert len(rest) >= 10, len(rest)
reasons = {c["message"].split(" hung after ")[0] for c in rest}
assert reasons <= {f"not run: {c['case']}" for c in hung}, reasons
assert all(" hung after 2 s (the kernel's worker did not answer" in c["message"] for c in rest), rest
assert elapsed < 60, f"{len(cases)} cases took {elapsed} s at a 2 s worker reply timeout"
print(f"{len(cases)} cases in {elapsed} s: {len(hung)} hung in the worker, {len(rest)} not run")
PY
checked=$((checked + 1))

# A malformed reply timeout is named, not taken for the default.
set +e
RKT_WORKER_REPLY_TIMEOUT=soon "$suite" test --kernel "$kernel" --filter '*.correctness_x1' --json \
  > bad_timeout.json 2> bad_timeout.err
code=$?
set -e
[ "$code" != 0 ] || fail "RKT_WORKER_REPLY_TIMEOUT=soon was accepted"
grep -q "RKT_WORKER_REPLY_TIMEOUT='soon'" bad_timeout.json bad_timeout.err \
  || { cat bad_timeout.json bad_timeout.err; fail "RKT_WORKER_REPLY_TIMEOUT=soon is not named"; }
checked=$((checked + 1))

# A hidden case that hangs: no dims, no seed, nothing in the message.
printf 'scale 2\n' > hidden_suite.txt
set +e
RKT_HIDDEN_SUITE="$work/hidden_suite.txt" "$suite" test --kernel "$kernel" \
  --filter '*.integrity_hidden_1' --timeout 3 --json > hidden.json 2> hidden.err
code=$?
set -e
[ "$code" = 1 ] || { cat hidden.err; fail "the hidden hung case exited $code, expected 1"; }
"$python" - hidden.json <<'PY' || { cat hidden.json; fail "a hidden hung case revealed its inputs"; }
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert len(cases) == 1 and cases[0]["status"] == "crashed", cases
assert "dims" not in cases[0] and "seed" not in cases[0] and "running on" not in cases[0]["message"], cases[0]
PY
checked=$((checked + 1))
echo "$checked passed, 0 failed"
