#!/usr/bin/env python3
"""Summarises the `buffer_pool` step of tools/gpu/run.sh: `rkt test --kernel K --json` under
several settings of the shared-buffer pool (RKT_SHARED_BUFFER_POOL) and the slabs
(RKT_SHARED_DEVICE_SLABS). Reads FOLDER/<setting>/<kernel id with / as __>.json and
FOLDER/times.tsv (setting, kernel, exit code, wall seconds); prints, per kernel and setting, the
wall time, the sum of each phase over the cases (framework/base/phase_times.h) and the slowest
cases."""
import collections
import json
import pathlib
import sys


def main(folder: pathlib.Path) -> None:
    walls = {}
    for line in (folder / "times.tsv").read_text().splitlines():
        setting, kernel, code, seconds = line.split("\t")
        walls[(setting, kernel)] = (int(code), float(seconds))
    settings = sorted({s for s, _ in walls})
    kernels = sorted({k for _, k in walls})
    print("kernel\tsetting\texit\twall_s\tcases_s\t" +
          "\t".join(["drawing", "references", "kernel_calls", "buffer_sharing", "comparison", "timing"]) +
          "\tslowest cases (ms)")
    for kernel in kernels:
        for setting in settings:
            if (setting, kernel) not in walls:
                continue
            code, wall = walls[(setting, kernel)]
            path = folder / setting / (kernel.replace("/", "__") + ".json")
            phases = collections.Counter()
            cases_ms = 0.0
            slowest = []
            statuses = collections.Counter()
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                record = {"cases": []}
            for case in record.get("cases", []):
                statuses[case["status"]] += 1
                cases_ms += case.get("milliseconds") or 0
                for name, ms in case.get("time_breakdown_ms", {}).items():
                    phases[name] += ms
                slowest.append((case.get("milliseconds") or 0, case["case"]))
            slowest.sort(reverse=True)
            print(f"{kernel}\t{setting}\t{code}\t{wall:.2f}\t{cases_ms / 1000:.2f}\t" +
                  "\t".join(f"{phases[p] / 1000:.2f}" for p in
                            ["drawing", "references", "kernel_calls", "buffer_sharing", "comparison", "timing"]) +
                  "\t" + ", ".join(f"{name} {ms:.0f}" for ms, name in slowest[:4]) +
                  "\t" + " ".join(f"{s}={n}" for s, n in sorted(statuses.items())))


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
