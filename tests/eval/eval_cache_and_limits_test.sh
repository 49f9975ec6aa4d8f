#!/usr/bin/env bash
# `rkt eval`'s cache key and its per-file time limit, each without judging an honest kernel (fast):
# 1. A header beside the source, and a header that header includes, are part of the library's key:
#    editing either compiles the file again (the compile error of the new text, not the cached one).
# 2. --file-timeout: a file whose judge is still running after the limit (relu_hang spins on the
#    x0.01 inputs; the case timeout is longer) gets a judge_timeout record that names the limit,
#    its judge's processes are gone, the next file of the batch is still judged, and a second call
#    into the same folder judges the timed-out file again (its record is not resumed).
# 3. RKT_EVAL_CACHE_MB: past the cache's limit the least recently used libraries are removed.
# 4. Bad values of --file-timeout and RKT_EVAL_CACHE_MB are usage errors naming them.
# 5. A SIGTERM of rkt eval ends the child judges it started (and so their workers).
# Usage: eval_cache_and_limits_test.sh RKT CANDIDATES_DIR PYTHON
set -euo pipefail
rkt="$1"; candidates="$2"; python="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
export RKT_SEED=20261202

# --- 1. Local headers in the key -------------------------------------------------------------
mkdir -p "$work/src/detail"
cat > "$work/src/relu_with_header.cpp" <<'CPP'
#include "relu_op.h"
#include "rkt/kernel.h"
namespace {
void relu_header(rkt::KernelCall& call) { relu_op(call); }
}  // namespace
ROBUST_KERNEL_TEST(relu, with_header, relu_header);
CPP
cat > "$work/src/relu_op.h" <<'CPP'
#pragma once
#include "detail/inner.h"
CPP
echo '#error first version of the inner header' > "$work/src/detail/inner.h"
status_and_message() {  # the one record's status, then its message's first line
  "$python" -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]; assert len(r)==1, r; print(r[0]["status"], r[0]["library_hash"]); print(r[0]["message"].splitlines()[0] if r[0]["message"] else "")' "$1"
}
set +e
"$rkt" eval "$work/src/relu_with_header.cpp" --json --out "$work/first" > "$work/first.jsonl" 2> "$work/first.log"
set -e
first="$(status_and_message "$work/first.jsonl")"
grep -q "^compile_error " <<<"$first" || { cat "$work/first.log"; fail "first version: $first"; }
grep -q "first version of the inner header" <<<"$first" || fail "first version's error not quoted: $first"
# Issue 31: "1 files", and "compiled 0 libraries" for a file that failed to compile.
grep -q "^rkt eval: 1 file, " "$work/first.log" || { cat "$work/first.log"; fail "not '1 file'"; }
grep -Eq "^rkt eval: compiled 0 libraries in .*; 1 file gave no library: compile_error$" "$work/first.log" \
  || { cat "$work/first.log"; fail "the compile line does not say the file failed"; }
# The same text again is served from the cache.
set +e
"$rkt" eval "$work/src/relu_with_header.cpp" --json --out "$work/again" > "$work/again.jsonl" 2> "$work/again.log"
set -e
grep -q "compiled 0 libraries" "$work/again.log" || { cat "$work/again.log"; fail "an unchanged file was compiled again"; }
# Edit the header two levels down: compiled again, with the new error.
echo '#error second version of the inner header' > "$work/src/detail/inner.h"
set +e
"$rkt" eval "$work/src/relu_with_header.cpp" --json --out "$work/second" > "$work/second.jsonl" 2> "$work/second.log"
set -e
second="$(status_and_message "$work/second.jsonl")"
grep -q "second version of the inner header" <<<"$second" ||
  { cat "$work/second.log"; fail "an edited included header was served from the cache: $second"; }
[ "$(head -n1 <<<"$first")" != "$(head -n1 <<<"$second")" ] || fail "the library hash did not change"
echo "local headers: an edit two includes down changed the key and was compiled"

