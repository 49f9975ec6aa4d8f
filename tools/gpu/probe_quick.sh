#!/usr/bin/env bash
# The quickest GPU check of what a machine's tools report, for a lease too short for run.sh's
# whole build: configures, builds rkt-worker alone (about a minute), runs each compute-sanitizer
# tool on the worker's planted error (`rkt-worker --sanitizer-probe TOOL`, what the judge's
# sanitizer_tool_check.h asks once per machine), then the standalone L2 check (what a process
# finds at its start, tests/kernel_gpu_check/l2_persistence_check.cu). Needs .gpu-deps/ as
# run.sh does. Prints everything; writes nothing in the repository.
#   bash tools/gpu/probe_quick.sh
deps=/tmp/rkt-deps; mkdir -p $deps; for f in .gpu-deps/*.deb; do dpkg -x $f $deps; done
tp=$(python3 -W ignore -c 'import torch;print(torch.utils.cmake_prefix_path)'); export TORCH_CUDA_ARCH_LIST=9.0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; s=$(date +%s)
timeout 100 cmake -S . -B /tmp/b -DCMAKE_PREFIX_PATH="$tp;$deps/usr" -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >/tmp/c.log 2>&1 && timeout 120 cmake --build /tmp/b -j16 --target rkt-worker >/tmp/bl.log 2>&1; echo "build rc=$? $(( $(date +%s)-s )) s"; tail -2 /tmp/bl.log
for t in memcheck racecheck synccheck; do s=$(date +%s); timeout 40 /usr/local/cuda/bin/compute-sanitizer --tool $t --print-limit 1 /tmp/b/bin/rkt-worker --sanitizer-probe $t > /tmp/p_$t.txt 2>&1; echo "== $t rc=$? $(( $(date +%s)-s )) s"; grep -v "^=========     \(Host\|Device\) Frame\|^=========         " /tmp/p_$t.txt | head -8; done
nvcc -std=c++17 -arch=sm_90 -O3 -o /tmp/l2 tests/kernel_gpu_check/l2_persistence_check.cu && timeout 30 /tmp/l2 | head -3
