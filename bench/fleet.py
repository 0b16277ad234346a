"""Careers per hour and cost per career of `lluma fleet` on simulated phones: 1, 2 and 3 devices as processes on this
machine, and 2 devices through two Ray nodes on 127.0.0.1.

Each configuration gets fresh phones (`lluma sim phone --devices N`) and one API stand-in (`lluma sim api`), then
`lluma fleet --careers C` plays C careers on every device. Printed per configuration: wall time, careers, careers
per hour, cost per career, the median seconds a turn spent reading its screen (the OCR) and a whole turn, and the
machine's CPU busy share while it ran. Where the OCR saturates the cores shows as the OCR's seconds per turn growing
with the devices while careers per hour stop growing. Every figure counts what else runs on the machine (a shared
machine's load is printed with them).

    .venv/bin/python bench/fleet.py [--careers 1] [--career-turns 3] [--devices 1,2,3] [--no-ray] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lluma_agent.runlog.turnlog import read_turns  # noqa: E402

NODES = Path(__file__).with_name("ray_nodes.py")
SIM = [sys.executable, "-m", "lluma_cli", "sim"]
QUICK = {"LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05", "LLUMA_DEVICE__SETTLE_TIMEOUT_S": "2",
         "ANTHROPIC_API_KEY": "sk-ant-bench-offline"}  # the stand-in takes any key
CAREER_TURNS = 3  # game turns a career: about 20 agent turns, a configuration in a minute or two on 2 cores


def _cpu() -> tuple[int, int]:
    """The machine's busy and total jiffies so far (/proc/stat's first line)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


@contextmanager
def _process(argv: list[str], stdin: bool = False) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else None, stdout=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


@contextmanager
def stand_ins(devices: int, career_turns: int) -> Iterator[dict[str, str]]:
    """Fresh phones sim-0..sim-(N-1) and the API stand-in: the environment that points a fleet at them."""
    with _process([*SIM, "phone", "--port", "0", "--devices", str(devices), "--career-turns", str(career_turns)]) \
            as phone, _process([*SIM, "api", "--port", "0", "--quiet"]) as api:
        assert phone.stdout is not None and api.stdout is not None
        port = phone.stdout.readline().split("127.0.0.1:", 1)[1].split(",", 1)[0]
        api.stdout.readline()
        base_url = api.stdout.readline().strip().split("=", 1)[1]
        yield {**os.environ, **QUICK, "LLUMA_DEVICE__ADB_PORT": port, "LLUMA_MODEL__BASE_URL": base_url}


@contextmanager
def ray_nodes() -> Iterator[str]:
    """bench/ray_nodes.py: two Ray nodes on 127.0.0.1 (adb:sim-0 on the head, adb:sim-1 on the second)."""
    with _process([sys.executable, str(NODES)], stdin=True) as nodes:
        out: IO[str] | None = nodes.stdout
        assert out is not None and nodes.stdin is not None
        yield out.readline().split()[1]
        nodes.stdin.write("quit\n")
        nodes.stdin.flush()
        nodes.wait(timeout=60)


def play(env: dict[str, str], devices: int, careers: int, folder: Path, ray: str | None) -> dict[str, Any]:
    serials = [f"sim-{i}" for i in range(devices)]
    argv = [sys.executable, "-m", "lluma_cli", "fleet", "--devices", ",".join(serials), "--careers", str(careers),
            "--dir", str(folder), "--json", *(["--ray", ray] if ray else [])]
    busy0, total0 = _cpu()
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    busy1, total1 = _cpu()
    if done.returncode != 0:
        raise SystemExit(f"bench/fleet.py: the fleet failed (exit {done.returncode}): {done.stderr[-600:]}")
    s = json.loads(done.stdout)
    turns = [t for d in serials for t in read_turns(folder / "devices" / d)]
    n = max(1, s["careers_completed"])
    return {
        "engine": s["engine"], "devices": devices, "wall_s": round(wall, 1), "careers": s["careers_completed"],
        "careers_per_hour": round(s["careers_completed"] / wall * 3600, 1), "cost_per_career_usd":
            round(s["cost_usd"] / n, 5), "turns": len(turns),
        "ocr_s_median": round(statistics.median(t.timings.vision_s for t in turns), 2),
        "turn_s_median": round(statistics.median(t.timings.total_s for t in turns), 2),
        "cpu_busy": round((busy1 - busy0) / max(1, total1 - total0), 3), "load_avg": os.getloadavg()[0],
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'engine':<6} {'devices':>7} {'wall s':>7} {'careers':>7} {'careers/h':>9} {'$/career':>9} "
            f"{'turns':>5} {'OCR s/turn':>10} {'turn s':>6} {'CPU busy':>8} {'load':>5}")
    lines = [head]
    for r in rows:
        lines.append(f"{r['engine']:<6} {r['devices']:>7} {r['wall_s']:>7.0f} {r['careers']:>7} "
                     f"{r['careers_per_hour']:>9.1f} {r['cost_per_career_usd']:>9.4f} {r['turns']:>5} "
                     f"{r['ocr_s_median']:>10.2f} {r['turn_s_median']:>6.2f} {r['cpu_busy']:>8.0%} "
                     f"{r['load_avg']:>5.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--careers", type=int, default=1, help="careers per device (default 1)")
    ap.add_argument("--career-turns", type=int, default=CAREER_TURNS, help=f"a career's game turns ({CAREER_TURNS})")
    ap.add_argument("--devices", default="1,2,3", help="device counts on this machine (default 1,2,3)")
    ap.add_argument("--no-ray", action="store_true", help="leave out the two Ray nodes")
    ap.add_argument("--json", action="store_true", help="one JSON object: the rows")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="lluma-fleet-bench-") as tmp:
        for n in (int(v) for v in args.devices.split(",")):
            with stand_ins(n, args.career_turns) as env:
                rows.append(play(env, n, args.careers, Path(tmp) / f"local-{n}", None))
                print(table(rows[-1:]).splitlines()[1], file=sys.stderr, flush=True)
        if not args.no_ray:
            with stand_ins(2, args.career_turns) as env, ray_nodes() as address:
                env = {**env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
                rows.append(play(env, 2, args.careers, Path(tmp) / "ray-2", address))
    print(json.dumps({"rows": rows}) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
