"""What the driver sends a judge for one file, and what comes back.

Both travel through Ray's object store, so they hold plain data only: no handle on the driver's
folders, since a node need not see them.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from rkt_ray.kernel_source import KernelSource


@dataclasses.dataclass
class FileJob:
    """One file to judge with `rkt eval`, with what rkt eval needs to resume it."""

    index: int  # position in the batch
    source: KernelSource
    seed: int  # RKT_SEED: every file of a batch is judged on the same seed (rkt merge checks it)
    eval_arguments: List[str]  # passed to rkt eval after the file: --task, --timeout, ...
    deadline_s: float  # [s] the judge's child rkt eval is killed past this
    # Earlier records of files with this base name, and their libraries' run results: a node's
    # rkt eval resumes from them by library hash exactly as a second local call would.
    earlier_records: List[str] = dataclasses.field(default_factory=list)
    earlier_library_results: Dict[str, str] = dataclasses.field(default_factory=dict)
    # rkt eval --recheck N for this file: its N fastest passing kernels judged again (0: none).
    recheck_kernels: int = 0
    lost_on: List[str] = dataclasses.field(default_factory=list)  # node ids of judges lost with it
    losses: List[str] = dataclasses.field(default_factory=list)  # "node <id> (<ip>): what happened"

    @property
    def path(self) -> str:
        return self.source.path


@dataclasses.dataclass
class FileJudgement:
    """A judge's answer for one file: rkt eval's records and the run results behind them."""

    index: int
    node_id: str
    device_kind: str
    records: List[dict]  # rkt eval --json lines, "file" naming the driver's path
    file_results_json: Optional[str]  # the file's own eval run folder results.json (rkt merge)
    library_results: Dict[str, str]  # library hash -> its child judge's results.json
    judged_hashes: List[str]  # libraries whose child judge ran in this call (not resumed)
    seconds: float  # [s] the rkt eval child's wall time
    exit_code: Optional[int]  # None: killed at the deadline
