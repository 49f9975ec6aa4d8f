#!/usr/bin/env python3
"""Issue 18's figures from a `speed` step of tools/gpu/run.sh.

    speed_summary.py SPEED_DIR

SPEED_DIR holds, per CUDA kernel, `<n>.json` (the output of `rkt test --kernel ID --json`: a
document whose "cases" lists every case) and `times.tsv` (kernel id, exit code, wall seconds). Prints per kernel the
wall time, the cases passed/failed/skipped, the median correctness case and the property cases'
times, then the medians over kernels.
"""
import json
import pathlib
import statistics
import sys

root = pathlib.Path(sys.argv[1])
rows = []
case_rows = []
for line in (root / "times.tsv").read_text().splitlines():
    ordinal, kernel, code, seconds = line.split("\t")
    records = []
    path = root / f"{ordinal}.json"
    if path.exists():
        try:
            # --kernel matches ids containing KERNEL (conv2d/x also selects rkb_unet_conv2d/x):
            # keep this kernel's own cases.
            records = [r for r in json.loads(path.read_text()).get("cases", [])
                       if r.get("suite") == kernel]
        except json.JSONDecodeError:
            records = []  # a killed run leaves a partial document
    for record in records:
        case_rows.append((kernel, record.get("case", ""), record.get("status", ""),
                          record.get("milliseconds")))
    status = {}
    correctness, shapes, scale = [], None, None
    for record in records:
        status[record.get("status")] = status.get(record.get("status"), 0) + 1
        case = record.get("case", record.get("name", ""))
        ms = record.get("milliseconds")
        if ms is None:
            continue
        if "correctness_" in case:
            correctness.append(ms)
        elif case.endswith("property_shapes"):
            shapes = ms
        elif case.endswith("property_scale"):
            scale = ms
    rows.append((kernel, int(code), float(seconds), status,
                 statistics.median(correctness) if correctness else None, shapes, scale))

print(f"{'kernel':<48} {'exit':>4} {'wall s':>7} {'corr. ms':>9} {'shapes ms':>9} {'scale ms':>9}  cases")
for kernel, code, seconds, status, corr, shapes, scale in rows:
    f = lambda v: "-" if v is None else f"{v:.0f}"
    cases = ", ".join(f"{n} {s}" for s, n in sorted(status.items()))
    print(f"{kernel:<48} {code:>4} {seconds:>7.1f} {f(corr):>9} {f(shapes):>9} {f(scale):>9}  {cases}")
walls = [r[2] for r in rows]
corrs = [r[4] for r in rows if r[4] is not None]
shapes = [r[5] for r in rows if r[5] is not None]
if walls:
    print(f"kernels: {len(rows)}; rkt test wall: median {statistics.median(walls):.1f} s, "
          f"max {max(walls):.1f} s; correctness case median over kernels: "
          f"{statistics.median(corrs) if corrs else float('nan'):.0f} ms; property_shapes median: "
          f"{statistics.median(shapes) if shapes else float('nan'):.0f} ms, "
          f"max {max(shapes) if shapes else float('nan'):.0f} ms")
with open(root / "cases.tsv", "w") as out:
    out.write("kernel\tcase\tstatus\tmilliseconds\n")
    for kernel, case, status, ms in case_rows:
        out.write(f"{kernel}\t{case}\t{status}\t{ms}\n")
