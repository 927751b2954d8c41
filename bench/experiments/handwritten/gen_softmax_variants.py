#!/usr/bin/env python3
"""Writes one .cu per softmax variant (softmax_variants.cu.in with its parameters) into
the folder given, each with the launch comment for the bench size."""
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
template = open(os.path.join(here, "softmax_variants.cu.in")).read()
ROWS = 4096
# name: (problem, D, CL, T, COPY, RED, NCH, NBUF, clusters in the grid (COPY 4) or 0)
VARIANTS = {
    "sm_c8t256_regcopy_red0": ("softmax", 65536, 8, 256, 0, 0, 1, 1, 0),
    "sm_c8t256_regcopy_red1": ("softmax", 65536, 8, 256, 0, 1, 1, 1, 0),
    "sm_c8t256_bulk1_red1": ("softmax", 65536, 8, 256, 1, 1, 1, 1, 0),
    "sm_c8t256_bulk4_red1": ("softmax", 65536, 8, 256, 2, 1, 4, 1, 0),
    "sm_c8t256_bulk8_red1": ("softmax", 65536, 8, 256, 2, 1, 8, 1, 0),
    "sm_c8t256_regs_red1": ("softmax", 65536, 8, 256, 3, 1, 1, 1, 0),
    "sm_c4t256_bulk4_red1": ("softmax", 65536, 4, 256, 2, 1, 4, 1, 0),
    "sm_c16t128_bulk4_red1": ("softmax", 65536, 16, 128, 2, 1, 4, 1, 0),
    "sm_c8t512_bulk4_red1": ("softmax", 65536, 8, 512, 2, 1, 4, 1, 0),
    "sm_c8t256_persist2_g48": ("softmax", 65536, 8, 256, 4, 1, 1, 2, 48),
    "sm_c8t256_persist2_g96": ("softmax", 65536, 8, 256, 4, 1, 1, 2, 96),
    "sm_c8t256_persist3_g32": ("softmax", 65536, 8, 256, 4, 1, 1, 3, 32),
    "sm_c4t256_persist2_g32": ("softmax", 65536, 4, 256, 4, 1, 1, 2, 32),
    "sm_c16t256_persist2_g48": ("softmax", 65536, 16, 256, 4, 1, 1, 2, 48),
    "sml_c16t512_persist2_g8": ("softmax_large", 393216, 16, 512, 4, 1, 1, 2, 8),
    "sml_c16t512_regcopy_red1": ("softmax_large", 393216, 16, 512, 0, 1, 1, 1, 0),
    "sml_c16t512_bulk1_red1": ("softmax_large", 393216, 16, 512, 1, 1, 1, 1, 0),
    "sml_c16t512_bulk6_red1": ("softmax_large", 393216, 16, 512, 2, 1, 6, 1, 0),
    "sml_c16t512_bulk12_red1": ("softmax_large", 393216, 16, 512, 2, 1, 12, 1, 0),
    "sml_c16t256_bulk12_red1": ("softmax_large", 393216, 16, 256, 2, 1, 12, 1, 0),
    "sml_c8t1024_bulk12_red1": ("softmax_large", 393216, 8, 1024, 2, 1, 12, 1, 0),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, (problem, d, cl, t, copy, red, nch, nbuf, clusters) in VARIANTS.items():
    slice_ = d // cl
    assert slice_ % (4 * t * nch) == 0, name
    smem = 0 if copy == 3 else slice_ * 4 * nbuf
    head = f"// problem: {problem}\n#define KNAME {problem}_kernel\n#define ROWS {ROWS}\n#define NBUF {nbuf}\n#define D {d}\n#define CL {cl}\n#define T {t}\n#define COPY {copy}\n#define RED {red}\n#define NCH {nch}\n"
    launch = f"\n// cusched-launch size=bench grid={cl},{clusters or ROWS},1 block={t},1,1 smem={smem}\n"
    with open(os.path.join(out, f"{problem}__{name}.cu"), "w") as f:
        f.write(head + template + launch)
