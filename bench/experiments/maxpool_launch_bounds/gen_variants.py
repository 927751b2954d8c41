#!/usr/bin/env python3
"""Writes max-pool variants into this folder: the best-known schedule (ctl) and
the same with launch_bounds 511 threads and 3 or 4 blocks per SM. CUSCHED names the binary."""
import json
import os
import subprocess

here = os.path.dirname(os.path.abspath(__file__))
best = json.loads(subprocess.run([os.environ.get("CUSCHED", "cusched"), "validate", "-p", "maxpool2d", "-s", "best"],
                                 capture_output=True, text=True, check=True).stdout)["steps"]
variants = {"ctl": best}
for blocks in (3, 4):
    variants[f"lb511_{blocks}"] = best + [{"op": "launch_bounds", "stage": "Y", "max_threads": 511, "min_blocks": blocks}]
for name, steps in variants.items():
    with open(os.path.join(here, name + ".json"), "w") as f:
        json.dump(steps, f, indent=1)
