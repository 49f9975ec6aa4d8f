"""How many elements of a TF32 matmul fall outside the tf32 tolerance (include/rkt/precision.h:
|out - ref| <= 1e-3 * rms(ref) + 1e-3 * |ref|), on the CPU.

Emulates one TF32 product per term (both operands rounded to TF32, the products summed exactly in
float64, i.e. better than any tensor core) and 3xTF32 (kernels/cuda/tf32x3_gemm.cuh's split),
against the float64 product. Run: python tools/tf32_rounding_check.py [M K N] (default 512 4096
1024; a few seconds). Seen (torch 2.11, seed 0): 1xTF32 16 of 524,288 elements outside, max error
1.3e-3 x rms; 3xTF32 none (max error 7.3e-7 x rms). The ratio error / rms does not depend on K, so any large product has
such elements: a single TF32 product per term cannot pass the tf32 correctness cases.
"""
import sys

import torch


def round_to_tf32(x):
    """Round float32 to TF32 (10 explicit mantissa bits), to nearest, ties away (cvt.rna)."""
    bits = x.float().view(torch.int32)
    return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)


def truncate_to_tf32(x):
    return (x.float().view(torch.int32) & ~0x1FFF).view(torch.float32)


def outside(out, ref):
    rms = ref.pow(2).mean().sqrt()
    err = (out - ref).abs()
    return int((err > 1e-3 * rms + 1e-3 * ref.abs()).sum()), float((err / rms).max())


def main():
    m, k, n = (int(v) for v in sys.argv[1:4]) if len(sys.argv) == 4 else (512, 4096, 1024)
    torch.manual_seed(0)
    a, b = torch.randn(m, k), torch.randn(k, n)
    ref = a.double() @ b.double()
    one = round_to_tf32(a).double() @ round_to_tf32(b).double()
    a_hi, b_hi = truncate_to_tf32(a), truncate_to_tf32(b)
    a_lo, b_lo = round_to_tf32(a - a_hi), round_to_tf32(b - b_hi)
    three = (a_lo.double() @ b_hi.double() + a_hi.double() @ b_lo.double()
             + a_hi.double() @ b_hi.double())
    for name, out in (("1xTF32", one), ("3xTF32", three)):
        count, worst = outside(out, ref)
        print(f"{name}: {count} of {ref.numel()} elements outside, max |err| / rms = {worst:.2e}")


if __name__ == "__main__":
    main()
