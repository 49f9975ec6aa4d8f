#!/usr/bin/env python3
"""The framework's include graph: its folders, layers and any include that reaches up.

    tools/include_layers.py [--root DIR] [--check]

Reads every `#include "framework/..."` and `#include "rkt/..."` line under DIR/framework and
DIR/include/rkt (DIR defaults to the checkout this script is in) and prints:
  - each folder of framework/ with its file and line counts;
  - the module graph (a module is one stem: x.h with x.cpp) with its include arrows, its depth
    in layers (the longest chain of arrows, cycles counted as one layer) and the arrows that close
    a cycle between modules;
  - the folder graph: an arrow from folder A to folder B for each module of A that includes one
    of B, and every arrow that reaches up (from a folder to one above it in FOLDER_ORDER).
With --check it exits 1 when an include reaches up between folders, a module cycle crosses
folders, a folder is missing from FOLDER_ORDER, or a public header (include/rkt/) includes a
framework header. ctest runs it so (test `rkt_include_layers`).
"""
import argparse
import collections
import pathlib
import re
import sys

# The folders of framework/, lowest first: each may include only folders before it (and itself).
# docs/architecture.md, "Folder map", says what each owns. `worker` is its own side of the trust
# boundary: it may use kernel_api, runtime and wire, and nothing of the judge uses it.
FOLDER_ORDER = [
    "base",          # files and options: no knowledge of kernels or tasks
    "kernel_api",    # what kernel libraries link: the kernel registry and light types
    "runtime",       # running a kernel on tensors (streams, scrub, observer, flush, memory)
    "wire",          # the judge-worker protocol
    "worker",        # the worker process
    "timing",        # the timing engine, statistics, device peaks
    "isolation",     # where kernels run: kernel library, worker process, shared tensors
    "dims",          # dims: resolution, kernel domains, edge-seeking ranges
    "registry",      # the task and property registries and their validation
    "inputs",        # drawing, scaling, seeding, hidden inputs
    "comparison",    # judging an output: comparison, derived tolerances, precision emulation
    "cases",         # correctness, properties, relations, value families, integrity, catalog
    "baselines",     # compiled (AOTInductor) and backward baselines, Python twins
    "benchmarks",    # benchmark cases, records, Google Benchmark entries
    "supervision",   # gtest expansion, the verdict channel, the supervisor, worker loans
    "runs",          # the main job, run folders, reports, merge, compare, the baseline table
    "eval",          # rkt eval and rkt template: source files compiled, judged by child runs
    "serve",         # rkt serve: the long-lived judge on a socket, over eval's judging
    "cli",           # the rkt command line and the judge's main
]
# Folders outside the judge's chain: nothing below them may include them.
SIDE_FOLDERS = {"worker"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:framework|rkt)/[^"]+)"', re.M)


def module_of(path: str) -> str:
    """framework/cases/property_cases.cpp -> framework/cases/property_cases"""
    return re.sub(r"\.(h|cpp|cu|cuh)$", "", path)


def folder_of(path: str) -> str:
    parts = path.split("/")
    if parts[0] == "rkt":
        return "include/rkt"
    return parts[1] if len(parts) > 2 else "(top)"


def read_graph(root: pathlib.Path):
    files = {}
    for base, prefix in ((root / "framework", "framework"), (root / "include" / "rkt", "rkt")):
        for path in sorted(base.rglob("*")):
            if path.suffix in (".h", ".cpp", ".cu", ".cuh") and path.is_file():
                name = prefix + "/" + path.relative_to(base).as_posix()
                files[name] = path.read_text(errors="replace")
    arrows = set()
    for name, text in files.items():
        for target in INCLUDE.findall(text):
            if module_of(target) != module_of(name):
                arrows.add((module_of(name), module_of(target)))
    return files, arrows


def strongly_connected(nodes, arrows):
    """Tarjan's algorithm; returns a component index per node."""
    succ = collections.defaultdict(list)
    for a, b in arrows:
        succ[a].append(b)
    index, low, on_stack, stack, comp = {}, {}, set(), [], {}
    counter = [0]

    def visit(v):
        work = [(v, iter(succ[v]))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ[w])))
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = node
                    if w == node:
                        break

    for v in nodes:
        if v not in index:
            visit(v)
    return comp


def layers(nodes, arrows, comp):
    """Depth of the condensed graph: 1 for a module that includes nothing of the project."""
    succ = collections.defaultdict(set)
    for a, b in arrows:
        if comp[a] != comp[b]:
            succ[comp[a]].add(comp[b])
    depth = {}

    def d(c):
        if c not in depth:
            depth[c] = 0
            depth[c] = 1 + max((d(s) for s in succ[c]), default=0)
        return depth[c]

    return max((d(comp[v]) for v in nodes), default=0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parent.parent))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    files, arrows = read_graph(root)
    nodes = sorted({module_of(f) for f in files})
    comp = strongly_connected(nodes, arrows)
    cycle_arrows = sorted((a, b) for a, b in arrows if comp[a] == comp[b])
    problems = []

    print("folders of framework/ (files, lines):")
    counts = collections.Counter()
    lines = collections.Counter()
    for name, text in files.items():
        if name.startswith("framework/"):
            counts[folder_of(name)] += 1
            lines[folder_of(name)] += text.count("\n")
    for folder in sorted(counts, key=lambda f: (FOLDER_ORDER.index(f) if f in FOLDER_ORDER else -1, f)):
        print(f"  {folder:<12} {counts[folder]:>3} files {lines[folder]:>6} lines")
        if folder not in FOLDER_ORDER:
            problems.append(f"folder framework/{folder} is not in FOLDER_ORDER")
    print(f"  {'total':<12} {sum(counts.values()):>3} files {sum(lines.values()):>6} lines")

    print(f"modules: {len(nodes)}, include arrows between modules: {len(arrows)}, "
          f"layers: {layers(nodes, arrows, comp)}, arrows inside module cycles: {len(cycle_arrows)}")
    for a, b in cycle_arrows:
        print(f"  cycle arrow: {a} -> {b}")
        if folder_of(a) != folder_of(b):
            problems.append(f"a module cycle crosses folders: {a} -> {b}")

    folder_arrows = collections.Counter()
    for a, b in arrows:
        fa, fb = folder_of(a), folder_of(b)
        if fa != fb:
            folder_arrows[(fa, fb)] += 1
    up = []
    for (fa, fb), n in sorted(folder_arrows.items()):
        if fa == "include/rkt":
            up.append((fa, fb, n))
            problems.append(f"public header include/rkt includes framework/{fb}")
            continue
        if fb == "include/rkt" or fa not in FOLDER_ORDER or fb not in FOLDER_ORDER:
            continue
        if FOLDER_ORDER.index(fb) > FOLDER_ORDER.index(fa) or fb in SIDE_FOLDERS:
            up.append((fa, fb, n))
    print(f"folder arrows: {len([k for k in folder_arrows if 'include/rkt' not in k])}, "
          f"reaching up: {len(up)}")
    for fa, fb, n in up:
        culprits = sorted(f"{a} -> {b}" for a, b in arrows if folder_of(a) == fa and folder_of(b) == fb)
        print(f"  UP {fa} -> {fb} ({n}): " + "; ".join(culprits))
        if fa != "include/rkt":
            problems.append(f"framework/{fa} includes framework/{fb}, which lies above it")
    if args.check and problems:
        for p in problems:
            print("include_layers: " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
