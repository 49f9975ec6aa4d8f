#!/usr/bin/env bash
# `rkt eval` on a batch of CPU candidates for relu (tests/eval/candidates/), each with the verdict
# it must get, in one batch so that a crash, hang or cheat in one file is seen not to touch the
# others: honest passes with a benchmark; wrong at an edge, a shape-guard cheat, a crash and a hang
# fail on the case that exposes them; a compile error, a signature mismatch, no registration, an
# unknown task (with "did you mean"), a duplicate id and a library that crashes as it loads are
# failed records; an empty, a missing and
# an oversized file are failed records and make the exit code 2. Then: the JSON records, the run
# folder, a failure's replay command that replays it, the resume (a second call into the folder
# judges nothing again), exit codes 1 and 0, and the usage errors.
# Usage: eval_candidates_test.sh RKT CANDIDATES_DIR PYTHON
set -euo pipefail
rkt="$1"; candidates="$2"; python="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
export RKT_SEED=20261201

# A file over the size limit (1 MiB, eval_defaults.h): a comment of 1.1 MB.
{ echo "// too large"; head -c 1100000 /dev/zero | tr '\0' 'x'; echo; } > "$work/relu_too_large.cpp"

# The honest file again under another name: two files registering one id (relu/eval_honest) are
# told apart in the run folder by their stems; every other kernel keeps its registered id.
cp "$candidates/relu_honest.cpp" "$work/relu_honest_again.cpp"

