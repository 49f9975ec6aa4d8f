#!/usr/bin/env python3
"""Reads a `ctest -V` log of CUDA tests run with a resource spec and checks that no two tests
held the same GPU at once, from the lines the judge prints (framework/supervision/gpu_pinning.cpp):
  "<test>: rkt: ctest allocated GPU 1: ...; gpu 1 taken at <ms>"  and  "<test>: rkt: gpu 1 released at <ms>".
Prints the tests per GPU and any overlap; exit status 1 on an overlap or when no line is found."""
import re
import sys
from collections import defaultdict

taken = re.compile(r"^(\d+): rkt: .*; gpu (\S+) taken at (\d+)")
released = re.compile(r"^(\d+): rkt: gpu (\S+) released at (\d+)")
spans = {}
for line in open(sys.argv[1], errors="replace"):
    if m := taken.match(line):
        spans[m[1]] = [m[2], int(m[3]), None]
    elif (m := released.match(line)) and m[1] in spans:
        spans[m[1]][2] = int(m[3])
by_gpu = defaultdict(list)
for test, (gpu, start, end) in spans.items():
    by_gpu[gpu].append((start, end if end is not None else start, test))
overlaps = 0
for gpu, intervals in sorted(by_gpu.items()):
    intervals.sort()
    for (s1, e1, t1), (s2, e2, t2) in zip(intervals, intervals[1:]):
        if s2 < e1:
            overlaps += 1
            print(f"overlap on gpu {gpu}: test {t1} [{s1}, {e1}] and test {t2} [{s2}, {e2}]")
    busy = sum(e - s for s, e, _ in intervals) / 1000
    print(f"gpu {gpu}: {len(intervals)} tests, {busy:.1f} s busy")
print(f"{len(spans)} pinned tests, {overlaps} overlaps")
sys.exit(1 if overlaps or not spans else 0)
