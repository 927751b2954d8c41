#!/usr/bin/env python3
"""Writes LayerNorm variants. Set "clusters": the statistics reduced over a
cluster of blocks per row (one kernel for the moments instead of two), channel slices
interleaved or contiguous, and the normalisation's blocks issued in reverse. Set "partials_in_y":
clusters of 16 (8) channel blocks leave 4 (8) partial moments per row and each normalisation
block combines its rows' partials itself (two kernels instead of three). Set "l2": the
best-known schedule with its moments kernel's loads of X under an evict_last policy for
3-10% of the lines (the l2_hint primitive; the L2 probe measured 5% at -3 us),
alone and with the normalisation's blocks reversed. Set "two_kernels": 8, 16 or 32 partial moments per row, combined by every normalisation block. Y's steps are the best-known schedule's. Usage: gen_variants.py [SET] [OUT_DIR] (default: clusters, this folder)."""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
chosen = sys.argv[1] if len(sys.argv) > 1 else "clusters"
out = sys.argv[2] if len(sys.argv) > 2 else here
cusched = os.environ.get("CUSCHED", "cusched")
best = json.loads(subprocess.run([cusched, "validate", "-p", "layernorm", "-s", "best"], capture_output=True,
                                 text=True, check=True).stdout)["steps"]
y_steps = [s for s in best if s.get("stage") == "Y"]
y_block = "ho_rev" if any(s["op"] == "reverse" for s in y_steps) else "ho"  # Y's block loop over h-chunks


def moments(cluster, threads, unroll=8, interleave=True):
    split = ({"op": "split", "stage": "Moments", "loop": "rc", "factor": cluster, "outer": "rca", "inner": "rcq"}
             if interleave else
             {"op": "split", "stage": "Moments", "loop": "rc", "parts": cluster, "outer": "rcq", "inner": "rca"})
    return [split,
            {"op": "fuse", "stage": "Moments", "outer": "rh", "inner": "rw", "fused": "rhw"},
            {"op": "split", "stage": "Moments", "loop": "rhw", "factor": 4, "outer": "rq", "inner": "rv"},
            {"op": "split", "stage": "Moments", "loop": "rq", "factor": threads, "outer": "ro", "inner": "rt"},
            {"op": "split", "stage": "Moments", "loop": "ro", "factor": unroll, "outer": "roo", "inner": "ru"},
            {"op": "reorder", "stage": "Moments", "loops": ["rcq", "rca", "roo", "ru", "rt", "m", "rv"]},
            {"op": "bind", "stage": "Moments", "loop": "b", "axis": "blockIdx.y"},
            {"op": "cross_thread_reduce", "stage": "Moments", "loop": "rt", "kind": "block"},
            {"op": "cross_thread_reduce", "stage": "Moments", "loop": "rcq", "kind": "cluster"},
            {"op": "unroll", "stage": "Moments", "loop": "ru"},
            {"op": "unroll", "stage": "Moments", "loop": "m"},
            {"op": "vectorize", "stage": "Moments", "loop": "rv"}]




def reversed_y(steps):
    """Y's steps with its block loops c and ho reversed after the reorder, before binding
    (unchanged when they already reverse them, as the best-known schedule does)."""
    if any(s["op"] == "reverse" for s in steps):
        return list(steps)
    out = []
    for s in steps:
        s = dict(s)
        if s["op"] == "bind" and s["loop"] in ("c", "ho"):
            s["loop"] += "_rev"
        out.append(s)
        if s["op"] == "reorder" and s.get("stage") == "Y":
            out += [{"op": "reverse", "stage": "Y", "loop": "c", "name": "c_rev"},
                    {"op": "reverse", "stage": "Y", "loop": "ho", "name": "ho_rev"}]
    return out



def partials_over_clusters(parts=4):
    """Moments_rf: `parts` partials per row, each the sum over a cluster of 64 / parts channel blocks."""
    return [{"op": "split", "stage": "Moments", "loop": "rc", "parts": parts, "outer": "rcg", "inner": "rcq"},
            {"op": "rfactor", "stage": "Moments", "loop": "rcg", "name": "Moments_rf"},
            {"op": "fuse", "stage": "Moments_rf", "outer": "rcg", "inner": "b", "fused": "gb"},
            {"op": "bind", "stage": "Moments_rf", "loop": "gb", "axis": "blockIdx.y"},
            {"op": "split", "stage": "Moments_rf", "loop": "rw", "factor": 4, "outer": "rwo", "inner": "rwv"},
            {"op": "split", "stage": "Moments_rf", "loop": "rh", "factor": 4, "outer": "rho", "inner": "rht"},
            {"op": "split", "stage": "Moments_rf", "loop": "rho", "factor": 8, "outer": "rhoo", "inner": "rhu"},
            {"op": "reorder", "stage": "Moments_rf", "loops": ["rcq", "rhoo", "rhu", "rht", "rwo", "m", "rwv"]},
            {"op": "fuse", "stage": "Moments_rf", "outer": "rht", "inner": "rwo", "fused": "rt"},
            {"op": "cross_thread_reduce", "stage": "Moments_rf", "loop": "rt", "kind": "block"},
            {"op": "cross_thread_reduce", "stage": "Moments_rf", "loop": "rcq", "kind": "cluster"},
            {"op": "unroll", "stage": "Moments_rf", "loop": "rhu"},
            {"op": "unroll", "stage": "Moments_rf", "loop": "m"},
            {"op": "vectorize", "stage": "Moments_rf", "loop": "rwv"}]