set +e
"$rkt" eval "$candidates"/*.cpp "$work/relu_honest_again.cpp" "$work/relu_too_large.cpp" "$work/missing.cpp" --json \
  --out "$work/run" --timeout 10 > "$work/records" 2> "$work/log"
code=$?
set -e
[ "$code" = 2 ] || { cat "$work/log"; fail "the batch exited $code, expected 2 (bad files in it)"; }
for file in results.json report.md report.html eval.jsonl; do
  [ -s "$work/run/$file" ] || fail "the run folder lacks $file"
done

"$python" - "$work/records" "$work/run/results.json" <<'PY' || { cat "$work/log"; exit 1; }
import json, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by_file = {}
for record in records:
    by_file.setdefault(record["file"].rsplit("/", 1)[-1], []).append(record)
def one(name):
    assert name in by_file, f"no record for {name}: {sorted(by_file)}"
    assert len(by_file[name]) == 1, f"{name}: {len(by_file[name])} records"
    return by_file[name][0]
def failed_cases(record):
    return [c for c in record["cases"] if c["status"] in ("failed", "crashed")]

honest = one("relu_honest.cpp")
assert honest["status"] == "judged" and honest["verdict"] == "pass", honest
# Timed, unless the judge refused its timing because this machine was overloaded (the worker's
# times cross-checked against the judge's clock: a ctest -j on two cores can do that).
if honest["benchmark"]["measured"]:
    assert honest["benchmark"]["median_ms"] > 0, honest["benchmark"]
    assert "eager_fp32" in honest["benchmark"]["speedups"], honest["benchmark"]
    speedup = honest["benchmark"]["speedups"]["eager_fp32"]
    assert speedup["low"] <= speedup["ratio"] <= speedup["high"], speedup
else:
    assert "timing refused" in honest["benchmark"]["problem"], honest["benchmark"]
    print("note: the honest kernel's timing was refused (machine load):", honest["benchmark"]["problem"][:200])
assert len(honest["library_hash"]) == 32, honest["library_hash"]
assert all(c["status"] == "passed" for c in honest["cases"]), honest["cases"]

for name, exposing in [("relu_wrong_edge.cpp", "correctness_"), ("relu_cheat_shape_guard.cpp", "property_shapes"),
                       ("relu_crash.cpp", "correctness_x0_01"), ("relu_hang.cpp", "correctness_x0_01")]:
    record = one(name)
    assert record["status"] == "judged" and record["verdict"] == "FAIL", (name, record["verdict"])
    assert not record["benchmark"]["measured"], f"{name}: a failing kernel was timed"
    names = [c["name"] for c in failed_cases(record)]
    assert any(exposing in n for n in names), (name, names)
    assert record["first_failure"]["reproduce"].startswith("RKT_KERNEL_LIBRARY="), record["first_failure"]
crash = one("relu_crash.cpp")
assert "signal 11" in crash["first_failure"]["message"], crash["first_failure"]["message"]
hang = one("relu_hang.cpp")
assert hang["first_failure"]["status"] == "crashed" and "killed (hang)" in hang["first_failure"]["message"], hang["first_failure"]
# The crash is confined to the cases that trigger it: the rest of its file passed. The hang fails
# fast: the cases before it passed, every case after it is not run, saying which case hung.
assert sum(c["status"] == "passed" for c in crash["cases"]) >= 10, crash["cases"]
after = hang["cases"][[c["name"] for c in hang["cases"]].index(hang["first_failure"]["case"]) + 1:]
assert after and all(c["status"] == "skipped" for c in after), after
assert sum(c["status"] == "passed" for c in hang["cases"]) >= 1, hang["cases"]

expected = {
    "relu_compile_error.cpp": ("compile_error", "relu_compile_error.cpp:8:10: error:"),
    "relu_signature_mismatch.cpp": ("signature_mismatch", "relu_signature_mismatch.cpp:"),
    "relu_no_registration.cpp": ("no_registration", "registers no kernel"),
    "relu_unknown_task.cpp": ("unknown_task", "did you mean 'relu'?"),
    "relu_duplicate.cpp": ("duplicate_kernel", "'relu/eval_twice' is registered twice"),
    "relu_load_crash.cpp": ("load_error", "signal 11"),
    "empty.cpp": ("empty_file", "empty"),
    "relu_too_large.cpp": ("file_too_large", "over the limit of 1048576 bytes"),
    "missing.cpp": ("missing_file", "no such file"),
}
for name, (status, text) in expected.items():
    record = one(name)
    assert record["status"] == status and record["verdict"] == "FAIL", (name, record)
    assert text in record["message"], (name, record["message"])
# Paths relative to the file: the compiler ran on the bare name, never the folder.
assert "/" not in one("relu_compile_error.cpp")["message"].split(":")[0]

results = json.load(open(sys.argv[2]))
assert results["finished"] is True
verdicts = {k["kernel"]: k["verdict"] for k in results["kernels"]}
# One name per kernel: its registered id, which its messages and replay commands use; a file
# prefix only where two files register the same id; a file without kernels under its stem.
assert verdicts["relu_honest:eval_honest"] == "pass", verdicts
assert verdicts["relu_honest_again:eval_honest"] == "pass", verdicts
assert verdicts["eval_wrong_edge"] == "FAIL" and verdicts["eval_hang"] == "FAIL", verdicts
assert not any(k.endswith(":eval_wrong_edge") for k in verdicts), verdicts
assert verdicts["relu_compile_error"] == "FAIL", verdicts
assert len(results["kernels"]) == len(records), (len(results["kernels"]), len(records))
# The candidates are view-form kernels: each judged file's worker ran without LibTorch.
import glob, os
isolation = [json.load(open(path))["isolation"]
             for path in glob.glob(os.path.join(os.path.dirname(sys.argv[2]), "libraries", "*", "results.json"))]
assert len(isolation) >= 4, isolation
assert all("no LibTorch in the worker" in text for text in isolation if "worker sandbox" in text), isolation
assert any("no LibTorch in the worker" in text for text in isolation), isolation
print(f"batch: {len(records)} records as expected")
PY

# The wrong kernel's replay command replays its failing case with the same library.
reproduce="$("$python" -c '
import json, sys
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record["file"].endswith("relu_wrong_edge.cpp"): print(record["first_failure"]["reproduce"])
' "$work/records")"
set +e
bash -c "$reproduce" > "$work/replay" 2>&1
code=$?
set -e
[ "$code" = 1 ] || { cat "$work/replay"; fail "the replay exited $code, expected 1: $reproduce"; }
grep -q "FAILED" "$work/replay" || { cat "$work/replay"; fail "the replay did not fail the case"; }
# The run folder's report.md prints the same command for that case, library included (before:
# "RKT_SEED=... build/bin/rkt test --filter '...'", which said "no test case matched the filter").
case_name="$("$python" -c '
import json, sys
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record["file"].endswith("relu_wrong_edge.cpp"): print(record["first_failure"]["case"])
' "$work/records")"
grep -qF -- "- replay: \`$reproduce\`" "$work/run/report.md" \
  || { grep -n "replay" "$work/run/report.md"; fail "report.md does not print the replay of $case_name: $reproduce"; }

# Resume: the same files into the same folder judge nothing again (libraries from the cache, and
# records from eval.jsonl), and give the same verdicts; honest alone exits 0, with a failure 1.
set +e
"$rkt" eval "$candidates/relu_honest.cpp" "$candidates/relu_wrong_edge.cpp" --out "$work/run" \
  > "$work/resumed" 2>&1
code=$?
set -e
[ "$code" = 1 ] || { cat "$work/resumed"; fail "the resumed batch exited $code, expected 1"; }
[ "$(grep -c 'resumed: judged before with this library' "$work/resumed")" = 2 ] \
  || { cat "$work/resumed"; fail "the second call did not resume both files"; }
! grep -q "judging " "$work/resumed" || { cat "$work/resumed"; fail "the second call judged again"; }
grep -q "compiled 0 libraries" "$work/resumed" || { cat "$work/resumed"; fail "the second call compiled again"; }
"$rkt" eval "$candidates/relu_honest.cpp" --out "$work/run" > "$work/honest" 2>&1 \
  || { cat "$work/honest"; fail "honest alone did not exit 0"; }

# --recheck 1: the fastest passing kernel (the honest one, resumed) judged again by a child judge
# of its own with a fresh secret seed; the record keeps both judgements. On a loaded machine the
# second timing may be refused, which is a disagreement (nothing confirmed the first): exit 1.
set +e
"$rkt" eval "$candidates/relu_honest.cpp" "$candidates/relu_wrong_edge.cpp" --out "$work/run" --recheck 1 \
  --json > "$work/rechecked" 2> "$work/recheck_log"
code=$?
set -e
"$python" - "$work/rechecked" "$code" "$work/run" <<'PY' || { cat "$work/recheck_log"; exit 1; }
import json, os, sys
records = {json.loads(l)["file"].rsplit("/", 1)[-1]: json.loads(l) for l in open(sys.argv[1]) if l.strip()}
code, run = int(sys.argv[2]), sys.argv[3]
assert set(records) == {"relu_honest.cpp", "relu_wrong_edge.cpp"}, records.keys()  # each printed once
assert records["relu_wrong_edge.cpp"]["recheck"] is None  # failed: not a candidate
honest = records["relu_honest.cpp"]
if not honest["benchmark"]["measured"]:
    assert honest["recheck"] is None, honest["recheck"]  # not timed: nothing to recheck
    print("note: the honest kernel's first timing was refused (load); nothing to recheck")
    sys.exit(0)
second = honest["recheck"]
assert second is not None, honest
assert second["seed"] == "a fresh secret seed (withheld)", second
assert os.path.exists(os.path.join(run, "libraries", honest["library_hash"], "recheck", "results.json"))
summary = json.load(open(os.path.join(run, "libraries", honest["library_hash"], "recheck", "results.json")))
assert "secret seed" in json.dumps(summary.get("hidden_inputs", "")), summary.get("hidden_inputs")
if second["agrees"]:
    assert second["verdict"] == "pass" and second["median_ms"] > 0 and honest["verdict"] == "pass", second
    assert code == 1, code  # wrong_edge still fails the batch
else:
    # Only the load may make an honest kernel disagree: its timing refused or drifted.
    assert "could not be taken again" in second["disagreement"] or "slower beyond noise" in second["disagreement"], second
    assert honest["verdict"] == "FAIL", honest
    print("note: the recheck disagreed under load:", second["disagreement"][:200])
PY

# Each child judge's log holds its own progress lines, and no worker of it died of a message that
# was not a request (its standard output once went to its worker's socket: the worker died of
# "protocol error: not a request message" and was started again, in every judge).
honest_log="$(ls "$work"/run/libraries/*/judge.log | head -n 1)"
for log in "$work"/run/libraries/*/judge.log; do
  ! grep -q "protocol error" "$log" || { cat "$log"; fail "$log: a worker died of a protocol error"; }
done
grep -q "^rkt run: " "$work"/run/libraries/*/judge.log \
  || { cat "$honest_log"; fail "the child judges' progress lines are not in their logs"; }

# Usage errors: exit 2 with a message naming what was wrong.
usage() {
  local message="$1"; shift
  set +e
  "$rkt" "$@" > "$work/out" 2>&1
  local code=$?
  set -e
  [ "$code" = 2 ] || { cat "$work/out"; fail "'$*' exited $code, expected 2"; }
  grep -qF -- "$message" "$work/out" || { cat "$work/out"; fail "'$*' did not say: $message"; }
}
usage "eval needs at least one kernel source file" eval
usage "unknown task 'rleu'; did you mean 'relu'?" eval "$candidates/relu_honest.cpp" --task rleu
usage "--jobs takes a positive whole number, not '0'" eval "$candidates/relu_honest.cpp" --jobs 0
usage "--timeout takes a positive whole number, not 'soon'" eval "$candidates/relu_honest.cpp" --timeout soon
usage "eval: unknown option '--kernel'" eval "$candidates/relu_honest.cpp" --kernel relu
usage "--recheck takes a positive whole number, not 'x'" eval "$candidates/relu_honest.cpp" --recheck x
usage "--recheck does not go with --server" eval "$candidates/relu_honest.cpp" --server /tmp/none.sock --recheck 1
echo "eval: batch verdicts, replay, resume and usage errors as expected"
