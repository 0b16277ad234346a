"""Two Ray nodes on 127.0.0.1 for bench/fleet.py and tests/e2e/test_fleet_ray.py, in a process of their own (Ray's
global state stays out of the test workers): a head holding `adb:sim-0` and a second node holding `adb:sim-1`, the
dashboard off.

    python bench/ray_nodes.py      prints `address HOST:PORT`, then reads commands on stdin, one a line:
                                   `remove` (the second node dies), `add` (a node holding adb:sim-1 again), `quit`.

Ray's `ray start` makes a node's address the machine's own IP even when told 127.0.0.1 (services.
resolve_ip_for_localhost) and binds its servers there; its own test cluster (ray.cluster_utils.Cluster) starts real
nodes (a GCS, a raylet each) at the address given, here 127.0.0.1, and so binds nothing but loopback. With
RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 a driver on this machine finds its node at 127.0.0.1 too."""

from __future__ import annotations

import os
import sys

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # before Ray is imported: it reads it once
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

from ray.cluster_utils import Cluster  # noqa: E402

LOOPBACK = "127.0.0.1"


def main() -> int:
    os.makedirs("/tmp/ray", exist_ok=True)  # where Ray writes the current cluster's address
    cluster = Cluster(initialize_head=True, head_node_args={
        "node_ip_address": LOOPBACK, "include_dashboard": False, "num_cpus": 1, "resources": {"adb:sim-0": 1}})
    second = cluster.add_node(node_ip_address=LOOPBACK, num_cpus=1, resources={"adb:sim-1": 1})
    print(f"address {cluster.address}", flush=True)
    try:
        for line in sys.stdin:
            if line.strip() == "remove":
                cluster.remove_node(second, allow_graceful=False)
            elif line.strip() == "add":
                second = cluster.add_node(node_ip_address=LOOPBACK, num_cpus=1, resources={"adb:sim-1": 1})
            elif line.strip() == "quit":
                break
            print("ok", flush=True)
    finally:
        cluster.shutdown()  # type: ignore[no-untyped-call]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
