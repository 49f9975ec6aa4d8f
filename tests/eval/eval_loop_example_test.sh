#!/usr/bin/env bash
# examples/eval_loop/eval_loop.py on its candidates: the kernel that forgets its tail is not
# ranked, the plain loop is, the ranking is sorted by the speedup interval's low end, and a second
# round with a generator (which adds one more candidate) judges only the new file.
# Usage: eval_loop_example_test.sh RKT PYTHON EXAMPLE_DIR
set -euo pipefail
rkt="$1"; python="$2"; example="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
cp -r "$example/candidates" "$work/candidates"
# The generator of round 2: copies the plain loop under a new name and kernel id.
cat > "$work/generate.sh" <<'GEN'
#!/bin/sh
[ -s "$2" ] || exit 1  # the last round's records
sed 's/ROBUST_KERNEL_TEST(relu, loop,/ROBUST_KERNEL_TEST(relu, loop_again,/' "$1/relu_loop.cpp" > "$1/relu_loop_again.cpp"
GEN
chmod +x "$work/generate.sh"
"$python" "$example/eval_loop.py" --rkt "$rkt" --task relu "$work/candidates" --out "$work/run" \
  --timeout 30 --rounds 2 --generate "$work/generate.sh" > "$work/out" 2> "$work/log" \
  || { cat "$work/out" "$work/log"; fail "eval_loop.py failed"; }
cat "$work/out"
round1="$(sed -n '/^round 1/,/^round 2/p' "$work/out")"
round2="$(sed -n '/^round 2/,$p' "$work/out")"
grep -q "relu_loop.cpp / loop" <<<"$round1" || fail "round 1 did not rank the plain loop"
sed -n '/not ranked/,$p' <<<"$round1" > "$work/round1_not_ranked"
grep -q "relu_skips_tail.cpp" "$work/round1_not_ranked" || fail "the tail-skipping kernel was ranked"
grep -q "relu_loop_again.cpp / loop_again" <<<"$round2" \
  || { grep loop_again "$work/run/eval.jsonl"; fail "round 2 did not rank the generated file"; }
"$python" - "$work/out" <<'PY'
import re, sys
lows = [float(m) for m in re.findall(r"^\s+\d+\s+[\d.]+x \[([\d.]+),", open(sys.argv[1]).read().split("round 2")[0], re.M)]
assert lows == sorted(lows, reverse=True), lows
PY
# Round 2 judged the new file only: the others were resumed.
[ "$(grep -c 'judging ' "$work/log")" = 5 ] || { cat "$work/log"; fail "round 2 judged more than the new file"; }
echo "eval_loop example: ranked, skips_tail refused, round 2 judged only the new candidate"
