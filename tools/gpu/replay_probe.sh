#!/usr/bin/env bash
# One lease's probes after tools/gpu/run.sh has built /tmp/rkt-build (RKT_GPU_STEPS=none):
# run 35's failure replayed with the shared-buffer pool off and on, and the crash candidate of the
# eval batch judged alone, each case's phases kept (results.json). Every step has its own timeout.
set -uo pipefail
out="${OUT:?}"
parts=" ${RKT_PROBE_PARTS:-replay crash trace} "  # which of the three parts run
# RKT_REPLAY_POOLS (default "0 1"): the pool settings of the replay; RKT_CRASH_AHEAD (default
# "1 0"): the crash candidate with its judge started ahead, not, or both.
export LD_LIBRARY_PATH="/tmp/rkt-deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
rkt=/tmp/rkt-build/bin/rkt
seed="${RKT_REPLAY_SEED:-977250081089}"
case_filter="${RKT_REPLAY_FILTER:-attention_causal_bf16_backward/cuda_flash_backward.property_scale}"
if [[ "$parts" == *" replay "* ]]; then
for pool in ${RKT_REPLAY_POOLS:-0 1}; do
  start=$(date +%s.%N)
  RKT_SHARED_BUFFER_POOL=$pool RKT_SEED=$seed timeout 120 "$rkt" test --filter "$case_filter" --json \
    >"$out/replay_pool$pool.json" 2>"$out/replay_pool$pool.err"
  echo "replay pool=$pool exit=$? $(python3 -c "import time;print(round(time.time()-$start,2))") s" | tee -a "$out/probe_summary.txt"
done
start=$(date +%s.%N)
RKT_SEED=$seed timeout 120 "$rkt" test --kernel "${case_filter%.*}" --json >"$out/replay_kernel.json" 2>"$out/replay_kernel.err"
echo "replay whole kernel exit=$? $(python3 -c "import time;print(round(time.time()-$start,2))") s" | tee -a "$out/probe_summary.txt"
# The twin kernel (the other format) under the same seed.
twin="${RKT_REPLAY_TWIN:-attention_causal_fp16_backward/cuda_flash_backward}"
start=$(date +%s.%N)
RKT_SEED=$seed timeout 120 "$rkt" test --kernel "$twin" --json >"$out/replay_twin.json" 2>"$out/replay_twin.err"
echo "replay twin $twin exit=$? $(python3 -c "import time;print(round(time.time()-$start,2))") s" | tee -a "$out/probe_summary.txt"
fi
if [[ "$parts" == *" crash "* ]]; then
python3 tools/eval_batch/make_candidates.py /tmp/cands --count 30 --device cuda >/dev/null
for candidate in /tmp/cands/relu_batch_29_crash_at_benchmark_size.cu; do
  for ahead in ${RKT_CRASH_AHEAD:-1 0}; do
    start=$(date +%s.%N)
    RKT_START_AHEAD=$ahead timeout 200 "$rkt" eval "$candidate" --json --out "/tmp/crash_eval_$ahead" \
      >"$out/crash_ahead$ahead.jsonl" 2>"$out/crash_ahead$ahead.err"
    echo "crash candidate ahead=$ahead exit=$? $(python3 -c "import time;print(round(time.time()-$start,2))") s" | tee -a "$out/probe_summary.txt"
    find "/tmp/crash_eval_$ahead" -name results.json -exec cp {} "$out/crash_results_ahead$ahead.json" \; 2>/dev/null
  done
done
fi
# Each call's time, call by call (RKT_CALL_TRACE), with each case's phases (--json).
[[ "$parts" == *" trace "* ]] &&
for kernel in ${RKT_TRACE_KERNELS:-relu/cuda_grid_stride softmax/cuda_rowwise matmul/cuda_tf32x3 rkb_llama_ffw/cuda_tf32x3}; do
  name="${kernel//\//_}"
  start=$(date +%s.%N)
  RKT_CALL_TRACE="$out/trace_$name.tsv" timeout 90 "$rkt" test --kernel "$kernel" --json >"$out/cases_$name.json" 2>"$out/cases_$name.err"
  echo "traced $kernel exit=$? $(python3 -c "import time;print(round(time.time()-$start,2))") s" | tee -a "$out/probe_summary.txt"
done
