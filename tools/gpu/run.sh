#!/usr/bin/env bash
# Configures, builds, tests and runs the main job on a GPU machine in one go (GPU time is
# scarce). Needs .gpu-deps/ from tools/gpu/fetch_deps.sh and a python3 with a CUDA torch.
# Writes every log under ${OUT:-gpu-out}/ and prints a short table last.
#
#   bash tools/gpu/run.sh [ctest-regex]
#   RKT_GPU_STEPS="ctest repeats aoti main" (default: all four) chooses what runs after the build;
#   "inprocess" (not in the default) reruns the CUDA ctest cases with RKT_ISOLATION=in-process,
#   "main_inprocess" the main job, to measure what isolation costs;
#   RKT_MAIN_KERNELS=ID passes --kernel ID to the main job (e.g. "cuda" for the CUDA kernels);
#   "faults" runs the fault-containment and stream tests (rkt_selftest) on the GPU;
#   "sanitize" runs tools/gpu/sanitize.sh (compute-sanitizer over the CUDA kernels);
#   "property" times the CUDA property cases per kernel (ctest -L property -L cuda);
#   "speed" times `rkt test` per CUDA kernel (tools/gpu/speed_summary.py; RKT_SPEED_MATCH and
#   RKT_SPEED_EXCLUDE, extended regexes over the ids, choose them), "edit" an edit-rebuild-
#   test loop on softmax.cu, "selftest_gpu" the unit tests that need the GPU; "worker_start" a
#   worker of a LibTorch-linked CUDA library started three ways, with the abort report (run 42;
#   since the plugin-first order for such libraries, the RKT_LIGHT_WORKER=0 variant equals the default);
#   "bounds" the CUDA bounds adversaries (issue 19) and the sanitizer cases' cost per kernel;
#   "exploits" issue 28's GPU adversaries (late work, reads past the end at ragged dims, L2
#   persistence), the outputs-final check's cost, and initcheck on an honest kernel, watched;
#   "eval" issue 21's targets: one CUDA file through `rkt eval` cold and cached, then a batch of
#   RKT_EVAL_BATCH_COUNT (default 50) generated relu kernels, a third wrong or cheating
#   (tools/eval_batch/eval_batch.sh: timed from a cold cache, compared with the same files as a suite;
#   RKT_EVAL_ONLY=1 skips the suite);
#   "serve" issue 29's server figure: `rkt serve` on the GPU, one CUDA file through
#   tools/rkt_serve_client.py (cold, then cached: every case and the benchmark), and
#   `rkt eval --server` on the generated batch beside `rkt eval` on the same files;
#   "lpcheck" the standalone check of the bf16/fp16 kernel headers (attention forward and backward,
#   the GEMM, the row kernels) against float64, with CUDA-event timings (not rkt's verdict);
#   "warm" judges started ahead against not (RKT_START_AHEAD=0/1): rkt eval of one file cached
#   and new, rkt test of one kernel, rkt serve from the Python client, alternating, RKT_WARM_REPS
#   times each (default 3; the server one more);
#   "batch_ab" the generated batch (RKT_EVAL_BATCH_COUNT files, default 24) judged from a primed
#   library cache with judges started ahead and not (RKT_START_AHEAD=1/0), RKT_AB_JUDGES
#   (default 4) judges on the GPU, each pass within RKT_AB_LIMIT s (default 160);
#   "buffer_pool" RKT_POOL_KERNELS' whole case sets under RKT_POOL_SETTINGS (pool0, pool1,
#   pool1_slabs1: RKT_SHARED_BUFFER_POOL and RKT_SHARED_DEVICE_SLABS), each case's phases
#   (tools/gpu/buffer_pool_summary.py), within RKT_POOL_LIMIT s (default 300);
#   "startup" where a verdict's start-up goes (a judge process alone, with a worker, one case of a
#   CPU and of a CUDA kernel) and RKT_STARTUP_KERNELS' case sets with the slabs off and on;
#   "phase_bench" the judge's phases one operation at a time (rkt_phase_benchmarks: drawing an
#   input each way the counter laws can be computed, check_output; RKT_PHASE_ELEMENTS, default
#   64 Mi elements), within RKT_PHASE_BENCH_LIMIT s (default 120);
#   "shard_hang" watches `rkt run --kernel cuda` as RKT_SHARD_HANG_SHARDS (4) shards on one GPU
#   for RKT_SHARD_HANG_LIMIT s (100): threads' wait channels, file locks and stacks at
#   RKT_SHARD_HANG_AT s (50), then each shard's progress;
#   "memprobe" memcheck on a plain program that writes one past a buffer (tools/gpu/memcheck_probe.cu),
#   outside rkt, and whether the CUDA debugger back-end is there;
#   "sanidiag" why a sanitized worker stops answering after memcheck's finding (runs 22, 41, 43:
#   every kernel that reads or writes past an allocation costs its case timeout, and holds the
#   GPU's lease meanwhile): relu/cuda_reads_past_end's memcheck case with the refused system
#   calls named, then without seccomp, without the empty root, and without both, RKT_SANIDIAG_CASE
#   s each (default 20), the threads' state sampled 6 s in (and their stacks, in the first);
#   "multigpu" runs issue 23's proof (tools/gpu/multigpu_proof.sh): ctest on every GPU against one,
#   run and baseline shards per GPU against the whole, and rkt eval spread over the GPUs.
set -uo pipefail
steps="${RKT_GPU_STEPS:-ctest repeats aoti main}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${OUT:-$repo_root/gpu-out}"
mkdir -p "$out"
cd "$repo_root"
deps=/tmp/rkt-deps
mkdir -p "$deps"
for f in .gpu-deps/*.deb; do dpkg -x "$f" "$deps"; done
export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
torch_prefix="$(python3 -W ignore -c 'import torch; print(torch.utils.cmake_prefix_path)')"
export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -n 2
  python3 -W ignore -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  echo "command: bash tools/gpu/run.sh $*"
} | tee "$out/machine.txt"

build=/tmp/rkt-build
start=$(date +%s)
cmake -S . -B "$build" -DCMAKE_PREFIX_PATH="$torch_prefix;$deps/usr" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 ||
  { tail -n 40 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { tail -n 60 "$out/build.log"; exit 1; }
echo "configure + build: $(($(date +%s) - start)) s"

# The shipped CUDA kernels' ids ("task/kernel"), one per line.
cuda_kernel_ids() {
  "$build/bin/rkt" list --json | python3 -c 'import json,sys
for k in json.load(sys.stdin)["kernels"]:
    if k["device"] == "cuda": print(k["task"] + "/" + k["id"])'
}

if [[ " $steps " == *" slabs "* ]]; then
  # One kernel's cases with the GPU's shared buffers in their own allocations (0) and carved out
  # of slabs (1): framework/isolation/slab_allocator.h.
  for setting in 0 1; do
    start=$(date +%s)
    RKT_SHARED_DEVICE_SLABS=$setting timeout "${RKT_SLABS_LIMIT:-45}" "$build/bin/rkt" test \
      --kernel relu/cuda_grid_stride --timeout 20 >"$out/slabs_$setting.log" 2>&1
    echo "relu/cuda_grid_stride, RKT_SHARED_DEVICE_SLABS=$setting: exit $?, $(($(date +%s) - start)) s"
    grep -E "^\[ +(OK|FAILED) +\]|crashed|passed,|hang|rror" "$out/slabs_$setting.log" | tail -n 12
  done
fi
if [[ " $steps " == *" startup "* ]]; then
  # Where a verdict's start-up goes, three times each: a judge process alone (LibTorch and the
  # registries: `rkt catalog`), one that also starts a worker on the kernel library (`rkt list`),
  # one case of a CPU kernel and of a CUDA kernel (`rkt test`: the supervisor, its worker, a child),
  # and RKT_STARTUP_KERNELS' whole case sets with the slabs off and on (per-case times in JSON).
  mkdir -p "$out/startup"
  seconds_of() {
    local t0 code
    t0=$(date +%s.%N)
    timeout 120 "$@" >>"$out/startup/commands.log" 2>&1
    code=$?
    python3 -c "import time; print('exit $code', round(time.time() - $t0, 2))"
  }
  for i in 1 2 3; do
    echo "catalog: $(seconds_of "$build/bin/rkt" catalog)" | tee -a "$out/startup/times.txt"
    echo "list: $(seconds_of "$build/bin/rkt" list)" | tee -a "$out/startup/times.txt"
    for kernel in relu/cpu_loops relu/cuda_grid_stride; do
      echo "test $kernel correctness_x1: $(seconds_of "$build/bin/rkt" test --kernel "$kernel" \
        --filter '*correctness_x1')" | tee -a "$out/startup/times.txt"
    done
  done
  for kernel in ${RKT_STARTUP_KERNELS:-relu/cuda_grid_stride rkb_llama_ffw/cuda_tf32x3}; do
    for setting in 0 1; do
      name="$(echo "$kernel" | tr / _)_slabs$setting"
      t0=$(date +%s.%N)
      RKT_SHARED_DEVICE_SLABS=$setting timeout 90 "$build/bin/rkt" test --kernel "$kernel" --json \
        >"$out/startup/$name.json" 2>"$out/startup/$name.log"
      echo "test $kernel, RKT_SHARED_DEVICE_SLABS=$setting: exit $?," \
        "$(python3 -c "import time; print(round(time.time() - $t0, 2))") s" | tee -a "$out/startup/times.txt"
    done
  done
fi
if [[ " $steps " == *" ctest "* ]]; then
  start=$(date +%s)
  ctest --test-dir "$build" --output-on-failure -j 4 ${1:+-R "$1"} >"$out/ctest.log" 2>&1
  echo "ctest: exit $?, $(($(date +%s) - start)) s"
fi
if [[ " $steps " == *" inprocess "* ]]; then
  start=$(date +%s)
  RKT_ISOLATION=in-process ctest --test-dir "$build" --output-on-failure -j 4 -L cuda \
    >"$out/ctest_inprocess.log" 2>&1
  echo "ctest -L cuda in-process: exit $?, $(($(date +%s) - start)) s"
  start=$(date +%s)
  ctest --test-dir "$build" --output-on-failure -j 4 -L cuda >"$out/ctest_isolated.log" 2>&1
  echo "ctest -L cuda isolated: exit $?, $(($(date +%s) - start)) s"
fi
if [[ " $steps " == *" faults "* ]]; then
  start=$(date +%s)
  "$build/bin/rkt_selftest" --gtest_filter='FaultContainment.*:EscapedWorkGate.*:Isolation*' \
    >"$out/faults.log" 2>&1
  echo "faults: exit $?, $(($(date +%s) - start)) s"
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]" "$out/faults.log" | head -n 30
fi
if [[ " $steps " == *" property "* ]]; then
  start=$(date +%s)
  ctest --test-dir "$build" -L property -L cuda -j 1 --output-on-failure >"$out/ctest_property_cuda.log" 2>&1
  echo "ctest -L property -L cuda: exit $?, $(($(date +%s) - start)) s"
fi
if [[ " $steps " == *" multigpu "* ]]; then
  # Issue 23's proof on every GPU of the machine: tools/gpu/multigpu_proof.sh.
  bash tools/gpu/multigpu_proof.sh "$build" "$out"
fi
if [[ " $steps " == *" sanitize "* ]]; then
  start=$(date +%s)
  OUT="$out/sanitize" bash tools/gpu/sanitize.sh "$build" "${RKT_SANITIZE_KERNELS:-cuda}" >"$out/sanitize.log" 2>&1
  echo "sanitize: exit $?, $(($(date +%s) - start)) s"
  tail -n 6 "$out/sanitize.log"
fi
if [[ " $steps " == *" speed "* ]]; then
  # Issue 18's figures: `rkt test --kernel K --json` for every shipped CUDA kernel, one at a time
  # (each kernel alone on the GPU), its wall time and its cases' times; a kernel past
  # RKT_SPEED_KERNEL_LIMIT s (default 90) is stopped, and the loop stops past
  # RKT_SPEED_TOTAL_LIMIT s (default 420) so that the call fits a device lease.
  mkdir -p "$out/speed"
  : >"$out/speed/times.tsv"
  # RKT_SPEED_MATCH: an extended regex over the ids (e.g. '_(bf16|fp16)' for the 16-bit kernels,
  # or -v style with RKT_SPEED_EXCLUDE) to split the kernels over calls of a lease.
  cuda_kernel_ids | grep -E "${RKT_SPEED_MATCH:-.}" | grep -vE "${RKT_SPEED_EXCLUDE:-^$}" >"$out/speed/kernels.txt"
  speed_start=$(date +%s)
  n=0
  while read -r kernel; do
    n=$((n + 1))
    if (($(date +%s) - speed_start > ${RKT_SPEED_TOTAL_LIMIT:-420})); then
      echo "speed: stopped before $kernel (total limit)" >>"$out/speed/times.tsv.notes"; break
    fi
    t0=$(date +%s.%N)
    timeout "${RKT_SPEED_KERNEL_LIMIT:-90}" "$build/bin/rkt" test --kernel "$kernel" --json \
      >"$out/speed/$n.json" 2>"$out/speed/$n.log"
    code=$?
    printf '%s\t%s\t%s\t%s\n' "$n" "$kernel" "$code" \
      "$(python3 -c "import time; print(round(time.time() - $t0, 2))")" >>"$out/speed/times.tsv"
  done <"$out/speed/kernels.txt"
  echo "speed: $(($(date +%s) - speed_start)) s"
  python3 tools/gpu/speed_summary.py "$out/speed" | tee "$out/speed/summary.txt" | tail -n 30
  python3 tools/gpu/case_phases.py "$out/speed" | tee -a "$out/speed/summary.txt"
  # Keep what comes back small: the summary, times.tsv, cases.tsv, and the records and logs of
  # failed kernels (the record holds the failing case's message, seed and replay line; run 35
  # lost one by removing it).
  while IFS=$'\t' read -r n kernel code seconds; do
    [ "$code" = 0 ] && rm -f "$out/speed/$n.json" "$out/speed/$n.log"
  done <"$out/speed/times.tsv"
fi
if [[ " $steps " == *" edit "* ]]; then
  # Edit one .cu file, rebuild, run all its cases (issue 18's edit-test loop).
  start=$(date +%s.%N)
  touch kernels/cuda/softmax.cu
  cmake --build "$build" -j "$(nproc)" >"$out/edit_build.log" 2>&1
  rebuilt=$(python3 -c "import time; print(round(time.time() - $start, 2))")
  "$build/bin/rkt" test --kernel softmax/cuda >"$out/edit_test.log" 2>&1
  echo "edit softmax.cu: rebuild $rebuilt s, rebuild + all its cases (exit $?)" \
    "$(python3 -c "import time; print(round(time.time() - $start, 2))") s"
fi
if [[ " $steps " == *" exploits "* ]]; then
  # Issue 28 on the GPU, each part within its own timeout, its table printed as it ends:
  # late work (outputs final at return), reads past the end at ragged dims (memcheck), L2
  # persistence (the adversary's benchmark against its twin, and the standalone gain without
  # the reset), the check's cost, and initcheck on an honest kernel with the worker watched.
  case_table() {
    python3 - "$1" <<'PY'
import json, sys
try:
    cases = json.load(open(sys.argv[1]))["cases"]
except Exception as error:
    sys.exit(f"no JSON: {error}")
for case in cases:
    print(f'{case["name"]:<62} {case["status"]:<8} {case.get("milliseconds", 0):>7.0f} ms  {case["message"][:300]!r}')
PY
  }
  # RKT_EXPLOITS_PARTS chooses the parts (default all), to split them over calls of a lease.
  parts=" ${RKT_EXPLOITS_PARTS:-late ragged l2check cost l2run initcheck} "
  mkdir -p "$out/exploits"
  # The adversaries' cases matching $3, each case within $2 s and the whole within 120 s.
  adversary_cases() {
    local label=$1 case_timeout=$2 filter=$3 begin
    begin=$(date +%s)
    timeout 120 "$build/bin/rkt_adversaries" test --timeout "$case_timeout" --json --filter "$filter" \
      >"$out/exploits/$label.json" 2>"$out/exploits/$label.log"
    echo "$label: exit $?, $(($(date +%s) - begin)) s"
    case_table "$out/exploits/$label.json"
  }
  [[ "$parts" == *" late "* ]] &&
    adversary_cases late 30 'relu/late_*.correctness_x1:relu/two_streams_joined.*'
  [[ "$parts" == *" ragged "* ]] &&
    adversary_cases ragged 40 'relu/cuda_float4_tail_overread.sanitizer_*:relu/cuda_float4_tail_overread.correctness_x1:relu/cuda_float4_declared.sanitizer_memcheck:relu/cuda_reads_past_end.sanitizer_memcheck'
  if [[ "$parts" == *" l2check "* ]]; then
    nvcc -std=c++17 -arch=sm_90 -O3 -o /tmp/l2_check tests/kernel_gpu_check/l2_persistence_check.cu \
      >"$out/exploits/l2_build.log" 2>&1 && timeout 60 /tmp/l2_check 2>&1 | tee "$out/exploits/l2_check.txt"
  fi
  if [[ "$parts" == *" cost "* ]]; then
    nvcc -std=c++17 -arch=sm_90 -O3 -I. -o /tmp/fingerprint_cost tests/kernel_gpu_check/fingerprint_cost.cu \
      framework/runtime/output_fingerprint_kernel.cu >"$out/exploits/fp_build.log" 2>&1 &&
      timeout 60 /tmp/fingerprint_cost 2>&1 | tee "$out/exploits/fingerprint_cost.txt"
  fi
  if [[ "$parts" == *" l2run "* ]]; then
    start=$(date +%s)
    timeout 200 "$build/bin/rkt_adversaries" run --kernel relu_l2_resident/ --timeout 30 \
      --out "$out/exploits/l2_run" >"$out/exploits/l2_run.log" 2>&1
    echo "L2 persistence run: exit $?, $(($(date +%s) - start)) s"
    python3 - "$out/exploits/l2_run/results.json" <<'PY'
import json, sys
try:
    results = json.load(open(sys.argv[1]))
except Exception as error:
    sys.exit(f"no results.json: {error}")
for kernel in results.get("kernels", []):
    bench = kernel.get("benchmark") or {}
    print(kernel.get("task"), kernel.get("kernel"), kernel.get("verdict"), json.dumps(bench)[:900])
PY
    tail -n 5 "$out/exploits/l2_run.log"
  fi
  if [[ "$parts" == *" hangdiag "* ]]; then
    # A case that hangs, watched from outside: the process tree, each rkt process's threads'
    # stacks (gdb or cuda-gdb, when present) and the sanitizer's log, 15 s into the case.
    mkdir -p "$out/exploits/hangdiag"
    debugger="$(command -v gdb || command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)"
    for filter in relu/late_persistent_server.correctness_x1 relu/cuda_reads_past_end.sanitizer_memcheck; do
      name="${filter//\//_}"
      ( sleep 15
        ps -eo pid,ppid,user,stat,wchan:30,etime,args | grep -E "rkt|sanitizer|TreeLauncher" | grep -v grep
        for log in /tmp/rkt-sanitizer-*/log.txt; do [ -f "$log" ] && { echo "== $log"; head -c 4000 "$log"; }; done
        for pid in $(pgrep -f "rkt-worker|rkt_adversaries"); do
          echo "== stacks of $pid: $(tr '\0' ' ' </proc/$pid/cmdline | head -c 200)"
          [ -x "$debugger" ] && timeout 20 "$debugger" -p "$pid" -batch -ex "thread apply all bt 12" 2>&1 | grep -E "^#|^Thread" | head -n 80
        done ) >"$out/exploits/hangdiag/$name.txt" 2>&1 &
      timeout 45 "$build/bin/rkt_adversaries" test --timeout 30 --json --filter "$filter" \
        >"$out/exploits/hangdiag/$name.json" 2>"$out/exploits/hangdiag/$name.log"
      echo "hangdiag $filter: exit $?"
      case_table "$out/exploits/hangdiag/$name.json"
      wait
      head -c 3000 "$out/exploits/hangdiag/$name.txt"
    done
  fi
  if [[ "$parts" == *" initcheck "* ]]; then
    start=$(date +%s)
    mkdir -p "$out/exploits/initcheck"
    for chroot in 0 1; do
      ( sleep 25; ps -eo pid,ppid,user,stat,wchan:30,etime,args | grep -E "sanitizer|rkt-worker|TreeLauncher" | grep -v grep \
          >"$out/exploits/initcheck/ps_nochroot$chroot.txt"
        for pid in $(pgrep -f rkt-worker); do echo "== $pid"; cat /proc/$pid/stack 2>/dev/null | head -n 12;
          ls /proc/$pid/task | head -n 40 | while read -r t; do echo "$t $(cat /proc/$pid/task/$t/wchan 2>/dev/null) $(cat /proc/$pid/task/$t/comm)"; done; done \
          >>"$out/exploits/initcheck/ps_nochroot$chroot.txt" 2>&1 ) &
      RKT_SANITIZER_INITCHECK=1 RKT_SANITIZER_NO_CHROOT=$chroot RKT_SANITIZER_LOG_DIR="$out/exploits/initcheck" \
        timeout 80 "$build/bin/rkt_adversaries" test --timeout 60 --json \
        --filter 'relu/cuda_own_scratch.sanitizer_initcheck:relu/cuda_reads_uninitialised.sanitizer_initcheck' \
        >"$out/exploits/initcheck/cases_nochroot$chroot.json" 2>"$out/exploits/initcheck/cases_nochroot$chroot.log"
      echo "initcheck (RKT_SANITIZER_NO_CHROOT=$chroot): exit $?, $(($(date +%s) - start)) s"
      case_table "$out/exploits/initcheck/cases_nochroot$chroot.json"
      wait
    done
    tail -n 5 "$out"/exploits/initcheck/*.log 2>/dev/null | head -n 60
  fi
  tar -czf "$out/exploits.tgz" -C "$out" exploits && rm -rf "$out/exploits"
fi
if [[ " $steps " == *" bounds "* ]]; then
  # Issue 19 on the GPU: every CUDA bounds adversary caught by its case, the controls passing
  # (rkt_selftest BoundsKernels.*), then the sanitizer cases' cost per shipped CUDA kernel.
  # First every adversary case alone, each within its own timeout, as a table (what each tool
  # reports on this GPU), then the selftest that asserts the expected verdicts.
  start=$(date +%s)
  timeout "${RKT_BOUNDS_LIMIT:-400}" "$build/bin/rkt_adversaries" test --timeout "${RKT_BOUNDS_CASE_TIMEOUT:-60}" --json \
    --filter 'relu/cuda_*.sanitizer_*:relu/cuda_float4_*.integrity_misaligned_pointers:relu/fault_one_past_end.correctness_x1' \
    >"$out/bounds_cases.json" 2>"$out/bounds_cases.log"
  echo "bounds cases: exit $?, $(($(date +%s) - start)) s"
  python3 - "$out/bounds_cases.json" <<'PY' | tee "$out/bounds_cases.txt"
import json, sys
try:
    cases = json.load(open(sys.argv[1]))["cases"]
except Exception as error:
    sys.exit(f"no JSON: {error}")
for case in cases:
    print(f'{case["name"]:<66} {case["status"]:<8} {case.get("milliseconds", 0):>7.0f} ms  {case["message"][:260]!r}')
PY
  if [ "${RKT_BOUNDS_SELFTEST:-1}" != 0 ]; then
    start=$(date +%s)
    timeout 420 "$build/bin/rkt_selftest" --gtest_filter='BoundsKernels.*' >"$out/bounds_selftest.log" 2>&1
    echo "bounds selftest: exit $?, $(($(date +%s) - start)) s"
    grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure|Expected|Which is|actual" "$out/bounds_selftest.log" | head -n 40
  fi
  # Per kernel (RKT_SANITIZER_KERNELS, default every shipped CUDA kernel), within
  # RKT_SANITIZER_LIMIT s in all (default 400).
  mkdir -p "$out/sanitizer"
  kernels="${RKT_SANITIZER_KERNELS:-$(cuda_kernel_ids)}"
  start=$(date +%s)
  n=0
  for kernel in $kernels; do
    (($(date +%s) - start >= ${RKT_SANITIZER_LIMIT:-400})) && { echo "sanitizer: stopped before $kernel (limit)"; break; }
    n=$((n + 1))
    timeout 300 "$build/bin/rkt" test --kernel "$kernel" --filter "$kernel.sanitizer_*" --json \
      >"$out/sanitizer/$n.json" 2>/dev/null
  done
  echo "sanitizer cases of $n kernels: $(($(date +%s) - start)) s"
  python3 - "$out/sanitizer" <<'PY' | tee "$out/sanitizer_cases.txt"
import json, sys, pathlib, collections
per_tool = collections.defaultdict(list)
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    try:
        cases = json.loads(path.read_text())["cases"]
    except Exception as error:
        print(path.name, "no JSON:", error); continue
    for case in cases:
        per_tool[case["case"]].append((case.get("milliseconds", 0) / 1000, case["suite"]))
        if case["status"] != "passed":
            print(case["name"], case["status"], case["message"][:400])
for tool, runs in sorted(per_tool.items()):
    runs.sort()
    print(f"{tool}: {len(runs)} kernels, median {runs[len(runs)//2][0]:.1f} s, max {runs[-1][0]:.1f} s ({runs[-1][1]})")
PY
  rm -rf "$out/sanitizer"
fi
if [[ " $steps " == *" selftest_gpu "* ]]; then
  start=$(date +%s)
  timeout "${RKT_SELFTEST_GPU_LIMIT:-300}" "$build/bin/rkt_selftest" --gtest_filter="${RKT_SELFTEST_GPU_FILTER:-CounterRandom.*:ValueFamilies.*:ReferenceReuse.*:LentWorker.*:Isolation*:FaultContainment.*:BenchmarkInputSets.*:PeakMemory.*}" \
    >"$out/selftest_gpu.log" 2>&1
  echo "selftest (GPU parts): exit $?, $(($(date +%s) - start)) s"
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|normal law|value family" "$out/selftest_gpu.log" | head -n 40
fi
if [[ " $steps " == *" memprobe "* ]]; then
  # Issue 29: is memcheck's silence (run 44: no variant of sanidiag named the access) rkt's or the
  # machine's? A plain program that writes one past a buffer, under the tool, outside rkt.
  mkdir -p "$out/memprobe"
  {
    echo "== debugger back-end"; ldconfig -p | grep -i cudadebugger || echo "no libcudadebugger in ldconfig"
    ls -l /usr/local/nvidia/lib64/libcudadebugger* /usr/lib/x86_64-linux-gnu/libcudadebugger* 2>&1
    echo "== compute-sanitizer options"
    timeout 20 compute-sanitizer --help 2>&1 | grep -iE -A2 "debug|backend|exception|device-error|precise|hang|timeout"
    nvcc -o /tmp/memcheck_probe tools/gpu/memcheck_probe.cu 2>&1
    echo "== plain run"; timeout 20 /tmp/memcheck_probe own; echo "exit $?"
    for mode in own ipc; do
      echo "== memcheck, $mode buffer"
      t0=$(date +%s.%N)
      timeout 25 compute-sanitizer --tool memcheck --print-limit 3 /tmp/memcheck_probe "$mode" 2>&1 | head -n 30
      echo "exit ${PIPESTATUS[0]}, $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
    done
  } >"$out/memprobe/probe.txt" 2>&1
  cat "$out/memprobe/probe.txt"
fi
if [[ " $steps " == *" sanidiag "* ]]; then
  mkdir -p "$out/sanidiag"
  case_limit="${RKT_SANIDIAG_CASE:-20}"
  # named: as rkt runs it (the kernel on the judge's buffers, mapped by CUDA IPC); own: on the
  # worker's own copies (RKT_SANITIZER_OWN_COPIES=1, framework/worker/own_device_copies.h); the
  # others: as rkt runs it, less a sandbox measure.
  for variant in ${RKT_SANIDIAG_VARIANTS:-named own no_seccomp no_chroot neither}; do
    vars="RKT_WORKER_NAME_REFUSED_CALLS=1"
    [ "$variant" = own ] && vars="$vars RKT_SANITIZER_OWN_COPIES=1"
    case "$variant" in
      no_seccomp) vars="$vars RKT_SANITIZER_NO_SECCOMP=1" ;;
      no_chroot) vars="$vars RKT_SANITIZER_NO_CHROOT=1" ;;
      neither) vars="$vars RKT_SANITIZER_NO_SECCOMP=1 RKT_SANITIZER_NO_CHROOT=1" ;;
    esac
    mkdir -p "$out/sanidiag/$variant"
    ( sleep 6
      ps -eo pid,ppid,user,stat,wchan:30,etime,args | grep -E "sanitizer|rkt-worker|TreeLauncher" | grep -v grep | cut -c1-200
      for pid in $(pgrep -f rkt-worker); do
        echo "== worker $pid threads: tid state wchan syscall comm"
        for task in /proc/$pid/task/*; do
          echo "$(basename "$task") $(awk '{print $3}' "$task/stat" 2>/dev/null) $(cat "$task/wchan" 2>/dev/null)" \
            "$(cut -d' ' -f1 "$task/syscall" 2>/dev/null) $(cat "$task/comm" 2>/dev/null)"
        done | head -n 60
        # Where its threads are (the first variant only: a debugger takes seconds).
        debugger="$(command -v gdb || command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)"
        [ "$variant" = named ] && [ -x "$debugger" ] &&
          timeout 8 "$debugger" -p "$pid" -batch -ex "thread apply all bt 14" 2>&1 | grep -E "^#|^Thread" | head -n 120
      done ) >"$out/sanidiag/$variant/threads.txt" 2>&1 &
    sampler=$!
    start=$(date +%s.%N)
    env $vars RKT_SANITIZER_LOG_DIR="$out/sanidiag/$variant" timeout $((case_limit + 15)) \
      "$build/bin/rkt_adversaries" test --timeout "$case_limit" --json \
      --filter 'relu/cuda_reads_past_end.sanitizer_memcheck' \
      >"$out/sanidiag/$variant/case.json" 2>"$out/sanidiag/$variant/stderr.txt"
    code=$?
    seconds=$(python3 -c "import time; print(round(time.time() - $start, 1))")
    kill "$sampler" 2>/dev/null
    wait
    # The quickest variant in which memcheck named the access is kept for the steps after this
    # one (RKT_SANIDIAG_KEEP=0: not), so that the eval batch shows what the fix would be worth.
    if grep -q "compute-sanitizer memcheck found" "$out/sanidiag/$variant/case.json" 2>/dev/null &&
      { [ -z "${chosen_seconds:-}" ] || python3 -c "import sys; sys.exit(not $seconds < $chosen_seconds)"; }; then
      chosen_seconds=$seconds chosen_vars="${vars#RKT_WORKER_NAME_REFUSED_CALLS=1}" chosen_variant=$variant
    fi
    echo "sanidiag $variant: exit $code, $seconds s;" \
      "refused: $(grep -o 'the sandbox refused [^(]*' "$out/sanidiag/$variant/stderr.txt" | sort | uniq -c | tr '\n' ';')"
    python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["cases"]:
    print("  ", c.get("name"), c.get("status"), c.get("milliseconds"), (c.get("message") or "")[:400])' \
      "$out/sanidiag/$variant/case.json" 2>&1 | head -n 4
  done
  if [ -n "${chosen_variant:-}" ] && [ "${RKT_SANIDIAG_KEEP:-1}" = 1 ]; then
    echo "sanidiag: memcheck named the access quickest as $chosen_variant ($chosen_seconds s); the steps after this run with:${chosen_vars:- nothing changed}"
    for assignment in $chosen_vars; do export "$assignment"; done
  else
    echo "sanidiag: memcheck named the access in no variant"
  fi
fi
if [[ " $steps " == *" worker_start "* ]]; then
  # Run 42: every worker of a library linked to LibTorch with CUDA kernels died while starting
  # ("terminate called without an active exception"). The worker's abort report names its step
  # and call stack; each variant turns one suspect off: the CUPTI start before the sandbox
  # (RKT_TRACE_OFF_STREAM_WORK=0), the LibTorch plugin loaded after the library (RKT_LIGHT_WORKER=0).
  for variant in default RKT_TRACE_OFF_STREAM_WORK=0 RKT_LIGHT_WORKER=0; do
    start=$(date +%s)
    env $([[ $variant == default ]] || echo "$variant") timeout 60 "$build/bin/rkt_selftest" \
      --gtest_filter='LightWorker.ALibraryLinkedToLibTorchGetsIt:LentWorker.AWorkerThatIsGoneIsRefusedAtOnce' \
      >"$out/worker_start_${variant%%=*}.log" 2>&1
    echo "worker start, $variant: exit $?, $(($(date +%s) - start)) s"
    grep -E "^rkt-worker: |^\[ +(OK|FAILED) +\]" "$out/worker_start_${variant%%=*}.log" | head -n 12
    grep -A24 "call stack" "$out/worker_start_${variant%%=*}.log" | head -n 26
  done
fi
if [[ " $steps " == *" phase_bench "* ]]; then
  start=$(date +%s)
  timeout "${RKT_PHASE_BENCH_LIMIT:-120}" "$build/bin/rkt_phase_benchmarks" \
    --elements "${RKT_PHASE_ELEMENTS:-67108864}" --benchmark_min_time=1 \
    --benchmark_out="$out/phase_benchmarks.json" --benchmark_out_format=json >"$out/phase_benchmarks.txt" 2>&1
  echo "phase benchmarks: exit $?, $(($(date +%s) - start)) s"
  grep -E "^(draw|check)" "$out/phase_benchmarks.txt"
fi
if [[ " $steps " == *" lpcheck "* ]]; then
  start=$(date +%s)
  nvcc -std=c++17 -arch=sm_90 -O3 -Ikernels/cuda -o /tmp/lp_check \
    tests/kernel_gpu_check/low_precision_gpu_check.cu >"$out/lpcheck_build.log" 2>&1 &&
    timeout "${RKT_LPCHECK_LIMIT:-240}" /tmp/lp_check >"$out/lpcheck.log" 2>&1
  echo "low-precision standalone check: exit $?, $(($(date +%s) - start)) s"
  tail -n 40 "$out/lpcheck.log" 2>/dev/null || tail -n 20 "$out/lpcheck_build.log"
fi
if [[ " $steps " == *" serve "* ]]; then
  # Issue 29: a file through the server from the Python client, cold then cached, each timed from
  # the client's side; then a generated batch through rkt eval --server.
  mkdir -p "$out/serve"
  socket=/tmp/rkt-serve.sock
  RKT_EVAL_CACHE=/tmp/rkt-serve-cache "$build/bin/rkt" serve --socket "$socket" --out /tmp/rkt-serve-run \
    >"$out/serve/server.log" 2>&1 &
  server=$!
  single=examples/cuda_kernel/softmax_warp_per_row.cu
  for pass in cold cached; do
    t0=$(date +%s.%N)
    timeout 300 python3 tools/rkt_serve_client.py --socket "$socket" --wait 60 "$single" \
      >"$out/serve/single_$pass.jsonl" 2>"$out/serve/single_$pass.log"
    echo "rkt serve, $single from the Python client, $pass: exit $?," \
      "$(python3 -c "import time; print(round(time.time() - $t0, 2))") s" | tee -a "$out/serve/times.txt"
  done
  python3 tools/eval_batch/make_candidates.py /tmp/rkt-serve-batch --count "${RKT_EVAL_BATCH_COUNT:-50}" \
    --device cuda >/dev/null
  t0=$(date +%s)
  timeout "${RKT_SERVE_BATCH_LIMIT:-400}" "$build/bin/rkt" eval --server "$socket" /tmp/rkt-serve-batch/*.cu \
    --json --timeout 30 >"$out/serve/batch.jsonl" 2>"$out/serve/batch.log"
  echo "rkt eval --server, ${RKT_EVAL_BATCH_COUNT:-50} generated files: exit $?, $(($(date +%s) - t0)) s" \
    | tee -a "$out/serve/times.txt"
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
fi

if [[ " $steps " == *" warm "* ]]; then
  # Issue 29: judges started ahead (RKT_START_AHEAD) against starting each when its work is known,
  # alternating, three times each: rkt eval of one file cached and new, rkt test of one kernel's
  # whole case set, and a cached file through rkt serve from the Python client.
  mkdir -p "$out/warm"
  single=examples/cuda_kernel/softmax_warp_per_row.cu
  # A first look, bounded: one case with a child started ahead; the step stops here if it fails.
  timeout 60 "$build/bin/rkt" test --kernel relu/cuda_grid_stride --filter '*correctness_x1' --json \
    >"$out/warm/first_look.json" 2>"$out/warm/first_look.log"
  first_look=$?
  echo "warm: first look (one case, child started ahead): exit $first_look"
  grep -E '"processes' "$out/warm/first_look.json"
  if [ "$first_look" -ne 0 ]; then tail -n 20 "$out/warm/first_look.log"; steps="${steps/warm/}"; fi
fi
if [[ " $steps " == *" warm "* ]]; then
  RKT_EVAL_CACHE=/tmp/rkt-warm-cache timeout 120 "$build/bin/rkt" eval "$single" --out /tmp/rkt-warm-prime \
    >/dev/null 2>&1
  timed() {  # label command...: one line "label: exit N, S s" in times.txt
    local label=$1 t0 code
    shift
    t0=$(date +%s.%N)
    "$@" >>"$out/warm/commands.log" 2>&1
    code=$?
    echo "$label: exit $code, $(python3 -c "import time; print(round(time.time() - $t0, 2))") s" |
      tee -a "$out/warm/times.txt"
  }
  for rep in $(seq "${RKT_WARM_REPS:-3}"); do
    for ahead in 0 1; do
      export RKT_START_AHEAD=$ahead
      timed "eval cached, ahead=$ahead" env RKT_EVAL_CACHE=/tmp/rkt-warm-cache timeout 60 \
        "$build/bin/rkt" eval "$single" --json --out "/tmp/rkt-warm-cached-$ahead-$rep"
      timed "eval new, ahead=$ahead" env RKT_EVAL_CACHE="/tmp/rkt-warm-new-$ahead-$rep" timeout 60 \
        "$build/bin/rkt" eval "$single" --json --out "/tmp/rkt-warm-new-$ahead-$rep"
      timed "test relu/cuda_grid_stride, ahead=$ahead" timeout 60 \
        "$build/bin/rkt" test --kernel relu/cuda_grid_stride --json
    done
  done
  cached_ahead="/tmp/rkt-warm-cached-1-$rep"
  cp "$cached_ahead/eval.jsonl" "$out/warm/cached_ahead.jsonl" 2>/dev/null
  cp "/tmp/rkt-warm-cached-0-$rep/eval.jsonl" "$out/warm/cached_not_ahead.jsonl" 2>/dev/null
  for ahead in 0 1; do
    export RKT_START_AHEAD=$ahead
    socket=/tmp/rkt-warm-$ahead.sock
    RKT_EVAL_CACHE=/tmp/rkt-warm-cache timeout 150 "$build/bin/rkt" serve --socket "$socket" \
      --out "/tmp/rkt-warm-serve-$ahead" >"$out/warm/server_$ahead.log" 2>&1 &
    server=$!
    for rep in $(seq $((${RKT_WARM_REPS:-3} + 1))); do
      timed "serve cached from the Python client, ahead=$ahead" timeout 30 \
        python3 tools/rkt_serve_client.py --socket "$socket" --wait 60 "$single"
    done
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  done
  unset RKT_START_AHEAD
  cp /tmp/rkt-warm-serve-1/eval.jsonl "$out/warm/serve_ahead.jsonl" 2>/dev/null
  # Where a warm verdict's seconds go (issue 29: serve <= 2.5 s): the phases of the last cached
  # eval and of the last served request, started ahead.
  for results in "$cached_ahead/results.json" \
    "$(find /tmp/rkt-warm-serve-1 -name results.json -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2)"; do
    [ -f "$results" ] || continue
    echo "warm: phases of $results"
    python3 tools/gpu/eval_phases.py "$results" --slowest 1 | tee -a "$out/warm/phases.txt"
  done
fi
if [[ " $steps " == *" buffer_pool "* ]]; then
  # Issue 29: what keeping shared buffers for reuse (RKT_SHARED_BUFFER_POOL) and carving small ones
  # out of slabs (RKT_SHARED_DEVICE_SLABS) do to one kernel's whole case set, with each case's
  # time split into phases (rkt test --json: time_breakdown_ms). Settings alternate per kernel.
  mkdir -p "$out/buffer_pool"
  pool_kernels="${RKT_POOL_KERNELS:-relu/cuda_grid_stride softmax/cuda_rowwise matmul/cuda_tf32x3 cross_entropy_fp16/cuda_rowwise rkb_llama_ffw/cuda_tf32x3 attention_causal_fp16_backward/cuda_flash_backward}"
  pool_settings="${RKT_POOL_SETTINGS:-pool0 pool1 pool1_slabs1}"
  pool_deadline=$(($(date +%s) + ${RKT_POOL_LIMIT:-300}))
  for kernel in $pool_kernels; do
    for setting in $pool_settings; do
      if [ "$(date +%s)" -ge "$pool_deadline" ]; then echo "buffer_pool: limit reached, $kernel $setting not run"; continue; fi
      mkdir -p "$out/buffer_pool/$setting"
      pool=0; [[ $setting == pool1* ]] && pool=1
      slabs=0; [[ $setting == *slabs1 ]] && slabs=1
      t0=$(date +%s.%N)
      RKT_SHARED_BUFFER_POOL=$pool RKT_SHARED_DEVICE_SLABS=$slabs timeout 70 "$build/bin/rkt" test \
        --kernel "$kernel" --json >"$out/buffer_pool/$setting/${kernel//\//__}.json" \
        2>"$out/buffer_pool/$setting/${kernel//\//__}.log"
      code=$?
      printf '%s\t%s\t%s\t%s\n' "$setting" "$kernel" "$code" \
        "$(python3 -c "import time; print(round(time.time() - $t0, 2))")" >>"$out/buffer_pool/times.tsv"
    done
  done
  python3 tools/gpu/buffer_pool_summary.py "$out/buffer_pool" | tee "$out/buffer_pool/summary.tsv" | cut -f1-10
fi
if [[ " $steps " == *" batch_ab "* ]]; then
  # Issue 29: what starting judges ahead does to a batch with several judges on the GPU. The
  # libraries are compiled by the first pass (started ahead), so the two timed passes judge only.
  mkdir -p "$out/batch_ab"
  ab=/tmp/rkt-batch-ab
  rm -rf "$ab"
  python3 tools/eval_batch/make_candidates.py "$ab/candidates" --count "${RKT_EVAL_BATCH_COUNT:-24}" \
    --device cuda >/dev/null
  for pass in prime:1 ahead:1 not_ahead:0; do
    name=${pass%%:*}
    t0=$(date +%s.%N)
    RKT_SEED=20261202 RKT_EVAL_CACHE="$ab/cache" RKT_START_AHEAD=${pass##*:} timeout "${RKT_AB_LIMIT:-160}" \
      "$build/bin/rkt" eval "$ab/candidates"/*.cu --json --out "$ab/$name" --timeout 30 \
      --judges-per-gpu "${RKT_AB_JUDGES:-4}" >"$out/batch_ab/$name.jsonl" 2>"$out/batch_ab/$name.log"
    code=$?
    echo "batch of $(ls "$ab/candidates"/*.cu | wc -l) files, $name (RKT_START_AHEAD=${pass##*:}," \
      "${RKT_AB_JUDGES:-4} judges): exit $code, $(python3 -c "import time; print(round(time.time() - $t0, 1))") s" |
      tee -a "$out/batch_ab/times.txt"
  done
  cp "$ab/candidates/expected.json" "$out/batch_ab/" 2>/dev/null
fi
if [[ " $steps " == *" eval "* ]]; then
  # Issue 21: a kernel source to a JSON verdict with its benchmark, from a cold library cache and
  # from a warm one (a second --out, so that it is judged again), then the batch.
  mkdir -p "$out/eval"
  single=examples/cuda_kernel/softmax_warp_per_row.cu
  for pass in cold cached; do
    t0=$(date +%s.%N)
    RKT_EVAL_CACHE=/tmp/rkt-eval-single timeout 300 "$build/bin/rkt" eval "$single" --json \
      --out "/tmp/rkt-eval-single-$pass" >"$out/eval/single_$pass.jsonl" 2>"$out/eval/single_$pass.log"
    code=$?
    echo "rkt eval $single ($(wc -l <"$single") lines), $pass: exit $code," \
      "$(python3 -c "import time; print(round(time.time() - $t0, 2))") s" | tee -a "$out/eval/times.txt"
  done
  grep -E "compiled|records in" "$out/eval/single_cold.log" | tail -n 2
  cp /tmp/rkt-eval-single-cached/results.json "$out/eval/single_cached_results.json" 2>/dev/null
  python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["verdict"], r["benchmark"].get("median_ms"), r["benchmark"].get("speedups"))' \
    "$out/eval/single_cached.jsonl" 2>&1 | head -c 600
  echo
  start=$(date +%s)
  cmake --install "$build" --prefix /tmp/rkt-prefix >"$out/eval/install.log" 2>&1
  timeout "${RKT_EVAL_BATCH_LIMIT:-480}" bash tools/eval_batch/eval_batch.sh "$build/bin/rkt" /tmp/rkt-prefix \
    /tmp/rkt-eval-batch --device cuda --count "${RKT_EVAL_BATCH_COUNT:-50}" --timeout 30 \
    --suite-shards "${RKT_EVAL_SUITE_SHARDS:-1}" ${RKT_EVAL_ONLY:+--eval-only} -- \
    -DCMAKE_PREFIX_PATH="/tmp/rkt-prefix;$torch_prefix;$deps/usr" -DCMAKE_CUDA_ARCHITECTURES=90 \
    >"$out/eval/batch.log" 2>&1
  echo "eval batch: exit $?, $(($(date +%s) - start)) s"
  cp /tmp/rkt-eval-batch/times.txt /tmp/rkt-eval-batch/comparison.md /tmp/rkt-eval-batch/eval.jsonl \
    /tmp/rkt-eval-batch/expected_check.txt "$out/eval/" 2>/dev/null
  # Each kernel's and case's phases (device_wait among them): where the batch's time went.
  cp /tmp/rkt-eval-batch/eval/results.json "$out/eval/batch_results.json" 2>/dev/null &&
    python3 tools/gpu/eval_phases.py "$out/eval/batch_results.json" | tee "$out/eval/phases.txt" | head -n 40
  cat /tmp/rkt-eval-batch/times.txt 2>/dev/null
  tail -n 12 "$out/eval/batch.log"
fi
if [[ " $steps " == *" repeats "* ]]; then
  # The spread of medians over repeated measurements of one kernel and its baseline.
  start=$(date +%s)
  "$build/bin/rkt" bench --benchmark_filter='^relu/(cuda_grid_stride|baseline:eager_fp32@cuda)' \
    --benchmark_repetitions=5 --benchmark_out="$out/bench_repeats.json" \
    --benchmark_out_format=json >"$out/bench_repeats.log" 2>&1
  echo "rkt bench repeats: exit $?, $(($(date +%s) - start)) s"
fi
export RKT_AOTI_CACHE="${RKT_AOTI_CACHE:-/tmp/rkt-aoti}"
if [[ " $steps " == *" aoti "* ]]; then
  # The compiled baseline's packages, built in parallel (cached in $RKT_AOTI_CACHE).
  # RKT_AOTI_TASKS: a comma list of tasks, or "cuda" for the tasks of the shipped CUDA kernels
  # (what the main job over them needs); default every task.
  aoti_tasks="${RKT_AOTI_TASKS:-}"
  [ "$aoti_tasks" = cuda ] && aoti_tasks="$(cuda_kernel_ids | cut -d/ -f1 | sort -u | paste -sd,)"
  start=$(date +%s)
  "$build/bin/rkt" aoti-spec --device cuda >"$out/aoti_spec.json" &&
    timeout "${RKT_AOTI_LIMIT:-400}" python3 tools/aoti/build_packages.py "$out/aoti_spec.json" \
      --jobs "${RKT_AOTI_JOBS:-$(nproc)}" ${aoti_tasks:+--tasks "$aoti_tasks"} >"$out/aoti_build.log" 2>&1
  echo "aoti packages: exit $?, $(($(date +%s) - start)) s"
  tail -n 1 "$out/aoti_build.log"
fi
if [[ " $steps " == *" kbcheck "* ]]; then
  # KernelBench agreement of the eager medians (issue 18): the problems run 18 found more than
  # 15% apart, measured by `rkt baselines`; compared on the workstation with
  # tools/gpu/compare_kb_baselines.py against ../shared/data/kb_baselines_h200.json.
  start=$(date +%s)
  timeout "${RKT_KBCHECK_LIMIT:-300}" "$build/bin/rkt" baselines --device cuda --out "$out/kbcheck" \
    --task "${RKT_KB_TASKS:-kb_l1_012,kb_l1_019,kb_l1_025,kb_l1_031,kb_l1_033,kb_l1_035,kb_l1_048,kb_l1_099,kb_l1_100,kb_l2_012,kb_l2_072,kb_l2_073}" \
    >"$out/kbcheck.log" 2>&1
  echo "kbcheck baselines: exit $?, $(($(date +%s) - start)) s"
  rm -rf "$out/kbcheck/baselines"
fi
if [[ " $steps " == *" main "* ]]; then
  start=$(date +%s)
  # RKT_MAIN_LIMIT=S stops the main job after S seconds (results.json keeps every kernel judged).
  # RKT_MAIN_SHARDS=K runs it as K shards at once on the GPU (their benchmarks take turns with
  # the GPU alone: framework/timing/device_lease.h), merged into $out/run by `rkt merge`.
  shards="${RKT_MAIN_SHARDS:-1}"
  if [ "$shards" -gt 1 ]; then
    # One run's shards share its seed (rkt merge refuses shards of different runs; run 46's
    # first call drew one per shard and could not be merged).
    export RKT_SEED="${RKT_SEED:-$(( $(date +%s%N) % 1000000000000 ))}"
    pids=()
    for i in $(seq 1 "$shards"); do
      timeout "${RKT_MAIN_LIMIT:-0}" "$build/bin/rkt" run --out "/tmp/rkt-main-shard-$i" --replace \
        --shard "$i/$shards" ${RKT_MAIN_KERNELS:+--kernel "$RKT_MAIN_KERNELS"} >"$out/main_job_$i.log" 2>&1 &
      pids+=($!)
    done
    code=0
    for pid in "${pids[@]}"; do wait "$pid" || code=$?; done
    "$build/bin/rkt" merge --out "$out/run" $(for i in $(seq 1 "$shards"); do echo "/tmp/rkt-main-shard-$i"; done) \
      >"$out/main_job.log" 2>&1 || code=2
    echo "rkt run, $shards shards at once: exit $code, $(($(date +%s) - start)) s"
  else
    timeout "${RKT_MAIN_LIMIT:-0}" "$build/bin/rkt" run --out "$out/run" \
      ${RKT_MAIN_KERNELS:+--kernel "$RKT_MAIN_KERNELS"} >"$out/main_job.log" 2>&1
    echo "rkt run: exit $?, $(($(date +%s) - start)) s"
  fi
  find "$out/run" -type f ! -name results.json ! -name report.md -delete 2>/dev/null
fi

if [[ " $steps " == *" shard_hang "* ]]; then
  # Run 43: `rkt run --kernel cuda` as four shards on one GPU made no progress (three shards
  # still in the task filter after 330 s: its OpenMP threads, one per core in each judge, spun
  # against each other; one thread since 643414e). The shards again, watched from outside
  # RKT_SHARD_HANG_AT s in (default 50): the process tree with each thread's kernel wait channel
  # and system call, the file locks and who holds the lease files open, and the judges' stacks.
  mkdir -p "$out/shard_hang"
  limit="${RKT_SHARD_HANG_LIMIT:-100}"
  shards="${RKT_SHARD_HANG_SHARDS:-4}"
  start=$(date +%s)
  for i in $(seq 1 "$shards"); do
    timeout "$limit" "$build/bin/rkt" run --out "/tmp/rkt-hang-shard-$i" --replace --shard "$i/$shards" \
      --kernel cuda >"$out/shard_hang/shard_$i.log" 2>&1 &
  done
  sleep "${RKT_SHARD_HANG_AT:-50}"
  {
    echo "== $(($(date +%s) - start)) s in"
    ps -eo pid,ppid,stat,wchan:32,etime,args | grep -E "rkt|sanitizer" | grep -v grep | cut -c1-220
    echo "== lease files"; ls -li /tmp/rkt-device-leases 2>&1
    echo "== /proc/locks"; cat /proc/locks
    for pid in $(pgrep -f "rkt|sanitizer"); do
      echo "== $pid: $(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null | cut -c1-160)"
      ls -l /proc/$pid/fd 2>/dev/null | grep -E "lease|lock" | sed 's/^/   fd /'
      for task in /proc/$pid/task/*; do
        echo "   thread ${task##*/} $(cat "$task/comm" 2>/dev/null) wchan=$(cat "$task/wchan" 2>/dev/null) syscall=$(cut -d' ' -f1-3 "$task/syscall" 2>/dev/null)"
      done
    done
  } >"$out/shard_hang/state.txt" 2>&1
  debugger="$(command -v gdb || command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)"
  # gdb takes seconds a process (LibTorch's symbols): the oldest children (the ones judging) and
  # one job, within RKT_SHARD_HANG_STACKS processes (default 5).
  for pid in $( (pgrep -f -- "--rkt-started-ahead" | sort -n | head -n 4; pgrep -f "bin/rkt run" | head -n 1) |
    head -n "${RKT_SHARD_HANG_STACKS:-5}"); do
    echo "== stacks of $pid: $(tr '\0' ' ' </proc/$pid/cmdline | cut -c1-200)"
    [ -x "$debugger" ] && timeout 10 "$debugger" -p "$pid" -batch -ex "thread apply all bt 14" 2>&1 |
      grep -E "^#|^Thread" | head -n 120
  done >"$out/shard_hang/stacks.txt" 2>&1
  wait
  echo "shard_hang: $(($(date +%s) - start)) s"
  for i in $(seq 1 "$shards"); do
    echo "shard $i: $(grep -c " passed, " "$out/shard_hang/shard_$i.log") cases passed; $(tail -n 1 "$out/shard_hang/shard_$i.log" | cut -c1-200)"
  done
  grep -E "wchan=(flock|locks)|syscall=73 " "$out/shard_hang/state.txt" | head -n 20
fi

if [[ " $steps " == *" main_inprocess "* ]]; then
  start=$(date +%s)
  "$build/bin/rkt" run --in-process --out "$out/run_inprocess" \
    ${RKT_MAIN_KERNELS:+--kernel "$RKT_MAIN_KERNELS"} >"$out/main_job_inprocess.log" 2>&1
  echo "rkt run --in-process: exit $?, $(($(date +%s) - start)) s"
fi

echo
grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Not Run|Timeout|Passed|Skipped" "$out/ctest.log" 2>/dev/null | tail -n 60
echo
grep -E "_(median|stddev|cv) " "$out/bench_repeats.log" 2>/dev/null
echo
sed -n '/## Summary/,/## Notes/p' "$out/run/report.md" 2>/dev/null | head -n 60 || true  # no main job this call: nothing to show
