#!/usr/bin/env python3
"""Writes softmax's best-schedule kernel as `cusched lower` emits it (renamed to the kernel
contract) and variants with streaming cache hints on its global accesses: X's loads as
__ldcs and Y's stores as __stcs (evict-first: each element is read once and written once).
Session 8. Usage: emitted_variants.py OUT_DIR   (CUSCHED names the binary; default cusched)"""
import os
import re
import subprocess
import sys


def main():
    out = sys.argv[1]
    cusched = os.environ.get("CUSCHED", "cusched")
    src = subprocess.run([cusched, "lower", "-p", "softmax", "-s", "best", "--size", "bench", "--emit", "cuda"],
                         capture_output=True, text=True, check=True).stdout
    name, *dims = re.search(r"// kernel (k\d+_\w+): grid \((\d+), (\d+), (\d+)\), block \((\d+), (\d+), (\d+)\)", src).groups()
    src = src.replace(f" {name}(", " softmax_kernel(") + "// cusched-launch size=bench grid={},{},{} block={},{},{}\n".format(*dims)
    loads = re.sub(r"\*reinterpret_cast<const float4\*>\((&X\[[^\]]*\])\)", r"__ldcs(reinterpret_cast<const float4*>(\1))", src)
    stores = re.sub(r"\*reinterpret_cast<float4\*>\((&Y\[[^\]]*\])\) = (make_float4\(.*\));\n", r"__stcs(reinterpret_cast<float4*>(\1), \2);\n", src)
    both = re.sub(r"\*reinterpret_cast<float4\*>\((&Y\[[^\]]*\])\) = (make_float4\(.*\));\n", r"__stcs(reinterpret_cast<float4*>(\1), \2);\n", loads)
    for n, text in (("emitted", src), ("cs_loads", loads), ("cs_stores", stores), ("cs_both", both)):
        if n != "emitted" and text == src:
            sys.exit(f"variant {n} did not apply")
        open(os.path.join(out, f"softmax_{n}.cu"), "w").write(text)


if __name__ == "__main__":
    main()
