#!/usr/bin/env python3
"""Writes the variants of generated.cu (the wgmma matmul kernel that `cusched lower` emitted
before the copy-guard pass, renamed to the matmul kernel contract) that the wgmma kernel probes
measured through `cusched check`, each one text change away from it:
  generated_tid     the thread index from the block's constant sizes instead of blockDim
  gen_r_inputs      the A registers as plain inputs of the wgmma instruction
  gen_no_hold       without the held registers after each wait
  gen_block256      blocks of 256 x 1 threads (warpgroup = threadIdx.x / 128)
  gen_no_pdl        without the dependent-launch statements
  gen_unsigned_tid  the thread index as an unsigned value declared once
Usage: make_variants.py OUT_DIR [NAME ...]   (default: all)"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from emitted_kernel import write_variants  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def variants(src):
    return {
        "generated": src,
        "generated_tid": src.replace("cusched::linear_thread_index()", "static_cast<int>(threadIdx.x + 128 * threadIdx.y)"),
        "gen_r_inputs": src.replace('"+f"(d[127]), "+r"(a0), "+r"(a1), "+r"(a2), "+r"(a3)\n      : "l"(b)',
                                    '"+f"(d[127])\n      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b)'),
        "gen_no_hold": re.sub(r"\n\s*cusched::hold_register\([^)]*\);", "", src),
        "gen_block256": src.replace("const int C_mw = threadIdx.y;", "const int C_mw = threadIdx.x / 128;")
                           .replace("const int C_lane = threadIdx.x;", "const int C_lane = threadIdx.x % 128;")
                           .replace("cusched::linear_thread_index()", "static_cast<int>(threadIdx.x)")
                           .replace("block=128,2,1", "block=256,1,1"),
        "gen_no_pdl": src.replace("  cusched::allow_next_grid();\n  cusched::wait_for_previous_grid();\n", ""),
        "gen_unsigned_tid": src.replace("cusched::linear_thread_index()", "cusched_tid")
                               .replace("  cusched::allow_next_grid();\n",
                                        "  const unsigned cusched_tid = threadIdx.x + 128u * threadIdx.y;\n  cusched::allow_next_grid();\n", 1),
    }


def main():
    src = open(os.path.join(HERE, "generated.cu")).read()
    write_variants(sys.argv[1], variants(src), "generated", sys.argv[2:])


if __name__ == "__main__":
    main()
