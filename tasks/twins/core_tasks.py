"""Python twins of tasks/core_tasks.cpp: the same computation in PyTorch, for the compiled
(AOTInductor) baseline. Each twin takes the task's inputs in order and returns a tuple of its
outputs. The framework checks every compiled twin against the C++ reference before timing it."""
import torch
import torch.nn.functional as F

DROPOUT_KEEP = 0.9  # tasks/core_tasks.cpp: kDropoutKeep

TWINS = {
    "relu": lambda x: (torch.relu(x),),
    "sum_dim": lambda x: (x.sum(1),),
    "softmax": lambda x: (torch.softmax(x, -1),),
    "layernorm": lambda x, w, b: (F.layer_norm(x, (x.shape[-1],), w, b, 1e-5),),
    "rmsnorm": lambda x, w: (x * torch.rsqrt(x.square().mean(-1, keepdim=True) + 1e-6) * w,),
    "matmul": lambda a, b: (a @ b,),
    "conv2d": lambda x, w, b: (F.conv2d(x, w, b, stride=1, padding=1),),
    "cross_entropy": lambda logits, target: (F.cross_entropy(logits, target),),
    "dropout": lambda x, keep: (x * keep.to(x.dtype) / DROPOUT_KEEP,),
}
