"""Python twins of tasks/low_precision_tasks.cpp and tasks/attention_tasks.cpp (the bf16 and fp16
tasks), for the compiled (AOTInductor) baseline. Each twin computes in its inputs' dtype: the
builder exports it on bf16 or fp16 inputs, so the compiled baseline runs in the task's format (and
the agreement check runs it in float64). The framework checks every compiled twin against the C++
reference, with the bound an fp32-accumulating kernel of the format gets, before timing it."""
import torch
import torch.nn.functional as F

LAYER_NORM_EPS = 1e-5
RMS_NORM_EPS = 1e-6


def matmul_bias_gelu(a, b, bias):
    return (F.gelu(torch.addmm(bias, a, b)),)


def cross_entropy(logits, target):
    loss = torch.logsumexp(logits, 1) - logits.gather(1, target.unsqueeze(1)).squeeze(1)
    return (loss if logits.dtype == torch.float64 else loss.float(),)


def attention(q, k, v, causal):
    return (F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                           enable_gqa=q.shape[1] != k.shape[1]),)


TWINS = {}
for fmt in ("bf16", "fp16"):
    TWINS.update({
        f"matmul_bias_gelu_{fmt}": matmul_bias_gelu,
        f"softmax_{fmt}": lambda x: (torch.softmax(x, -1),),
        f"layernorm_{fmt}": lambda x, w, b: (F.layer_norm(x, (x.shape[-1],), w, b, LAYER_NORM_EPS),),
        f"rmsnorm_{fmt}": lambda x, w: (F.rms_norm(x, (x.shape[-1],), w, RMS_NORM_EPS),),
        f"cross_entropy_{fmt}": cross_entropy,
        f"gelu_{fmt}": lambda x: (F.gelu(x),),
        f"silu_{fmt}": lambda x: (F.silu(x),),
        f"attention_{fmt}": lambda q, k, v: attention(q, k, v, False),
        f"attention_causal_{fmt}": lambda q, k, v: attention(q, k, v, True),
    })