# --- 2. --file-timeout ------------------------------------------------------------------------
cp "$candidates/relu_hang.cpp" "$candidates/relu_compile_error.cpp" "$work/src/"
start=$(date +%s)
set +e
# The hanging call is left to the reply timeout: its own bound (10 s) would end the kernel too.
RKT_HUNG_CALL_FACTOR=0 "$rkt" eval "$work/src/relu_hang.cpp" "$work/src/relu_compile_error.cpp" --json --out "$work/limited" \
  --timeout 120 --file-timeout 8 > "$work/limited.jsonl" 2> "$work/limited.log"
code=$?
set -e
elapsed=$(($(date +%s) - start))
[ "$code" = 1 ] || { cat "$work/limited.log"; fail "exit $code, expected 1"; }
# Well under the 120 s case timeout: the file's limit stopped the judge.
((elapsed < 90)) || fail "the batch took $elapsed s: the file limit did not stop the judge"
"$python" - "$work/limited.jsonl" <<'PY' || { cat "$work/limited.log"; exit 1; }
import json, sys
records = {json.loads(l)["file"].rsplit("/", 1)[-1]: json.loads(l) for l in open(sys.argv[1]) if l.strip()}
hang = records["relu_hang.cpp"]
assert hang["status"] == "judge_timeout", hang
assert "--file-timeout 8 s" in hang["message"] and "killed after" in hang["message"], hang["message"]
assert hang["verdict"] == "FAIL", hang
assert records["relu_compile_error.cpp"]["status"] == "compile_error", records
PY
# No process of that judge is left (the hanging worker spins: it would eat a core).
sleep 1
leftover="$(ps -eo pid,args | grep -F "$work/limited" | grep -v grep || true)"
[ -z "$leftover" ] || fail "processes of the killed judge are still running: $leftover"
library="$RKT_EVAL_CACHE/$("$python" -c 'import json,sys; print([r for r in map(json.loads, open(sys.argv[1])) if r["file"].endswith("relu_hang.cpp")][0]["library_hash"])' "$work/limited.jsonl").so"
[ -f "$library" ] || fail "no cached library at $library"
leftover="$(grep -lsF "$library" /proc/[0-9]*/maps 2>/dev/null || true)"
[ -z "$leftover" ] || fail "a process still has the hanging kernel's library loaded: $leftover"
# A second call judges the timed-out file again (and resumes the compile error).
set +e
"$rkt" eval "$work/src/relu_hang.cpp" "$work/src/relu_compile_error.cpp" --out "$work/limited" \
  --timeout 120 --file-timeout 5 > "$work/resumed.out" 2> "$work/resumed.log"
set -e
[ "$(grep -c 'judging ' "$work/resumed.out")" = 1 ] || { cat "$work/resumed.out"; fail "the timed-out file was not judged again"; }
grep -q "relu_hang.cpp  judge_timeout" "$work/resumed.out" || { cat "$work/resumed.out"; fail "no judge_timeout line"; }
echo "file timeout: judge_timeout after ${elapsed} s for the batch, nothing left running, judged again on resume"

# --- 3. The cache's size limit ------------------------------------------------------------------
# Three honest libraries of about 0.9 MiB each under a 2 MiB limit: the third file's call removes
# the least recently used one (the first), never the one it uses. --task softmax keeps the judges
# short (the relu kernels are not of that task: not_of_task). A bad limit is a usage error.
mkdir -p "$work/lru"
for name in first second third; do
  sed "s/ROBUST_KERNEL_TEST(relu, eval_honest,/ROBUST_KERNEL_TEST(relu, eval_$name,/" \
    "$candidates/relu_honest.cpp" > "$work/lru/relu_$name.cpp"
