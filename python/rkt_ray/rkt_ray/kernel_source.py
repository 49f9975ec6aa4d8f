"""A kernel file as it travels to a node: its bytes and the headers it includes from beside it.

A cluster's nodes need not share the driver's file system, so the driver reads each file and
ships it. `rkt eval` keys a library by the file's base name, its content and the files it
includes with `#include "name"` from its own folder (framework/eval/library_compiler.cpp,
`local_includes`); shipping those at the same relative places makes a node's `rkt eval` compute
the key a local call would. Like rkt, a name computed by a macro is not seen. An include that
leaves the file's folder (`"../x.h"`, an absolute path) is not shipped: the node reads it from
its own file system.

A path that is not a readable regular file of at most `MAX_SHIPPED_BYTES` travels as its path
alone: the node's `rkt eval` then gives it the status a local call would (missing_file,
unreadable_file, file_too_large) when the node sees the same file system, or missing_file.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import re
from typing import Dict, Optional

# rkt eval refuses sources over 1 MiB (eval_defaults.h kMaxSourceBytes) before compiling them.
MAX_SHIPPED_BYTES = 1 << 20  # [bytes]
# As rkt's kMaxLocalIncludes: a guard against include cycles through links.
MAX_LOCAL_INCLUDES = 256  # [files]

_QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


@dataclasses.dataclass(frozen=True)
class KernelSource:
    """One file of a batch: where the driver found it and what a node needs to compile it."""

    path: str  # as the caller gave it; records name this
    name: str  # base name: part of rkt eval's library key
    content: Optional[bytes]  # None: the node reads `path` itself
    local_includes: Dict[str, bytes]  # path relative to the file's folder -> bytes

    @property
    def is_cuda(self) -> bool:
        return self.name.endswith(".cu")

    def write_into(self, folder: pathlib.Path) -> str:
        """Writes the file and its local includes under `folder`; returns the path to judge."""
        if self.content is None:
            return self.path
        folder.mkdir(parents=True, exist_ok=True)
        for relative, data in self.local_includes.items():
            target = folder / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        target = folder / self.name
        target.write_bytes(self.content)
        return str(target)


def _inside(folder: pathlib.Path, path: pathlib.Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _local_includes(source: pathlib.Path) -> Dict[str, bytes]:
    """The quoted includes found beside `source`, recursively, as rkt's key reads them."""
    folder = source.parent.resolve()
    found: Dict[str, bytes] = {}
    seen = {source.resolve()}
    pending = [source]
    while pending and len(seen) <= MAX_LOCAL_INCLUDES:
        including = pending.pop()
        try:
            text = including.read_text(errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            match = _QUOTED_INCLUDE.match(line)
            if not match:
                continue
            name = match.group(1)
            if os.path.isabs(name):
                continue
            candidate = (including.parent / name).resolve()
            if candidate in seen or not candidate.is_file() or not _inside(folder, candidate):
                continue
            seen.add(candidate)
            try:
                found[str(candidate.relative_to(folder))] = candidate.read_bytes()
            except OSError:
                continue  # the compiler will say so
            pending.append(candidate)
    return found


def read_kernel_source(path: str) -> KernelSource:
    """Reads `path` for shipping; a file that cannot be shipped travels as its path alone."""
    name = os.path.basename(path)
    file = pathlib.Path(path)
    try:
        if not file.is_file() or file.stat().st_size > MAX_SHIPPED_BYTES:
            return KernelSource(path, name, None, {})
        content = file.read_bytes()
    except OSError:
        return KernelSource(path, name, None, {})
    return KernelSource(path, name, content, _local_includes(file))
