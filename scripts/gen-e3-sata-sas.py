#!/usr/bin/env python3
"""Writes E3's held-back rows (docs/references.md §8c): the NVMe scenarios'
workloads on a SATA SSD (AHCI port) and a SAS HDD (behind a SAS HBA):
scenarios/seeds/e3-<sata-ssd|sas-hdd>-<workload>-<none|mq-deadline|direct>.json. Run from the
repository root. The published figures for these rows are held back: these are predictions."""
import json

DEVICES = {
    "sata-ssd": ("a Samsung-class SATA SSD (samsung-860evo-500g profile) on an AHCI port",
             {"name": "sda", "model": "sata_ssd", "profile": "samsung-860evo-500g"}, None),
    "sas-hdd": ("a 7200 rpm SAS HDD (hdd-7200-sas profile: 12 Gb/s link, 128 queued commands, write cache off) behind a SAS HBA",
            {"name": "sda", "model": "hdd", "profile": "hdd-7200-sas", "controller": "hba0"},
            [{"name": "hba0", "kind": "hba", "can_queue": 4096}]),
}
WORKLOADS = {"jobs1-4k": (1, "4k"), "jobs10-4k": (10, "4k"), "jobs1-32k": (1, "32k")}
SCHEDS = {"none": ("none", None), "mq-deadline": ("mq-deadline", None),
          "direct": ("mq-deadline", {"direct_dispatch": 1})}

for dev, (text, device, controllers) in DEVICES.items():
    for wl, (jobs, bs) in WORKLOADS.items():
        for sname, (sched, tun) in SCHEDS.items():
            q = {"device": "sda", "scheduler": sched}
            if tun:
                q["iosched"] = tun
            doc = {
                "description": f"Seed experiment E3 (direct dispatch for mq-deadline) on {text}, {wl}, scheduler {sname}: "
                               f"fio libaio, {jobs} job(s), bs={bs}, random reads, iodepth 64 per job (as the NVMe rows: the "
                               "mails give no full command). Published figures for this device are held back: a prediction.",
                "seed": 1,
                "host": {"cpus": 32, "cost_profile": "e3-host"},
            }
            if controllers:
                doc["controllers"] = controllers
            doc["devices"] = [device]
            doc["queues"] = [q]
            doc["jobs"] = [{"name": wl, "device": "sda", "ioengine": "libaio", "direct": 1, "rw": "randread",
                            "bs": bs, "iodepth": 64, "numjobs": jobs, "runtime": "5s", "time_based": 1,
                            "group_reporting": 1}]
            with open(f"scenarios/seeds/e3-{dev}-{wl}-{sname}.json", "w") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")
