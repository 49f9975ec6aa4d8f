#!/usr/bin/env python3
"""Times variants of the eager baselines that run furthest from KernelBench's own medians.

    python3 tools/gpu/kb_baseline_probe.py [--trials 30] [--only NAME]

Each variant is timed the way data/kb_baselines_h200.json was measured (a 2x L2 zero_ before each
trial, CUDA events around one call, the median of the trials after warm-up calls), so that a
variant that lands on KernelBench's median shows which difference in our C++ reference or our
harness made ours slower:
  - BatchNorm: batch statistics with and without running statistics, cuDNN allowed or not (our
    level-1 reference passed no running statistics, level 2's disabled cuDNN; nn.BatchNorm2d has
    both);
  - InstanceNorm: cuDNN allowed or not;
  - ReLU and HingeLoss: one input set, then four sets drawn on the device and rotated (our
    harness), and the same after the allocator's cache was emptied.
Prints one line per variant: name, median ms, KernelBench's median. Standard torch only.
"""
import argparse
import json
import os
import statistics

import torch
import torch.nn.functional as F

KB_FILE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data",
                       "kb_baselines_h200.json")
EPS = 1e-5
MOMENTUM = 0.1


def flush(buffer):
    buffer.zero_()


def time_call(call, sets, trials, warmups=5):
    """Median ms of `call(set)` over `trials`, rotating over `sets`, flushing L2 before each."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    buffer = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    for i in range(warmups):
        call(sets[i % len(sets)])
    torch.cuda.synchronize()
    samples = []
    for i in range(trials):
        flush(buffer)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call(sets[i % len(sets)])
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    return statistics.median(samples)


def batch_norm_variants(shape, channels):
    weight = torch.ones(channels, device="cuda")
    bias = torch.zeros(channels, device="cuda")
    running_mean = torch.zeros(channels, device="cuda")
    running_var = torch.ones(channels, device="cuda")
    module = torch.nn.BatchNorm2d(channels).cuda() if len(shape) == 4 else None
    return {
        "no running stats, cudnn on": lambda x: torch.batch_norm(
            x, weight, bias, None, None, True, MOMENTUM, EPS, True),
        "no running stats, cudnn off": lambda x: torch.batch_norm(
            x, weight, bias, None, None, True, MOMENTUM, EPS, False),
        "running stats in place, cudnn on": lambda x: torch.batch_norm(
            x, weight, bias, running_mean, running_var, True, MOMENTUM, EPS, True),
        "running stats cloned, cudnn on": lambda x: torch.batch_norm(
            x, weight, bias, running_mean.clone(), running_var.clone(), True, MOMENTUM, EPS, True),
        **({"nn.BatchNorm2d module": module} if module is not None else {}),
    }


def probes(trials):
    kb = json.load(open(KB_FILE))["problems"] if os.path.exists(KB_FILE) else {}
    rows = []

    def report(problem, variant, ms):
        theirs = kb.get(problem, {}).get("eager_fp32_ms", float("nan"))
        rows.append((problem, variant, ms, theirs))
        print(f"{problem:10s} {variant:40s} {ms:9.4f} ms   KernelBench {theirs:9.4f} ms   "
              f"ratio {ms / theirs:6.3f}", flush=True)

    # kb_l1_033: BatchNorm2d(64) on (64, 64, 512, 512).
    x = [torch.rand(64, 64, 512, 512, device="cuda")]
    for name, call in batch_norm_variants(x[0].shape, 64).items():
        report("kb_l1_033", name, time_call(call, x, trials))
    del x

    # kb_l2_073: Conv2d(8, 64, 3) then BatchNorm2d(64) then * 2 on (128, 8, 128, 128).
    x = [torch.rand(128, 8, 128, 128, device="cuda")]
    conv = torch.nn.Conv2d(8, 64, 3).cuda()
    for name, bn in batch_norm_variants((128, 64, 126, 126), 64).items():
        report("kb_l2_073", name, time_call(lambda t: bn(conv(t)) * 2.0, x, trials))
    del x

    # kb_l1_034: InstanceNorm2d on (112, 64, 512, 512).
    x = [torch.rand(112, 64, 512, 512, device="cuda")]
    for cudnn in (True, False):
        report("kb_l1_034", f"instance_norm cudnn {'on' if cudnn else 'off'}",
               time_call(lambda t: torch.instance_norm(t, None, None, None, None, True,
                                                       MOMENTUM, EPS, cudnn), x, trials))
    del x

    # kb_l1_019: ReLU on (4096, 393216): one set, four rotated sets, four after empty_cache.
    one = [torch.rand(4096, 393216, device="cuda")]
    report("kb_l1_019", "one input set", time_call(torch.relu, one, trials))
    four = one + [torch.rand(4096, 393216, device="cuda") for _ in range(3)]
    report("kb_l1_019", "four rotated sets", time_call(torch.relu, four, trials))
    torch.cuda.empty_cache()
    report("kb_l1_019", "four rotated sets, cache emptied", time_call(torch.relu, four, trials))
    del one, four
    torch.cuda.empty_cache()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}", flush=True)
    probes(args.trials)


if __name__ == "__main__":
    main()
