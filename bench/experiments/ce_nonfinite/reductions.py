#!/usr/bin/env python3
"""Writes the drawn cross-entropy schedule (drawn.json, beside this script) and three
reductions of it into OUT_DIR: without its width-1 warp reduction, without its vectorized
max, and with the loss left to the default schedule. Usage: reductions.py OUT_DIR"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "drawn.json")) as f:
    drawn = json.load(f)
variants = {
    "drawn": drawn,
    "no_warp_reduce": [s for s in drawn if s["op"] != "cross_thread_reduce"],
    "no_vectorize": [s for s in drawn if s["op"] != "vectorize"],
    "loss_default": [s for s in drawn if s.get("stage") not in ("Total", "Loss") and s["op"] != "compute_inline"],
}
os.makedirs(sys.argv[1], exist_ok=True)
for name, steps in variants.items():
    with open(os.path.join(sys.argv[1], name + ".json"), "w") as f:
        json.dump(steps, f, indent=1)
