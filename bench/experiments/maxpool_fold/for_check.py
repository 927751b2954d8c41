#!/usr/bin/env python3
"""Writes the max-pool kernel as emitted before and after the quotient/remainder fold
(commit 3 of session 9; the two sources beside this script), and two hand edits: the folded source with the load index's base term first, the unfolded one with only the store index folded in `cusched check` form.
Usage: for_check.py OUT_DIR"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from emitted_kernel import source_for_check  # noqa: E402

os.makedirs(sys.argv[1], exist_ok=True)
for name in ("emitted_before_fold", "emitted_after_fold", "after_fold_base_first", "before_fold_store_folded"):
    with open(os.path.join(here, name + ".cu")) as f:
        text = source_for_check("maxpool2d", f.read())
    with open(os.path.join(sys.argv[1], "maxpool2d_" + name + ".cu"), "w") as f:
        f.write(text)
