"""The judges of a batch: one CPU judge per live node and one CUDA judge per GPU.

Each judge is pinned to its node (NodeAffinitySchedulingStrategy, not soft), so a node that
dies takes its judges with it and a judge never wanders onto another node's resources. The pool
is refreshed from `ray.nodes()` when a judge is lost and every `refresh_s` seconds, so nodes that
join mid-batch get judges and a node that left is forgotten. A node whose judge was lost gets no
new judge for `NODE_COOLDOWN_S`: Ray may not yet know that the node is gone, and a judge started
there would only lose the next file too.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Dict, List, Optional

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from rkt_ray.judge_actor import CpuJudge, CudaJudge

NODE_COOLDOWN_S = 60.0  # [s] no new judge on a node whose judge was lost this recently


@dataclasses.dataclass
class Judge:
    handle: "ray.actor.ActorHandle"
    node_id: str
    node_address: str
    cuda: bool
    busy: bool = False

    def name(self) -> str:
        return "node %s (%s)" % (self.node_id[:12], self.node_address)


class JudgePool:
    def __init__(self, rkt: str, runtime_env: dict, cache_root: Optional[str],
                 scratch_root: Optional[str], refresh_s: float):
        self.rkt = rkt
        self.runtime_env = runtime_env
        self.cache_root = cache_root
        self.scratch_root = scratch_root
        self.refresh_s = refresh_s
        self.judges: List[Judge] = []
        self.lost_at: Dict[str, float] = {}  # node id -> when a judge of it was lost
        self._refreshed_at = 0.0

    def _start(self, node: dict, cuda: bool) -> Judge:
        judge_class = CudaJudge if cuda else CpuJudge
        handle = judge_class.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
            runtime_env=self.runtime_env,
        ).remote(self.rkt, cuda, self.cache_root, self.scratch_root)
        return Judge(handle, node["NodeID"], node.get("NodeManagerAddress", "?"), cuda)

    def refresh(self, force: bool = False) -> None:
        """Judges for live nodes that lack them; forgets judges of nodes that are gone."""
        now = time.monotonic()
        if not force and now - self._refreshed_at < self.refresh_s:
            return
        self._refreshed_at = now
        alive = {n["NodeID"]: n for n in ray.nodes() if n.get("Alive")}
        self.judges = [j for j in self.judges if j.node_id in alive]
        for node_id, node in alive.items():
            if now - self.lost_at.get(node_id, -NODE_COOLDOWN_S) < NODE_COOLDOWN_S:
                continue
            resources = node.get("Resources", {})
            have_cpu = sum(1 for j in self.judges if j.node_id == node_id and not j.cuda)
            have_gpu = sum(1 for j in self.judges if j.node_id == node_id and j.cuda)
            if resources.get("CPU", 0) >= 1 and have_cpu == 0:
                self.judges.append(self._start(node, cuda=False))
            for _ in range(int(resources.get("GPU", 0)) - have_gpu):
                self.judges.append(self._start(node, cuda=True))

    def lose(self, judge: Judge) -> None:
        """A judge whose call failed with its actor: not used again; its node rests a while."""
        self.judges = [j for j in self.judges if j is not judge]
        self.lost_at[judge.node_id] = time.monotonic()
        try:
            ray.kill(judge.handle, no_restart=True)
        except Exception:  # already gone
            pass

    def idle(self, cuda: bool) -> List[Judge]:
        return [j for j in self.judges if not j.busy and j.cuda == cuda]

    def pick(self, cuda: bool, avoid: List[str]) -> Optional[Judge]:
        """An idle judge of the kind, on a node the file was not lost on when one is free."""
        idle = self.idle(cuda)
        elsewhere = [j for j in idle if j.node_id not in avoid]
        return (elsewhere or idle or [None])[0]

    def has_gpus(self) -> bool:
        return any(j.cuda for j in self.judges)

    def count(self) -> Dict[str, int]:
        return {"cpu": sum(not j.cuda for j in self.judges),
                "cuda": sum(j.cuda for j in self.judges)}

    def shutdown(self) -> None:
        for judge in self.judges:
            try:
                ray.kill(judge.handle, no_restart=True)
            except Exception:
                pass
        self.judges = []
