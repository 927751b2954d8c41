#!/usr/bin/env python3
"""Writes softmax's best-schedule kernel as `cusched lower` emits it (renamed to the kernel
contract) and variants with streaming cache hints on its global accesses: X's loads as
__ldcs and Y's stores as __stcs (evict-first: each element is read once and written once).
Usage: emitted_variants.py OUT_DIR   (CUSCHED names the binary; default cusched)"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emitted_kernel import emitted_for_check, write_variants  # noqa: E402


def streaming_loads(src):
    return re.sub(r"\*reinterpret_cast<const float4\*>\((&X\[[^\]]*\])\)", r"__ldcs(reinterpret_cast<const float4*>(\1))", src)


def streaming_stores(src):
    return re.sub(r"\*reinterpret_cast<float4\*>\((&Y\[[^\]]*\])\) = (make_float4\(.*\));\n",
                  r"__stcs(reinterpret_cast<float4*>(\1), \2);\n", src)


def main():
    src = emitted_for_check("softmax")
    write_variants(sys.argv[1], {"emitted": src, "cs_loads": streaming_loads(src), "cs_stores": streaming_stores(src),
                                 "cs_both": streaming_stores(streaming_loads(src))}, "emitted", prefix="softmax_")


if __name__ == "__main__":
    main()
