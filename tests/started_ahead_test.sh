#!/usr/bin/env bash
# Judges started ahead of their work (docs/architecture.md, "Processes started ahead"), end to
# end on the CPU, each against the same command with RKT_START_AHEAD=0:
#   rkt test hands its cases to a child started ahead, with the same verdicts;
#   after a crash the remaining cases run in a freshly forked child, with the same records;
#   rkt eval hands each file's `rkt run` to a judge started ahead (the second file's started while
#   the first was judged), and its cases to that judge's own child started ahead; same records.
# Usage: started_ahead_test.sh RKT ADVERSARIES CANDIDATES_DIR PYTHON
set -euo pipefail
rkt="$1"
adversaries="$2"
candidates="$3"
python="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. rkt test: one child, started ahead; the same statuses without.
for ahead in 1 0; do
  RKT_START_AHEAD=$ahead RKT_SEED=11 "$rkt" test --kernel relu/cpu_loops --filter '*correctness*' --json \
    > "$work/test_$ahead.json" 2> "$work/test_$ahead.log" || fail "rkt test (ahead=$ahead): $(tail -n 5 "$work/test_$ahead.log")"
done
"$python" - "$work" <<'PY' || fail "rkt test"
import json, sys
work = sys.argv[1]
ahead, fresh = (json.load(open(f"{work}/test_{a}.json")) for a in (1, 0))
print("ahead:", ahead["summary"], "\nfresh:", fresh["summary"])
assert ahead["summary"]["processes"] == 1 and ahead["summary"]["processes_started_ahead"] == 1, ahead["summary"]
assert fresh["summary"]["processes_started_ahead"] == 0, fresh["summary"]
statuses = lambda run: [(case["name"], case["status"]) for case in run["cases"]]
assert statuses(ahead) == statuses(fresh) and ahead["summary"]["passed"] == 4, (statuses(ahead), statuses(fresh))
PY

# 2. A kernel that crashes its judge (in-process, so that the crash is the child's): the first
# child was started ahead, the ones after each crash forked; and one that hangs, killed.
for ahead in 1 0; do
  set +e
  RKT_START_AHEAD=$ahead RKT_SEED=11 "$adversaries" test --in-process --kernel relu/cheat_segfaults \
    --filter '*correctness_x1:*correctness_x3:*values_ties' --json > "$work/crash_$ahead.json" 2> "$work/crash_$ahead.log"
  code=$?
  set -e
  [ "$code" = 1 ] || fail "the crashing kernel (ahead=$ahead): exit $code, expected 1"
done
"$python" - "$work" <<'PY' || fail "the crashing kernel"
import json, sys
work = sys.argv[1]
ahead, fresh = (json.load(open(f"{work}/crash_{a}.json")) for a in (1, 0))
print("ahead:", ahead["summary"], "\nfresh:", fresh["summary"])
statuses = lambda run: [(case["name"], case["status"]) for case in run["cases"]]
assert statuses(ahead) == statuses(fresh), (statuses(ahead), statuses(fresh))
assert ahead["summary"]["crashed"] == 3 and ahead["summary"]["processes"] >= 3, ahead["summary"]
assert ahead["summary"]["processes_started_ahead"] == 1, ahead["summary"]
PY
set +e
RKT_SEED=11 "$adversaries" test --kernel relu/cheat_hangs --filter '*correctness_x1' --timeout 2 --json \
  > "$work/hang.json" 2> "$work/hang.log"
set -e
"$python" - "$work/hang.json" <<'PY' || fail "the hanging kernel"
import json, sys
run = json.load(open(sys.argv[1]))
print(run["summary"], run["cases"][0]["message"][:120])
assert run["summary"]["processes_started_ahead"] == 1 and run["cases"][0]["status"] == "crashed", run["summary"]
assert "hang" in run["cases"][0]["message"]
PY

# 3. rkt eval of two files: the first file's judge started ahead before the compiler ran, the
# second's while the first was judged.
for ahead in 1 0; do
  set +e
  RKT_START_AHEAD=$ahead RKT_SEED=11 RKT_EVAL_CACHE="$work/cache" "$rkt" eval \
    "$candidates/relu_honest.cpp" "$candidates/relu_crash.cpp" --json --timeout 60 \
    --out "$work/eval_$ahead" > "$work/eval_$ahead.jsonl" 2> "$work/eval_$ahead.log"
  code=$?
  set -e
  [ "$code" = 1 ] || fail "rkt eval (ahead=$ahead): exit $code, expected 1 (one file fails); $(tail -n 5 "$work/eval_$ahead.log")"
done
"$python" - "$work" <<'PY' || fail "rkt eval"
import json, sys
work = sys.argv[1]
def records(ahead):
    return {r["file"].rsplit("/", 1)[1]: r for r in map(json.loads, open(f"{work}/eval_{ahead}.jsonl"))}
ahead, fresh = records(1), records(0)
for name in ("relu_honest.cpp", "relu_crash.cpp"):
    a, f = ahead[name], fresh[name]
    print(name, a["verdict"], a["judge_started_ahead"], a["child_processes"], "|", f["verdict"],
          f["judge_started_ahead"], f["child_processes"])
    assert a["verdict"] == f["verdict"], name
    assert [c["status"] for c in a["cases"]] == [c["status"] for c in f["cases"]], name
    assert a["judge_started_ahead"] is True and f["judge_started_ahead"] is False, name
    assert a["child_processes"]["started_ahead"] == 1 and f["child_processes"]["started_ahead"] == 0, name
assert ahead["relu_honest.cpp"]["verdict"] == "pass" and ahead["relu_crash.cpp"]["verdict"] == "FAIL"
PY
! grep -q "started afresh\|starts afresh" "$work"/eval_1/libraries/*/judge.log || fail "a judge started ahead was handed another start's job"
echo "started ahead: rkt test, a crashing kernel and rkt eval give the records they give without"
