#!/usr/bin/env python3
"""Writes tuning variants of best-known schedules, after the code generator's
unrounded fragments and refill order, into OUT_DIR/<problem>/: softmax over other cluster sizes and block
sizes (the pushed cluster reduction changed what a barrier costs), and the wgmma matmul and
Gemm+Add+ReLU with __launch_bounds__(256, 1) (the counters of runs_refill_order_pushed_reductions.sh showed kernel parameters
reloaded inside the k-loop). Usage: gen_variants.py OUT_DIR   (CUSCHED names the binary)"""
import json
import os
import subprocess
import sys

out = sys.argv[1]
cusched = os.environ.get("CUSCHED", "cusched")


def best(problem):
    r = subprocess.run([cusched, "validate", "-p", problem, "-s", "best"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["steps"]


def write(problem, name, steps):
    os.makedirs(os.path.join(out, problem), exist_ok=True)
    with open(os.path.join(out, problem, name + ".json"), "w") as f:
        json.dump(steps, f, indent=1)


def softmax_shape(steps, cluster, threads):
    """The best softmax schedule with `cluster` slices per row and `threads` per block."""
    r = []
    for s in steps:
        s = dict(s)
        if s["op"] == "split" and s.get("parts") == 8:
            s["parts"] = cluster
        if s["op"] == "split" and s.get("factor") == 1024:
            s["factor"] = 4 * threads
        r.append(s)
    return r


sm = best("softmax")
for cluster, threads in [(8, 256), (4, 256), (4, 512), (8, 128), (16, 128), (16, 256), (2, 1024)]:
    write("softmax", f"c{cluster}_t{threads}", softmax_shape(sm, cluster, threads))
for problem, stage in [("matmul", "C"), ("gemm_add_relu", "G")]:
    steps = best(problem)
    write(problem, "best", steps)
    write(problem, "launch_bounds_256_1", steps + [{"op": "launch_bounds", "stage": stage, "max_threads": 256, "min_blocks": 1}])
print("written under", out)
