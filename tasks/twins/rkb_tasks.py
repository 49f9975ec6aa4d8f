"""Python twins of tasks/rkb_tasks.cpp (robust-kbench's forward tasks), for the compiled
(AOTInductor) baseline. Each twin takes the task's inputs in order and returns a tuple of its
outputs; the framework checks every compiled twin against the C++ reference before timing it."""
import torch
import torch.nn.functional as F

LAYER_NORM_EPS = 1e-5
RMS_NORM_EPS = 1e-5
BATCH_NORM_EPS = 1e-5


def llama_ffw(x, gate, up, down):
    return (F.linear(F.silu(F.linear(x, gate)) * F.linear(x, up), down),)


def resnet_block(x, c1, w1, b1, m1, v1, c2, w2, b2, m2, v2):
    out = F.conv2d(x, c1, stride=1, padding=1)
    out = F.relu(F.batch_norm(out, m1, v1, w1, b1, training=False, eps=BATCH_NORM_EPS))
    out = F.conv2d(out, c2, stride=1, padding=1)
    out = F.batch_norm(out, m2, v2, w2, b2, training=False, eps=BATCH_NORM_EPS)
    return (F.relu(out + x),)


TWINS = {
    "rkb_layernorm": lambda x, w, b: (F.layer_norm(x, w.shape, w, b, LAYER_NORM_EPS),),
    "rkb_llama_rmsnorm": lambda x, w: (
        x * torch.rsqrt(x.square().mean(-1, keepdim=True) + RMS_NORM_EPS) * w,),
    "rkb_mnist_linear": lambda x, w, b: (F.linear(x, w, b),),
    "rkb_mnist_linear_relu": lambda x, w, b: (F.relu(F.linear(x, w, b)),),
    "rkb_unet_linear": lambda x, w, b: (F.linear(x, w, b),),
    "rkb_llama_ffw": llama_ffw,
    "rkb_mnist_conv_relu_pool": lambda x, w, b: (F.max_pool2d(F.relu(F.conv2d(x, w, b)), 2),),
    "rkb_mnist_pool": lambda x: (F.max_pool2d(x, 2),),
    "rkb_unet_conv2d": lambda x, w, b: (F.conv2d(x, w, b, stride=1, padding=1),),
    "rkb_resnet_block": resnet_block,
    "rkb_mnist_cross_entropy": lambda p, t: (F.cross_entropy(p, t),),
}
