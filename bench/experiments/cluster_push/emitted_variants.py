#!/usr/bin/env python3
"""Writes a problem's best-schedule kernel as `cusched lower` emits it, renamed to the
problem's kernel contract, and a variant whose cluster reductions of one value per block
push that value into every block's slots (cluster_allreduce_uniform_push: one cluster
barrier per reduction, local reads) instead of pulling the ranks' slots through
distributed shared memory (two barrier phases per reduction).
Usage: emitted_variants.py PROBLEM OUT_DIR   (CUSCHED names the binary; default cusched)"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emitted_kernel import emitted_for_check, write_variants  # noqa: E402


def main():
    problem, out = sys.argv[1], sys.argv[2]
    src = emitted_for_check(problem)
    push = src.replace("bool cusched_cluster_pending = false;",
                       "bool cusched_cluster_pending = false;\n  unsigned int cusched_cluster_phase = 0;")
    pattern = re.compile(r"__shared__ __align__\(16\) (\w+) (cusched_reduce\d+)\[2\];\n(\s*)(.*?) = "
                         r"cusched::cluster_allreduce_uniform<(\w+::\w+), (\d+)>\((.*?), &\2\[0\], &\2\[1\], cusched_cluster_pending\);")
    push, rewritten = pattern.subn(lambda m: f"__shared__ __align__(16) {m.group(1)} {m.group(2)}[{2 * int(m.group(6))}];\n{m.group(3)}"
                                            f"{m.group(4)} = cusched::cluster_allreduce_uniform_push<{m.group(5)}, {m.group(6)}>("
                                            f"{m.group(7)}, {m.group(2)}, cusched_cluster_phase, cusched_cluster_pending);", push)
    if rewritten == 0 or "cluster_allreduce_uniform<" in push:
        sys.exit(f"{problem}: the push rewrite did not apply (the code generator pushes itself now)")
    write_variants(out, {"emitted": src, "push": push}, "emitted", prefix=problem + "_")


if __name__ == "__main__":
    main()
