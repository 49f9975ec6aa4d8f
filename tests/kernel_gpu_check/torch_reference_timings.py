"""LibTorch-equivalent timings (PyTorch eager) for the shapes low_precision_gpu_check.cu times:
scaled_dot_product_attention (the backend PyTorch picks) and matmul + bias + erf GELU, in bf16 and
fp16, so that a GPU run prints the kernels' speed and the baseline's side by side."""
import torch
import torch.nn.functional as F


def time_ms(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / reps


for dtype in (torch.bfloat16, torch.float16):
    n = 4096
    a, b = torch.randn(n, n, device="cuda", dtype=dtype), torch.randn(n, n, device="cuda", dtype=dtype)
    bias = torch.randn(n, device="cuda", dtype=dtype)
    ms = time_ms(lambda: F.gelu(a @ b + bias))
    ms_mm = time_ms(lambda: a @ b)
    print(f"torch gemm+bias+gelu {dtype} {n}^3: {ms:.3f} ms ({2*n**3/ms/1e9:.1f} TFLOP/s); matmul alone {ms_mm:.3f} ms")

for (dtype, d, causal, bsz, h, g, s) in [
    (torch.bfloat16, 128, False, 4, 32, 32, 4096),
    (torch.bfloat16, 128, True, 4, 32, 32, 4096),
    (torch.bfloat16, 128, True, 4, 32, 8, 4096),
    (torch.bfloat16, 64, False, 4, 32, 32, 4096),
    (torch.float16, 128, True, 4, 32, 8, 4096),
    (torch.bfloat16, 128, True, 8, 16, 4, 1000),
]:
    q = torch.randn(bsz, h, s, d, device="cuda", dtype=dtype)
    k = torch.randn(bsz, g, s, d, device="cuda", dtype=dtype)
    v = torch.randn(bsz, g, s, d, device="cuda", dtype=dtype)
    ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=g != h))
    flops = 4 * bsz * h * s * s * d * (0.5 if causal else 1.0)
    print(f"torch sdpa {dtype} D={d} causal={causal} B={bsz} H={h} G={g} S={s}: {ms:.3f} ms ({flops/ms/1e9:.1f} TFLOP/s)")

for dtype in (torch.bfloat16, torch.float16):
    r, n = 4096, 8192
    x = torch.randn(r, n, device="cuda", dtype=dtype)
    w, b = torch.randn(n, device="cuda", dtype=dtype), torch.randn(n, device="cuda", dtype=dtype)
    for name, fn in [
        ("softmax", lambda: torch.softmax(x, -1)),
        ("layernorm", lambda: F.layer_norm(x, (n,), w, b, 1e-5)),
        ("rmsnorm", lambda: F.rms_norm(x, (n,), w, 1e-6)),
        ("gelu", lambda: F.gelu(x)),
        ("silu", lambda: F.silu(x)),
    ]:
        ms = time_ms(fn)
        print(f"torch {name} {dtype} {r}x{n}: {ms:.4f} ms ({4*r*n/ms/1e6:.0f} GB/s)")
for (r, v) in [(4096, 32768), (1024, 128256)]:
    logits = torch.randn(r, v, device="cuda", dtype=torch.bfloat16)
    target = torch.randint(0, v, (r,), device="cuda")
    ms = time_ms(lambda: F.cross_entropy(logits, target, reduction="none"))
    print(f"torch cross_entropy bf16 {r}x{v}: {ms:.4f} ms ({2*r*v/ms/1e6:.0f} GB/s)")
