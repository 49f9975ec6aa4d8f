"""Python twins of KernelBench level 1 (tasks/kernelbench/level1_*.cpp), for the compiled
(AOTInductor) baseline and as independent evidence that the C++ ports compute what KernelBench's
modules compute. Each twin is written from KernelBench's Model.forward at commit 423217d in
functional form: module parameters are arguments, in the order the C++ task declares its inputs,
and module constants (eps, strides, groups, ...) are spelled out. Each returns a tuple of outputs.

Where the C++ task moves a piece of KernelBench's get_inputs into the computation (13, 14, 15,
100) the twin does the same; docs/kernelbench_tasks.md lists those choices."""
import math

import torch
import torch.nn.functional as F

NORM_EPS = 1e-5  # nn.BatchNorm2d, InstanceNorm2d, GroupNorm and LayerNorm defaults


def _matmul(a, b):
    return (torch.matmul(a, b),)


def _batch_norm_training(x, weight, bias):
    # nn.BatchNorm2d called in training mode: batch statistics; the running buffers are only
    # written, so passing none leaves y unchanged.
    return (F.batch_norm(x, None, None, weight, bias, training=True, momentum=0.1, eps=NORM_EPS),)


def _rms_norm_channels(x):
    rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)
    return (x / rms,)


def _min_gpt_gelu(x):
    inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))
    return (0.5 * x * (1.0 + torch.tanh(inner)),)


def _exclusive_cumsum(x):
    head = torch.zeros_like(x.select(1, 0).unsqueeze(1))
    return (torch.cat((head, torch.cumsum(x.narrow(1, 0, x.size(1) - 1), dim=1)), dim=1),)


def _depthwise_separable(x, depthwise_weight, pointwise_weight):
    y = F.conv2d(x, depthwise_weight, None, stride=1, padding=1, dilation=1, groups=x.shape[1])
    return (F.conv2d(y, pointwise_weight),)


def _hinge(predictions, labels):
    # KernelBench's targets: randint(0, 2).float() * 2 - 1, broadcast along the last dim.
    targets = labels.to(predictions.dtype) * 2 - 1
    return (torch.mean(torch.clamp(1 - predictions * targets, min=0)),)


def _depthwise(x, w):
    return (F.conv2d(x, w, None, 1, 0, 1, x.shape[1]),)