def partials_per_block(parts, rows_per_pass):
    """Moments_rf: `parts` partials per row, each one block's serial sum over 64 / parts
    channels (no cluster), 64 * rows_per_pass threads of one float4 each per pass."""
    return [{"op": "split", "stage": "Moments", "loop": "rc", "parts": parts, "outer": "rcg", "inner": "rcq"},
            {"op": "rfactor", "stage": "Moments", "loop": "rcg", "name": "Moments_rf"},
            {"op": "fuse", "stage": "Moments_rf", "outer": "rcg", "inner": "b", "fused": "gb"},
            {"op": "bind", "stage": "Moments_rf", "loop": "gb", "axis": "blockIdx.x"},
            {"op": "split", "stage": "Moments_rf", "loop": "rw", "factor": 4, "outer": "rwo", "inner": "rwv"},
            {"op": "split", "stage": "Moments_rf", "loop": "rh", "factor": rows_per_pass, "outer": "rho", "inner": "rht"},
            {"op": "split", "stage": "Moments_rf", "loop": "rho", "factor": 8, "outer": "rhoo", "inner": "rhu"},
            {"op": "reorder", "stage": "Moments_rf", "loops": ["rcq", "rhoo", "rhu", "rht", "rwo", "m", "rwv"]},
            {"op": "fuse", "stage": "Moments_rf", "outer": "rht", "inner": "rwo", "fused": "rt"},
            {"op": "cross_thread_reduce", "stage": "Moments_rf", "loop": "rt", "kind": "block"},
            {"op": "unroll", "stage": "Moments_rf", "loop": "rhu"},
            {"op": "unroll", "stage": "Moments_rf", "loop": "m"},
            {"op": "vectorize", "stage": "Moments_rf", "loop": "rwv"},
            {"op": "l2_hint", "stage": "Moments_rf", "source": "X", "policy": "evict_last", "percent": 5}]


def combine_in_y(block_loop="ho", unrolled_loop=None):
    """Each normalisation block combines the partials of its 16 rows (48 threads, one moment
    each), with the partials' loop unrolled when named (all loads in flight at once)."""
    return [{"op": "compute_at", "stage": "Moments", "consumer": "Y", "loop": block_loop},
            {"op": "fuse", "stage": "Moments", "outer": "b", "inner": "m", "fused": "bm"},
            {"op": "bind", "stage": "Moments", "loop": "bm", "axis": "threadIdx.x"}] + (
            [{"op": "unroll", "stage": "Moments", "loop": unrolled_loop}] if unrolled_loop else [])
sets = {"clusters": {
    "ctl": best,
    "ctl_rev": [s for s in best if s.get("stage") != "Y"] + reversed_y(y_steps),
    "cl16_t512_il": moments(16, 512) + y_steps,
    "cl16_t512_il_rev": moments(16, 512) + reversed_y(y_steps),
    "cl16_t1024_il": moments(16, 1024) + y_steps,
    "cl16_t256_il": moments(16, 256) + y_steps,
    "cl16_t512_ct": moments(16, 512, interleave=False) + y_steps,
    "cl8_t1024_il": moments(8, 1024) + y_steps,
    "cl8_t1024_il_rev": moments(8, 1024) + reversed_y(y_steps),
}, "partials_in_y": {
    "ctl": best,
    "partials4_combined_in_y": partials_over_clusters(4) + y_steps + combine_in_y(y_block),
    "partials4_combined_in_y_rev": partials_over_clusters(4) + reversed_y(y_steps) + combine_in_y("ho_rev"),
    "partials8_combined_in_y": partials_over_clusters(8) + y_steps + combine_in_y(y_block),
}, "l2": {
    "ctl": best,
    **{f"evict_last_{p}": best + [{"op": "l2_hint", "stage": "Moments_rf", "source": "X", "policy": "evict_last", "percent": p}]
       for p in (3, 5, 8, 10)},
    "evict_last_5_rev": [s for s in best if s.get("stage") != "Y"] + reversed_y(y_steps) +
                        [{"op": "l2_hint", "stage": "Moments_rf", "source": "X", "policy": "evict_last", "percent": 5}],
}, "two_kernels": {
    "ctl": best,
    **{f"p{parts}_t{64 * rows}": partials_per_block(parts, rows) + reversed_y(y_steps) + combine_in_y("ho_rev", "rcg")
       for parts, rows in ((8, 8), (8, 16), (16, 4), (16, 8), (32, 4), (32, 8))},
}}
variants = sets[chosen]
for name, steps in variants.items():
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(steps, f, indent=1)
print(" ".join(sorted(variants)))
