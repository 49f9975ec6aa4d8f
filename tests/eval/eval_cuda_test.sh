#!/usr/bin/env bash
# A .cu file goes through rkt eval's one path on a machine without a GPU: nvcc compiles it into a
# kernel library for the package's architecture (the visible GPU's where there is one), a worker
# loads it and describes its kernel, and the child judge skips its cases for want of a device
# (verdict skipped, exit 0); a .cu that does not compile gets compile_error with nvcc's message.
# On a GPU machine the same command judges and times the kernel (docs/gpu_runs.md). With two
# visible GPUs (CUDA_VISIBLE_DEVICES=0,1, real or not) two .cu files are judged side by side, each
# child judge shown its own GPU.
# Usage: eval_cuda_test.sh RKT CUDA_SOURCE COMPILE_ERROR_SOURCE PYTHON
set -euo pipefail
rkt="$1"; good="$2"; broken="$3"; python="$4"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
set +e
"$rkt" eval "$good" "$broken" --json --out "$work/run" > "$work/records" 2> "$work/log"
code=$?
set -e
[ "$code" = 1 ] || { cat "$work/log"; fail "exit $code, expected 1 (the broken file)"; }
"$python" - "$work/records" <<'PY' || { cat "$work/log"; exit 1; }
import json, sys
records = {json.loads(l)["file"].rsplit("/", 1)[-1]: json.loads(l) for l in open(sys.argv[1]) if l.strip()}
good = [r for name, r in records.items() if name.endswith(".cu") and r["status"] == "judged"]
assert len(good) == 1, records
good = good[0]
assert good["device"] == "cuda" and len(good["library_hash"]) == 32, good
assert good["verdict"] in ("skipped", "pass"), good["verdict"]  # skipped without a GPU
broken = records["softmax_compile_error.cu"]
assert broken["status"] == "compile_error", broken
assert broken["message"].startswith("softmax_compile_error.cu("), broken["message"]
assert "error" in broken["message"], broken["message"]
print("cuda: compiled, loaded and described (", good["verdict"], "); compile error reported")
PY

# Two GPUs: one child judge per GPU at a time.
sed 's/ROBUST_KERNEL_TEST(softmax, \([a-z_]*\),/ROBUST_KERNEL_TEST(softmax, \1_copy,/' "$good" > "$work/copy.cu"
grep -q "_copy," "$work/copy.cu" || fail "could not make a second CUDA file from $good"
CUDA_VISIBLE_DEVICES=0,1 "$rkt" eval "$good" "$work/copy.cu" --out "$work/two" > "$work/two.log" 2>&1 \
  || { cat "$work/two.log"; fail "two CUDA files on two GPUs failed"; }
grep -q "judging .* on GPU 0" "$work/two.log" && grep -q "judging .* on GPU 1" "$work/two.log" \
  || { cat "$work/two.log"; fail "the two files were not spread over the two GPUs"; }

# Judges sharing a GPU: --judges-per-gpu 2 on two GPUs starts four judges at once, two on each
# (before, one per GPU: the third file waited for the first); their benchmarks would take turns
# with the GPU alone (framework/timing/device_lease.h, tests/unit/device_lease_test.cpp).
for n in 3 4; do
  sed "s/ROBUST_KERNEL_TEST(softmax, \([a-z_]*\),/ROBUST_KERNEL_TEST(softmax, \1_copy$n,/" "$good" > "$work/copy$n.cu"
done
CUDA_VISIBLE_DEVICES=0,1 "$rkt" eval "$good" "$work/copy.cu" "$work/copy3.cu" "$work/copy4.cu" \
  --judges-per-gpu 2 --out "$work/four" > "$work/four.log" 2>&1 \
  || { cat "$work/four.log"; fail "four CUDA files, two judges on each of two GPUs, failed"; }
before_first_verdict="$(awk '/\[[0-9]+\/4\] / && !/ judging / { exit } { print }' "$work/four.log")"
[ "$(grep -c "judging .* on GPU 0" <<<"$before_first_verdict")" = 2 ] &&
  [ "$(grep -c "judging .* on GPU 1" <<<"$before_first_verdict")" = 2 ] \
  || { cat "$work/four.log"; fail "the four files were not judged two at a time on each GPU"; }
echo "judges per GPU: four files judged at once, two on each GPU"

