#!/usr/bin/env python3
"""Writes the matmul best schedule's kernel as `cusched lower` emits it now, renamed to the
matmul kernel contract, and text variants of it for `cusched check`:
  emitted        as emitted
  trunc          the A fragments passed as f32 bits (the tensor core truncates to tf32,
                 as it does for B) instead of rounded with round_tf32
  idx            the copy loops' indices with the thread index's range used:
                 (a * 256 + tid) / d -> a * (256 / d) + tid / d and (a * 256 + tid) % d -> tid % d
  trunc_idx      both
  (the code generator does both itself now; on its output at the time:)
  copies_after_mma   each k-step's refill copies issued after its wgmma instructions
  frags_first        each k-step's A fragments loaded before its refill copies are issued
Each variant is a text change of the emitted kernel and applies only to the code generator
it was written against: trunc and idx to the emitted source before the unrounded fragments, copies_after_mma and frags_first to
the source after them (the generator does frags_first itself now); a change that no longer
applies stops the script with a message.
Usage: emitted_variants.py OUT_DIR [NAME ...]   (CUSCHED names the binary; default cusched)"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emitted_kernel import emitted_for_check, write_variants  # noqa: E402

THREADS = 256


def simplify_indices(src):
    tid = r"cusched::linear_thread_index\(\)"
    def div(m):
        d = int(m.group(2))
        return f"({m.group(1)} * {THREADS // d} + cusched::linear_thread_index() / {d})" if THREADS % d == 0 else m.group(0)
    def mod(m):
        return f"(cusched::linear_thread_index() % {m.group(2)})" if THREADS % int(m.group(2)) == 0 else m.group(0)
    src = re.sub(rf"\((\w+) \* {THREADS} \+ {tid}\) / (\d+)(?! %)", div, src)
    # (a * 256 + tid) / 8 % 8: the multiple of 8 drops out of the modulus as well.
    def div_mod(m):
        d, e = int(m.group(2)), int(m.group(3))
        return f"(cusched::linear_thread_index() / {d} % {e})" if (THREADS // d) % e == 0 else m.group(0)
    src = re.sub(rf"\((\w+) \* {THREADS} \+ {tid}\) / (\d+) % (\d+)", div_mod, src)
    return re.sub(rf"\((\w+) \* {THREADS} \+ {tid}\) % (\d+)", mod, src)


STEP = re.compile(
    r"(    if \(C_ko_pair \* 2 \+ \d+ < 128\) \{\n.*?\n    \}\n    cusched::cp_async_commit\(\);\n)"  # refill copies
    r"(    \{\n      const int C_mw = threadIdx.y;\n      \{\n        const int C_lane = threadIdx.x;\n"
    r"(?:        C_fa\[\d+\] = [^\n]*\n)+)"                                                               # fragment loads
    r"(        cusched::wgmma_fence\(\);\n(?:        cusched_wgmma[^\n]*\n)+        cusched::wgmma_commit\(\);\n)",  # wgmmas
    re.S)


def reordered(src, order):
    return STEP.sub(lambda m: "".join(m.group(i) for i in order), src)


def variants(src):
    trunc = re.sub(r"__float_as_uint\(cusched::round_tf32\((B_shared\[[^\]]*\])\)\)", r"__float_as_uint(\1)", src)
    return {"emitted": src, "trunc": trunc, "idx": simplify_indices(src), "trunc_idx": simplify_indices(trunc),
            "copies_after_mma": reordered(src, (2, 3, 1)), "frags_first": reordered(src, (2, 1, 3))}


def main():
    write_variants(sys.argv[1], variants(emitted_for_check("matmul")), "emitted", sys.argv[2:])


if __name__ == "__main__":
    main()
