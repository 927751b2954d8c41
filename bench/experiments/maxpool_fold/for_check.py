#!/usr/bin/env python3
"""Writes the max-pool kernel as emitted before and after the quotient/remainder fold
(the two sources beside this script) in `cusched check` form, and two edits
that split the fold's two changes: the folded source with the load index's base term
first, and the unfolded source with only the store index folded. Usage: for_check.py OUT_DIR"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from emitted_kernel import source_for_check  # noqa: E402

CLAMPED_ROW_COL = ("cusched::max_of(cusched::min_of(static_cast<long long>(Y_kh + Y_ohi + Y_oho * 7 + -1), 511LL), 0LL) * 512LL + "
                   "cusched::max_of(cusched::min_of(static_cast<long long>(Y_kw + Y_owx + Y_owy * 73 + -1), 511LL), 0LL)")
BASE = "static_cast<long long>(Y_nc * 262144)"


def edited(text, old, new):
    if old not in text:
        sys.exit("an edit no longer applies to the saved source")
    return text.replace(old, new)


def read(name):
    with open(os.path.join(here, name + ".cu")) as f:
        return f.read()


before, after = read("emitted_before_fold"), read("emitted_after_fold")
sources = {
    "emitted_before_fold": before,
    "emitted_after_fold": after,
    "after_fold_base_first": edited(after, f"X[{CLAMPED_ROW_COL} + {BASE}]", f"X[{BASE} + {CLAMPED_ROW_COL}]"),
    "before_fold_store_folded": edited(before, "Y[Y_nc % 64 * 261121 + Y_nc / 64 * 16711744 + ", "Y[Y_nc * 261121 + "),
}
os.makedirs(sys.argv[1], exist_ok=True)
for name, text in sources.items():
    with open(os.path.join(sys.argv[1], "maxpool2d_" + name + ".cu"), "w") as f:
        f.write(source_for_check("maxpool2d", text))
