"""Fixtures of the Ray front end's tests: a three-node Ray cluster on loopback, shared by them all.

The cluster is `ray.cluster_utils.Cluster`: three raylets on this machine (one CPU each), every
address 127.0.0.1 (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 makes Ray take the loopback address as
each node's, as it does on a laptop). The test process is the driver. Every wait is bounded;
ctest's TIMEOUT bounds the whole.
"""
import os
import pathlib
import sys
import tempfile
import time

# Before ray is imported: loopback only, no usage report.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# Judges import rkt_ray in Ray's worker processes, which inherit this environment.
PACKAGE_ROOT = pathlib.Path(__file__).resolve().parents[2] / "python" / "rkt_ray"
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(PACKAGE_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
sys.path.insert(0, str(PACKAGE_ROOT))
# The tests hand secrets to the judges themselves: none may reach the cluster from here.
for _variable in ("RKT_SECRET_SEED", "RKT_HIDDEN_SUITE", "RKT_HIDDEN_VERBOSE"):
    os.environ.pop(_variable, None)
# Where fake_rkt.py writes the RKT_SECRET_SEED each call saw (set before the raylets start).
SECRETS_SEEN = pathlib.Path(tempfile.mkdtemp(prefix="rkt_ray_test_")) / "secrets_seen.txt"
os.environ["FAKE_RKT_SEEN"] = str(SECRETS_SEEN)
# The judges' library caches (device_kind.py), fresh for the session: read by the raylets' workers.
os.environ["RKT_RAY_CACHE"] = str(SECRETS_SEEN.parent / "library_cache")
os.environ["RKT_RAY_SCRATCH"] = str(SECRETS_SEEN.parent / "scratch")  # the judges' own folders

import pytest  # noqa: E402
import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

NODES = 3  # the simulated cluster
NODE_START_TIMEOUT_S = 120  # [s] a raylet takes a few seconds to register on a loaded 2-core host
NODE_ARGUMENTS = {"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024}  # [bytes]


class LoopbackCluster:
    def __init__(self):
        self.cluster = Cluster(initialize_head=True, head_node_args=dict(
            NODE_ARGUMENTS, include_dashboard=False))
        self.workers = []
        self.fill()
        ray.init(address=self.cluster.address, log_to_driver=False)

    @property
    def address(self) -> str:
        return self.cluster.address

    def fill(self) -> None:
        """Adds worker nodes until the cluster has NODES live nodes again."""
        while 1 + len(self.workers) < NODES:
            self.workers.append(self.cluster.add_node(wait=False, **NODE_ARGUMENTS))
        self.cluster.wait_for_nodes(timeout=NODE_START_TIMEOUT_S)
        if ray.is_initialized():
            deadline = time.monotonic() + NODE_START_TIMEOUT_S
            while sum(1 for n in ray.nodes() if n["Alive"]) < NODES:
                assert time.monotonic() < deadline, "the cluster did not get back to %d nodes" % NODES
                time.sleep(0.5)

    def kill_worker(self, index: int = 0):
        """Kills a worker node outright (its raylet and workers), as a machine lost."""
        node = self.workers.pop(index)
        self.cluster.remove_node(node, allow_graceful=False)
        return node

    def shutdown(self) -> None:
        ray.shutdown()
        self.cluster.shutdown()


@pytest.fixture(scope="session")
def loopback_cluster():
    cluster = LoopbackCluster()
    yield cluster
    cluster.shutdown()


@pytest.fixture
def full_cluster(loopback_cluster):
    """The shared cluster with all NODES nodes live (a test before may have killed one)."""
    loopback_cluster.fill()
    return loopback_cluster


@pytest.fixture(scope="session")
def fake_rkt():
    return str(pathlib.Path(__file__).with_name("fake_rkt.py"))


@pytest.fixture(scope="session")
def real_rkt():
    """The rkt under test: RKT_BINARY (the ctest entry passes the build's)."""
    rkt = os.environ.get("RKT_BINARY")
    if not rkt or not os.access(rkt, os.X_OK):
        pytest.skip("RKT_BINARY does not name an executable rkt")
    return rkt
