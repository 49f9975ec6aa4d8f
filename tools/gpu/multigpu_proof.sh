#!/usr/bin/env bash
# Issue 23's proof on a host with several GPUs, in one call (tools/gpu/run.sh step "multigpu"):
#   1. ctest's CUDA groups under the resource spec on every GPU, against one GPU; no two tests
#      shared a GPU (check_gpu_sharing.py); the wall-time ratio (goal: at most 0.6 on two GPUs).
#   2. rkt run --shard I/N, one shard per GPU, merged with rkt merge, against the unsharded run on
#      one GPU: the same verdicts, medians within their intervals.
#   3. rkt eval over CUDA sources: the kernels spread across the GPUs, one child judge per GPU.
#   4. rkt baselines --shard I/N, one per GPU, records merged, against the table on one GPU.
# Usage: multigpu_proof.sh BUILD OUT. Limits (s): RKT_MULTIGPU_RUN_LIMIT (each run, 240),
# RKT_MULTIGPU_BASELINE_TASKS (the tables' --task, default a dozen tasks).
set -uo pipefail
build="$1" out="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rkt="$build/bin/rkt"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
echo "GPUs: $gpus"
[ "$gpus" -ge 2 ] || echo "fewer than two GPUs: the split halves below run on one"
limit="${RKT_MULTIGPU_RUN_LIMIT:-240}"
seconds_since() { echo $(($(date +%s) - $1)); }

# 1. ctest with the resource spec.
bash "$here/ctest_resources.sh" >"$out/resources.json"
label="${RKT_MULTIGPU_LABEL:-correctness}"
start=$(date +%s)
ctest --test-dir "$build" -V -R cuda -L "$label" --resource-spec-file "$out/resources.json" \
  -j "$gpus" >"$out/ctest_cuda_${gpus}gpus.log" 2>&1
code=$? all_gpus=$(seconds_since "$start")
echo "1. ctest -R cuda -L $label on $gpus GPUs: exit $code, $all_gpus s"
python3 "$here/check_gpu_sharing.py" "$out/ctest_cuda_${gpus}gpus.log" | tail -n 4
start=$(date +%s)
CUDA_VISIBLE_DEVICES=0 ctest --test-dir "$build" -R cuda -L "$label" -j 1 >"$out/ctest_cuda_1gpu.log" 2>&1
code=$? one_gpu=$(seconds_since "$start")
echo "   on 1 GPU: exit $code, $one_gpu s; ratio $(python3 -c "print(round($all_gpus / max($one_gpu, 1), 2))") (goal <= 0.6)"

# 2. The main job in shards, one per GPU, against the whole run on one GPU.
start=$(date +%s)
for ((i = 1; i <= gpus; i++)); do
  CUDA_VISIBLE_DEVICES=$((i - 1)) timeout "$limit" "$rkt" run --kernel cuda --shard "$i/$gpus" \
    --out "$out/shard_$i" >"$out/shard_$i.log" 2>&1 &
done
wait
shards=()
for ((i = 1; i <= gpus; i++)); do shards+=("$out/shard_$i"); done
"$rkt" merge --out "$out/merged" "${shards[@]}" >"$out/merge.log" 2>&1
code=$?
echo "2. rkt run --kernel cuda in $gpus shards: $(seconds_since "$start") s, merge exit $code"
start=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout "$limit" "$rkt" run --kernel cuda --out "$out/whole" >"$out/whole.log" 2>&1
echo "   unsharded on 1 GPU: exit $?, $(seconds_since "$start") s"
python3 "$here/check_split_equals_whole.py" run "$out/merged/results.json" "$out/whole/results.json" | tail -n 12

# 3. rkt eval over the shipped CUDA sources: one child judge per GPU at a time.
start=$(date +%s)
timeout "$limit" "$rkt" eval kernels/cuda/relu.cu kernels/cuda/softmax.cu kernels/cuda/rmsnorm.cu \
  kernels/cuda/sum_dim.cu --out "$out/eval" >"$out/eval.log" 2>&1
echo "3. rkt eval of 4 CUDA files: exit $?, $(seconds_since "$start") s; GPUs used:" \
  "$(grep -o 'on GPU [0-9]*' "$out/eval.log" | sort | uniq -c | tr '\n' ';')"

# 4. The baseline table in shards, one per GPU, against the table on one GPU.
tasks="${RKT_MULTIGPU_BASELINE_TASKS:-relu,softmax,layernorm,sum_dim,kb_l1_001,kb_l1_019,kb_l1_023,kb_l1_033,kb_l1_040,kb_l2_012,kb_l2_040,kb_l2_076}"
start=$(date +%s)
for ((i = 1; i <= gpus; i++)); do
  CUDA_VISIBLE_DEVICES=$((i - 1)) timeout "$limit" "$rkt" baselines --device cuda --task "$tasks" \
    --shard "$i/$gpus" --out "$out/baselines_$i" >"$out/baselines_$i.log" 2>&1 &
done
wait
mkdir -p "$out/baselines_merged/baselines"
for ((i = 1; i <= gpus; i++)); do cp "$out/baselines_$i"/baselines/*.record "$out/baselines_merged/baselines/"; done
cp "$out/baselines_1/peaks_cuda.txt" "$out/baselines_merged/" 2>/dev/null
CUDA_VISIBLE_DEVICES=0 "$rkt" baselines --device cuda --task "$tasks" --out "$out/baselines_merged" \
  >"$out/baselines_merged.log" 2>&1
echo "4. rkt baselines in $gpus shards + merge: $(seconds_since "$start") s"
start=$(date +%s)
CUDA_VISIBLE_DEVICES=0 timeout "$limit" "$rkt" baselines --device cuda --task "$tasks" \
  --out "$out/baselines_whole" >"$out/baselines_whole.log" 2>&1
echo "   one GPU: exit $?, $(seconds_since "$start") s"
python3 "$here/check_split_equals_whole.py" baselines "$out/baselines_merged/results.json" \
  "$out/baselines_whole/results.json" | tail -n 12
# Keep what comes back small.
find "$out" -name baselines -type d -prune -exec rm -rf {} + 2>/dev/null
find "$out" -name '*.html' -delete 2>/dev/null