TWINS = {
    # Matrix products.
    "kb_l1_001": _matmul,
    "kb_l1_002": _matmul,
    "kb_l1_003": lambda a, b: (torch.bmm(a, b),),
    "kb_l1_004": _matmul,
    "kb_l1_005": lambda a: (a * 3.14,),
    "kb_l1_006": _matmul,
    "kb_l1_007": _matmul,
    "kb_l1_008": _matmul,
    "kb_l1_009": _matmul,
    "kb_l1_010": _matmul,
    "kb_l1_011": lambda a, b: (torch.einsum("bijl,lk->bijk", a, b),),
    "kb_l1_012": lambda a, b: (a.unsqueeze(1) * b,),
    # 13-15: the operands arrive symmetric / triangular (their input laws, as get_inputs draws).
    "kb_l1_013": lambda a, b: (torch.matmul(a, b),),
    "kb_l1_014": lambda a, b: (torch.triu(torch.matmul(a, b)),),
    "kb_l1_015": lambda a, b: (torch.tril(torch.matmul(a, b)),),
    "kb_l1_016": lambda a, b: (torch.matmul(a.T, b),),
    "kb_l1_017": lambda a, b: (torch.matmul(a, b.T),),
    "kb_l1_018": lambda a, b: (torch.matmul(a.T, b.T),),
    # Activations.
    "kb_l1_019": lambda x: (torch.relu(x),),
    "kb_l1_020": lambda x: (F.leaky_relu(x, negative_slope=0.01),),
    "kb_l1_021": lambda x: (torch.sigmoid(x),),
    "kb_l1_022": lambda x: (torch.tanh(x),),
    "kb_l1_023": lambda x: (torch.softmax(x, dim=1),),
    "kb_l1_024": lambda x: (torch.log_softmax(x, dim=1),),
    "kb_l1_025": lambda x: (x * torch.sigmoid(x),),
    "kb_l1_026": lambda x: (F.gelu(x),),
    "kb_l1_027": lambda x: (torch.selu(x),),
    "kb_l1_028": lambda x: (F.hardsigmoid(x),),
    "kb_l1_029": lambda x: (F.softplus(x),),
    "kb_l1_030": lambda x: (x / (1 + torch.abs(x)),),
    "kb_l1_031": lambda x: (F.elu(x, alpha=1.0),),
    "kb_l1_032": lambda x: (F.hardtanh(x, min_val=-1.0, max_val=1.0),),
    # Normalisations.
    "kb_l1_033": _batch_norm_training,
    "kb_l1_034": lambda x: (F.instance_norm(x, eps=NORM_EPS),),
    "kb_l1_035": lambda x, w, b: (F.group_norm(x, 8, w, b, eps=NORM_EPS),),
    "kb_l1_036": _rms_norm_channels,
    "kb_l1_037": lambda x: (x / torch.norm(x, p="fro"),),
    "kb_l1_038": lambda x: (x / torch.mean(torch.abs(x), dim=1, keepdim=True),),
    "kb_l1_039": lambda x: (x / torch.norm(x, p=2, dim=1, keepdim=True),),
    "kb_l1_040": lambda x, w, b: (F.layer_norm(x, tuple(x.shape[1:]), w, b, eps=NORM_EPS),),
    # Pooling.
    "kb_l1_041": lambda x: (F.max_pool1d(x, kernel_size=8, stride=1, padding=4, dilation=3),),
    "kb_l1_042": lambda x: (F.max_pool2d(x, kernel_size=4, stride=1, padding=1, dilation=1),),
    "kb_l1_043": lambda x: (F.max_pool3d(x, kernel_size=3, stride=2, padding=1, dilation=3),),
    "kb_l1_044": lambda x: (F.avg_pool1d(x, kernel_size=8, stride=1, padding=4),),
    "kb_l1_045": lambda x: (F.avg_pool2d(x, kernel_size=11),),
    "kb_l1_046": lambda x: (F.avg_pool3d(x, kernel_size=3, stride=2, padding=1),),
    # Reductions over dim 1.
    "kb_l1_047": lambda x: (torch.sum(x, dim=1, keepdim=True),),
    "kb_l1_048": lambda x: (torch.mean(x, dim=1),),
    "kb_l1_049": lambda x: (torch.max(x, dim=1)[0],),
    "kb_l1_051": lambda x: (torch.argmax(x, dim=1),),
    "kb_l1_052": lambda x: (torch.argmin(x, dim=1),),
    "kb_l1_053": lambda x: (torch.min(x, dim=1)[0],),
    # Convolutions: stride 1, no padding unless given; only 50 has a bias.
    "kb_l1_050": lambda x, w, b: (F.conv2d(x, w, b, stride=4, padding=2),),
    "kb_l1_054": lambda x, w: (F.conv3d(x, w),),
    "kb_l1_055": lambda x, w: (F.conv2d(x, w),),
    "kb_l1_056": lambda x, w: (F.conv2d(x, w),),
    "kb_l1_057": lambda x, w: (F.conv_transpose2d(x, w),),
    "kb_l1_058": lambda x, w: (F.conv_transpose3d(x, w),),
    "kb_l1_059": lambda x, w: (F.conv3d(x, w),),
    "kb_l1_060": lambda x, w: (F.conv3d(x, w),),
    "kb_l1_061": lambda x, w: (F.conv_transpose3d(x, w),),
    "kb_l1_062": lambda x, w: (F.conv2d(x, w),),
    "kb_l1_063": lambda x, w: (F.conv2d(x, w),),
    "kb_l1_064": lambda x, w: (F.conv_transpose1d(x, w),),
    "kb_l1_065": lambda x, w: (F.conv_transpose2d(x, w),),
    "kb_l1_066": lambda x, w: (F.conv3d(x, w),),
    "kb_l1_067": lambda x, w: (F.conv1d(x, w),),
    "kb_l1_068": lambda x, w: (F.conv_transpose3d(x, w),),
    "kb_l1_069": lambda x, w: (F.conv_transpose2d(x, w),),
    "kb_l1_070": lambda x, w: (F.conv_transpose3d(x, w),),
    "kb_l1_071": lambda x, w: (F.conv_transpose2d(x, w),),
    "kb_l1_072": lambda x, w: (F.conv_transpose3d(
        x, w, stride=(2, 2, 2), padding=(1, 2, 3), output_padding=(1, 1, 1), groups=4),),
    # The module KernelBench builds for 73 has groups=1 (its init arguments shift by one).
    "kb_l1_073": lambda x, w: (F.conv_transpose3d(x, w, stride=2, padding=1),),
    "kb_l1_074": lambda x, w: (F.conv_transpose1d(x, w, stride=1, padding=0, dilation=3),),
    "kb_l1_075": lambda x, w: (F.conv_transpose2d(
        x, w, stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=4),),
    "kb_l1_076": lambda x, w: (F.conv1d(x, w, stride=3, dilation=4),),
    "kb_l1_077": lambda x, w: (F.conv_transpose3d(x, w, stride=2, padding=1, dilation=2),),
    "kb_l1_078": lambda x, w: (F.conv_transpose2d(x, w, stride=(1, 1), padding=(1, 3)),),
    "kb_l1_079": lambda x, w: (F.conv_transpose1d(x, w, stride=2, padding=1, dilation=2),),
    "kb_l1_080": lambda x, w: (F.conv2d(x, w, stride=1, padding=(2, 4), dilation=(2, 3)),),
    "kb_l1_081": lambda x, w: (F.conv_transpose2d(x, w, stride=5, padding=1, dilation=2),),
    "kb_l1_082": _depthwise,
    "kb_l1_083": _depthwise,
    "kb_l1_084": _depthwise,
    "kb_l1_085": _depthwise,
    "kb_l1_086": _depthwise_separable,
    "kb_l1_087": lambda x, w: (F.conv2d(x, w),),
    "kb_l1_088": _min_gpt_gelu,
    # Scans over dim 1.
    "kb_l1_089": lambda x: (torch.cumsum(x, dim=1),),
    "kb_l1_090": lambda x: (torch.cumprod(x, dim=1),),
    "kb_l1_091": lambda x: (torch.cumsum(x.flip(1), dim=1).flip(1),),
    "kb_l1_092": _exclusive_cumsum,
    "kb_l1_093": lambda x, mask: (torch.cumsum(x * mask, dim=1),),
    # Losses.
    "kb_l1_094": lambda p, t: (torch.mean((p - t) ** 2),),
    "kb_l1_095": lambda p, t: (F.cross_entropy(p, t),),
    "kb_l1_096": lambda p, t: (F.smooth_l1_loss(p, t),),
    "kb_l1_097": lambda q, k, v: (F.scaled_dot_product_attention(q, k, v),),
    "kb_l1_098": lambda p, t: (F.kl_div(torch.log(p), t, reduction="batchmean"),),
    "kb_l1_099": lambda a, p, n: (F.triplet_margin_loss(a, p, n, margin=1.0),),
    "kb_l1_100": _hinge,
}
