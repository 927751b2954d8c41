"""Rows of bench/kernelbench_search.py made by hand for the record tests: the arguments of a
search, PyTorch timings, a row as the benchmark makes it, and the worked rows of two levels."""
import os
import sys
from argparse import Namespace

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_search as kbs  # noqa: E402


def search_args(work, cusched="cusched", **kw):
    a = Namespace(cusched=cusched, search_candidates=40, search_seconds=60.0, search_threads=16, search_rounds=0,
                  work=work, schedule_dir=os.path.join(work, "schedules"), max_gib=6.0, timeout=60,
                  kernelbench=work, seed=42, settings=["default"], prediction=None, name="kernelbench-search",
                  warm_jobs=4, parallel=1, sanitize_seconds=30.0)
    for k, v in kw.items():
        setattr(a, k, v)
    return a


def timing(eager, compile_ms):
    return [{"problem": "p", "settings": "default", "cudnn_allow_tf32": True, "matmul_allow_tf32": False,
             "torch": "2.11", "eager_ms": eager, "compile_ms": compile_ms}] if eager or compile_ms else []


def row(name, level, verdict, ms, m2, m4, precision="f32", eager=None, compile_ms=None, strict="ok"):
    """A row as kernelbench_search makes it: the timed run, its strict run, the module check, the search."""
    run = {"problem": name, "verdict": verdict, "precision": precision,
           "gpu": {"median_ms": ms, "min_ms": ms, "max_ms": ms, "pct_of_floor": 50.0} if ms else {}}
    status = "compared" if m2 is not None else "cusched_failed"
    match = {"status": status, "1e-2": m2, "1e-4": m4, "max_abs_err": None, "max_rel_err": None,
             "sizes": {"N": 8}, "reduced": False}
    entry = kbs.search_entry(search_args("/w"), level, {"status": "budget_spent", "evaluated": 40, "verified": 30},
                             {"schedule": [], "best_ms": ms, "baseline_ms": 2.0, "best_is_baseline": False}, 60.0)
    return kbs.search_row(run, {"verdict": strict}, timing(eager, compile_ms), match, entry)


def hand_rows():
    """Level 1 (five files asked for, four run):
       A f32, module 1e-2 and 1e-4, 1.0 ms against eager 3.0 / compile 2.0: speedup 2.0 (not above 2)
       B tf32, module 1e-2 and 1e-4, 0.25 ms against 1.0 / 1.5: speedup 4.0, not counted at 1e-4 (tf32)
       C f32, module 1e-2 only, 1.0 ms against eager 0.5: speedup 0.5
       D wrong_output: a failure; E: not run (the time limit).
       Level 2 (two files): F 3xtf32, module 1e-2 and 1e-4, 2.0 ms against 3.0 / 4.0: speedup 1.5;
       G f32, correct but PyTorch has no time: correct, not fast, out of the geometric mean."""
    return [row("kb1_1_A", "1", "ok", 1.0, True, True, eager=3.0, compile_ms=2.0),
            row("kb1_2_B", "1", "ok", 0.25, True, True, precision="tf32", eager=1.0, compile_ms=1.5,
                strict="wrong_output"),
            row("kb1_3_C", "1", "ok", 1.0, True, False, eager=0.5),
            row("kb1_4_D", "1", "wrong_output", None, None, None, eager=1.0, compile_ms=1.0),
            kbs.not_run_row("kb1_5_E", "1", search_args("/w")),
            row("kb2_1_F", "2", "ok", 2.0, True, True, precision="3xtf32", eager=3.0, compile_ms=4.0),
            row("kb2_2_G", "2", "ok", 1.0, True, True)]
