#!/usr/bin/env python3
"""Writes a problem's best-schedule kernel as `cusched lower` emits it, renamed to the
problem's kernel contract, and a variant whose cluster reductions of one value per block
push that value into every block's slots (cluster_allreduce_uniform_push: one cluster
barrier per reduction, local reads) instead of pulling the ranks' slots through
distributed shared memory (two barrier phases per reduction). Session 8.
Usage: emitted_variants.py PROBLEM OUT_DIR   (CUSCHED names the binary; default cusched)"""
import os
import re
import subprocess
import sys


def main():
    problem, out = sys.argv[1], sys.argv[2]
    cusched = os.environ.get("CUSCHED", "cusched")
    src = subprocess.run([cusched, "lower", "-p", problem, "-s", "best", "--size", "bench", "--emit", "cuda"],
                         capture_output=True, text=True, check=True).stdout
    kernels = re.findall(r"// kernel (k\d+_\w+): grid \((\d+), (\d+), (\d+)\), block \((\d+), (\d+), (\d+)\)", src)
    if len(kernels) != 1:
        sys.exit(f"{problem}: {len(kernels)} kernels; the contract takes one")
    name, *dims = kernels[0]
    src = src.replace(f" {name}(", f" {problem}_kernel(")
    src += "// cusched-launch size=bench grid={},{},{} block={},{},{}\n".format(*dims)
    push = src.replace("bool cusched_cluster_pending = false;",
                       "bool cusched_cluster_pending = false;\n  unsigned int cusched_cluster_phase = 0;")
    pattern = re.compile(r"__shared__ __align__\(16\) (\w+) (cusched_reduce\d+)\[2\];\n(\s*)(.*?) = "
                         r"cusched::cluster_allreduce_uniform<(\w+::\w+), (\d+)>\((.*?), &\2\[0\], &\2\[1\], cusched_cluster_pending\);")
    push = pattern.sub(lambda m: f"__shared__ __align__(16) {m.group(1)} {m.group(2)}[{2 * int(m.group(6))}];\n{m.group(3)}"
                                 f"{m.group(4)} = cusched::cluster_allreduce_uniform_push<{m.group(5)}, {m.group(6)}>("
                                 f"{m.group(7)}, {m.group(2)}, cusched_cluster_phase, cusched_cluster_pending);", push)
    if push == src or "cluster_allreduce_uniform<" in push:
        sys.exit(f"{problem}: the push rewrite did not apply")
    for n, text in (("emitted", src), ("push", push)):
        open(os.path.join(out, f"{problem}_{n}.cu"), "w").write(text)


if __name__ == "__main__":
    main()
