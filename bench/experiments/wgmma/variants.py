#!/usr/bin/env python3
"""Writes the matmul schedules that wgmma_generated_pipelines.sh and wgmma_one_barrier.sh run with `cusched run`: the
best schedule (the warpgroup tensor-core tile of problems/baseline_steps.h
wgmma_tile_steps) and its variants, as JSON files named after the variant.
  best     as it is (pipeline 4 deep: one k-step in flight)
  d3       pipeline 3 deep
  nopipe   no pipeline (each k-step waits for its own instructions)
  lb       with launch bounds (256, 1)
Usage: variants.py CUSCHED OUT_DIR NAME ..."""
import json
import os
import subprocess
import sys

cusched, out = sys.argv[1], sys.argv[2]
best = json.loads(subprocess.check_output([cusched, "validate", "-p", "matmul", "-s", "best"]))["steps"]


def with_depth(steps, depth):
    return [dict(s, depth=depth) if s["op"] == "pipeline" else s for s in steps]


variants = {
    "best": best,
    "d3": with_depth(best, 3),
    "nopipe": [s for s in best if s["op"] != "pipeline"],
    "lb": best + [{"op": "launch_bounds", "stage": "C", "max_threads": 256, "min_blocks": 1}],
}
for name in sys.argv[3:]:
    json.dump(variants[name], open(os.path.join(out, f"matmul_{name}.json"), "w"), indent=1)
