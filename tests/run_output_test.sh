#!/usr/bin/env bash
# What `rkt run` prints, on the CPU over a few cheap kernels:
# 1. In a log (not a terminal: CI, a pipe): what the run will judge and skip, up front
#    ("rkt run: judging 2 cpu kernels; skipping 1 cuda kernel: ..."); a line per finished case,
#    "rkt run: [i/N] task/kernel: case status, T" (issue 31: a long kernel said nothing for
#    minutes); one plain line per finished kernel, "rkt run: [i/N] task/kernel verdict (...) in T";
#    and no progress redraws.
# 2. On a terminal (a pseudo-terminal from script(1)): before each kernel, done/total, the
#    elapsed time and an estimate of the time left.
# 3. With RKT_SECRET_SEED and RKT_HIDDEN_SUITE set, neither value (the seed, the suite file's
#    path or its cases) appears in standard output, standard error or any file of the run folder.
# Usage: run_output_test.sh RKT KERNEL_FRAGMENT
set -euo pipefail
rkt="$1" fragment="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; cat "$work/log"; exit 1; }

# 1 and 3: a log, with secrets.
secret_seed=8675309123457
suite="$work/suite_path_marker_q7.txt"
printf 'dims relu B=3 N=4093\nscale 0.00731337\nrange -77.53125 78.28125\n' > "$suite"
RKT_SECRET_SEED=$secret_seed RKT_HIDDEN_SUITE="$suite" \
  "$rkt" run --kernel "$fragment" --out "$work/run" > "$work/log" 2> "$work/stderr" || [ $? = 1 ]
cat "$work/stderr" >> "$work/log"
kernels=$(grep -c "^rkt run: \[[0-9]*/[0-9]*\] .* in [0-9]" "$work/log" || true)
total=$(sed -n 's/^rkt run: \([0-9]*\) kernels, seed.*/\1/p' "$work/log")
[ -n "$total" ] && [ "$total" -ge 2 ] || fail "the run did not announce its kernels"
[ "$kernels" = "$total" ] || fail "$kernels lines for $total kernels"
! grep -q "estimate\|left$" "$work/log" || fail "terminal progress lines in a log"
grep -qE "^rkt run: judging [0-9]+ (cpu|cuda) kernels?( and [0-9]+ cuda kernels?)?(; skipping [0-9]+ cuda kernels?: .+)?$" "$work/log" \
  || fail "the run did not say up front what it judges and what it skips"
grep -qE "^rkt run: \[1/$total\] relu/[a-z_0-9]+: correctness_[a-z0-9_]+ passed, [0-9]+ s$" "$work/log" \
  || fail "no line for a finished case"
# A benchmark whose timing the cross-check refused (a machine loaded by other tests) ends
# "skipped"; its line is the same.
grep -qE "^rkt run: \[[0-9]+/$total\] relu/[a-z_0-9]+: benchmark (passed|skipped), [0-9]+ s$" "$work/log" \
  || fail "no line for a finished benchmark"
grep -q "hidden inputs: secret seed; hidden suite of 3 cases" "$work/log" || fail "hidden inputs not announced"
# A number is found as a whole number only: the measured times in the run folder may contain
# its digits (0.0704093 is not the dim 4093; N=4093, N4093 and 4093, are).
for secret in "$secret_seed" suite_path_marker_q7 4093 0.00731337 77.53125 78.28125; do
  pattern="(^|[^0-9.])${secret//./\\.}([^0-9]|$)"
  ! grep -qE -- "$pattern" "$work/log" || fail "the output reveals '$secret'"
  ! grep -rqE -- "$pattern" "$work/run" || fail "a file of the run folder reveals '$secret': $(grep -rlE -- "$pattern" "$work/run")"
done

# 2. A terminal (CI unset: in CI the run writes a log even on a terminal).
env -u CI script -qec "'$rkt' run --kernel '$fragment' --out '$work/tty_run'" /dev/null \
  > "$work/log" 2>&1 || [ $? = 1 ]
grep -q "^\[1/$total\] .*elapsed 0 s, estimate after the first kernel" "$work/log" \
  || fail "no first progress line on a terminal"
grep -q "^\[2/$total\] .*elapsed [0-9].*, about [0-9].* left" "$work/log" \
  || fail "no done/total, elapsed and estimate on a terminal"
echo "run output: $total kernels, one line each in a log, progress on a terminal, secrets kept"
