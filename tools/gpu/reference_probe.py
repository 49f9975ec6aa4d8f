"""Where a float64 reference's time goes on the GPU: rkb_llama_ffw's reference at its test dims
(B=16, T=1024, H=4096, U=14336), step by step, with CUDA events, three times each.
Usage: python3 tools/gpu/reference_probe.py [--repeats N]"""
import argparse
import torch

def timed(label, fn, repeats):
    times = []
    out = None
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        out = fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    print(f"{label}: " + ", ".join(f"{t:.1f}" for t in times) + " ms", flush=True)
    return out

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    B, T, H, U = 16, 1024, 4096, 14336
    print(torch.cuda.get_device_name(), "torch", torch.__version__, flush=True)
    x32 = torch.randn(B, T, H, device="cuda")
    w = [torch.randn(U, H, device="cuda") / H**0.5, torch.randn(U, H, device="cuda") / H**0.5,
         torch.randn(H, U, device="cuda") / U**0.5]
    x = timed("x to float64", lambda: x32.double(), args.repeats)
    wd = timed("weights to float64", lambda: [t.double() for t in w], args.repeats)
    g = timed("float64 linear x @ gate^T (1.92 TFLOP)", lambda: torch.nn.functional.linear(x, wd[0]), args.repeats)
    u = timed("float64 linear x @ up^T", lambda: torch.nn.functional.linear(x, wd[1]), args.repeats)
    h = timed("float64 silu(g) * u", lambda: torch.nn.functional.silu(g) * u, args.repeats)
    timed("float64 linear h @ down^T", lambda: torch.nn.functional.linear(h, wd[2]), args.repeats)
    def whole():
        xs = x32.double()
        ws = [t.double() for t in w]
        return torch.nn.functional.linear(torch.nn.functional.silu(torch.nn.functional.linear(xs, ws[0])) *
                                          torch.nn.functional.linear(xs, ws[1]), ws[2])
    timed("the whole reference from float32 inputs", whole, args.repeats)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float64)
    timed("float64 8192^3 GEMM (1.10 TFLOP)", lambda: a @ a, args.repeats)
    timed("float32 linear x @ gate^T, TF32 off", lambda: torch.nn.functional.linear(x32, w[0]), args.repeats)
    print("peak memory", round(torch.cuda.max_memory_allocated() / 2**30, 2), "GiB")

if __name__ == "__main__":
    main()
