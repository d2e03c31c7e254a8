#!/usr/bin/env python3
"""Writes a benchmark scenario (JSON, to stdout) of DEVICES devices of one model, each with
its own queue and fio jobs at QD32 (libaio, 4 KiB random I/O: writes on null_blk, reads on
the others), on an 8-CPU desktop host. scripts/device-scaling.sh and scripts/perf-table.sh
--check measure with it.

  scripts/many-devices.py MODEL DEVICES [--jobs N] [--runtime T] [--scheduler S]
  e.g. scripts/many-devices.py hdd 1024 --runtime 2s
"""
import argparse
import json

DEVICES = {
    "null_blk": lambda i: {"name": f"nullb{i}", "model": "null_blk",
                           "params": {"irqmode": 0, "completion_nsec": 0, "blocksize": 512}},
    "hdd": lambda i: {"name": f"sd{i}", "model": "hdd", "profile": "hdd-7200-sata"},
    "nvme": lambda i: {"name": f"nvme{i}n1", "model": "nvme"},
}

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("model", choices=sorted(DEVICES))
ap.add_argument("devices", type=int)
ap.add_argument("--jobs", type=int, default=1, help="fio jobs per device (numjobs)")
ap.add_argument("--runtime", default="1s", help="every job's runtime (fio syntax)")
ap.add_argument("--scheduler", default="none")
a = ap.parse_args()
if a.devices < 1 or a.jobs < 1:
    ap.error("DEVICES and --jobs must be at least 1")

devices = [DEVICES[a.model](i) for i in range(a.devices)]
print(json.dumps({
    "description": f"{a.devices} {a.model} device(s), {a.jobs} job(s) at QD32 each (scripts/many-devices.py)",
    "seed": 1,
    "host": {"cpus": 8, "cost_profile": "desktop-8t"},
    "devices": devices,
    "queues": [{"device": d["name"], "scheduler": a.scheduler} for d in devices],
    "global": {"ioengine": "libaio", "direct": 1, "rw": "randwrite" if a.model == "null_blk" else "randread",
               "bs": "4k", "iodepth": 32, "numjobs": a.jobs, "runtime": a.runtime, "time_based": 1},
    "jobs": [{"name": f"j{i}", "device": d["name"]} for i, d in enumerate(devices)],
    "output": {"format": "normal", "group_reporting": True},
}, indent=1))
