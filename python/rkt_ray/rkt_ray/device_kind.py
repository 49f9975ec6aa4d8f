"""What a judge compiles for, as a name: the library cache is kept apart per device kind.

rkt eval's cache key already holds the CUDA architecture it compiles a `.cu` file for (the
visible GPU's, read with nvidia-smi as `eval_toolchain.cpp` reads it), but a shared cache folder
would still let a node of another architecture meet a library it cannot run when the toolchain
falls back to its default architecture (no GPU visible). Each judge therefore points
RKT_EVAL_CACHE at `<cache root>/<device kind>`: `cpu-x86_64`, `cuda-sm90-NVIDIA_H200`. A library
built for one architecture is never judged on another, and nodes of one kind that share a file
system share their libraries (compile once).
"""
from __future__ import annotations

import os
import platform
import re
import subprocess

NVIDIA_SMI_TIMEOUT_S = 30  # [s] a wedged driver must not hang an actor's start


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.strip()).strip("_") or "unknown"


def visible_gpu_description() -> tuple[str, str]:
    """(compute capability digits, name) of the first visible GPU; ("", "") when none."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and not visible.strip():
        return "", ""
    command = ["nvidia-smi", "--query-gpu=compute_cap,name", "--format=csv,noheader"]
    if visible:
        command.append("--id=" + visible.split(",")[0])
    try:
        output = subprocess.run(command, capture_output=True, text=True,
                                timeout=NVIDIA_SMI_TIMEOUT_S, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "", ""
    first = output.strip().splitlines()[0] if output.strip() else ""
    if "," not in first:
        return "", ""
    capability, name = first.split(",", 1)
    digits = "".join(c for c in capability if c.isdigit())
    return (digits, name.strip()) if len(digits) >= 2 else ("", "")


def device_kind(cuda: bool) -> str:
    """`cpu-<machine>` for a CPU judge; `cuda-sm<cc>-<GPU name>` for a GPU judge."""
    if not cuda:
        return "cpu-" + _slug(platform.machine())
    capability, name = visible_gpu_description()
    if not capability:
        return "cuda-none"  # rkt eval compiles for its default architecture and skips the kernels
    return "cuda-sm" + capability + "-" + _slug(name)


def library_cache_folder(cache_root: str, kind: str) -> str:
    """The RKT_EVAL_CACHE a judge of `kind` uses under `cache_root`."""
    return os.path.join(cache_root, kind)


CACHE_ROOT_VARIABLE = "RKT_RAY_CACHE"  # a node's own choice of cache root


def default_cache_root() -> str:
    """$RKT_RAY_CACHE on the node, else ~/.cache/rkt/eval-ray; each device kind a folder beneath.

    Not rkt's own cache folder: its size limit treats every entry of the folder as a library.
    """
    chosen = os.environ.get(CACHE_ROOT_VARIABLE)
    if chosen:
        return chosen
    return os.path.join(os.path.expanduser("~"), ".cache", "rkt", "eval-ray")