done
export RKT_EVAL_CACHE="$work/lru_cache" RKT_EVAL_CACHE_MB=2
hash_of() { "$python" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["library_hash"])' "$1"; }
for name in first second third; do
  set +e
  "$rkt" eval "$work/lru/relu_$name.cpp" --task softmax --json --out "$work/lru_$name" \
    > "$work/lru_$name.jsonl" 2> "$work/lru_$name.log"
  set -e
  [ -f "$RKT_EVAL_CACHE/$(hash_of "$work/lru_$name.jsonl").so" ] || { cat "$work/lru_$name.log"; fail "$name: no library"; }
  sleep 1  # distinct modification times
done
[ ! -f "$RKT_EVAL_CACHE/$(hash_of "$work/lru_first.jsonl").so" ] || fail "the least recently used library was kept"
[ -f "$RKT_EVAL_CACHE/$(hash_of "$work/lru_second.jsonl").so" ] || fail "the second library was removed"
grep -q "over its 2 MiB limit (RKT_EVAL_CACHE_MB): removed the 1 least recently used" "$work/lru_third.log" ||
  { cat "$work/lru_third.log"; fail "the pruning was not reported"; }
set +e
RKT_EVAL_CACHE_MB=lots "$rkt" eval "$work/lru/relu_first.cpp" > "$work/lru_bad.out" 2>&1
code=$?
set -e
[ "$code" = 2 ] && grep -qF "RKT_EVAL_CACHE_MB takes a whole number of MiB (0: no limit), not 'lots'" "$work/lru_bad.out" ||
  { cat "$work/lru_bad.out"; fail "RKT_EVAL_CACHE_MB=lots: exit $code"; }
unset RKT_EVAL_CACHE_MB
echo "cache limit: the least recently used library removed, the batch's own kept"

# --- 4. A bad --file-timeout is a usage error that names it -------------------------------------
set +e
"$rkt" eval "$work/src/relu_hang.cpp" --file-timeout soon > "$work/bad.out" 2>&1
code=$?
set -e
[ "$code" = 2 ] && grep -qF -- "--file-timeout takes a positive whole number, not 'soon'" "$work/bad.out" ||
  { cat "$work/bad.out"; fail "--file-timeout soon: exit $code"; }
echo "--file-timeout soon: refused with its reason"

# --- 5. A killed rkt eval ends its child judges -----------------------------------------------
# The child judge runs in a process group of its own (for --file-timeout), where a Ctrl-C or a
# kill of rkt eval does not reach it: rkt eval kills the groups of its running commands first.
mkdir -p "$work/term"
cp "$candidates/relu_hang.cpp" "$work/term/"
export RKT_EVAL_CACHE="$work/term_cache"
"$rkt" eval "$work/term/relu_hang.cpp" --timeout 120 --file-timeout 600 --out "$work/term_run" \
  > "$work/term.out" 2>&1 &
eval_pid=$!
for _ in $(seq 1 240); do grep -q "judging " "$work/term.out" && break; sleep 0.5; done
grep -q "judging " "$work/term.out" || { kill -KILL "$eval_pid"; cat "$work/term.out"; fail "the judge never started"; }
library="$(ls "$RKT_EVAL_CACHE"/*.so)"
for _ in $(seq 1 120); do grep -lsqF "$library" /proc/[0-9]*/maps 2>/dev/null && break; sleep 0.5; done
grep -lsqF "$library" /proc/[0-9]*/maps 2>/dev/null || { kill -KILL "$eval_pid"; fail "no worker ever loaded $library"; }
sleep 3  # into its cases (the x0.01 case spins until the 120 s case timeout)
kill -TERM "$eval_pid"
wait "$eval_pid" 2>/dev/null || true
sleep 2
leftover="$(grep -lsF "$library" /proc/[0-9]*/maps 2>/dev/null || true)"
[ -z "$leftover" ] || fail "a SIGTERM of rkt eval left processes running the kernel: $leftover"
echo "killed rkt eval: its child judge and workers are gone"
