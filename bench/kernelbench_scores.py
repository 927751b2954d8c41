"""KernelBench's scores of bench/kernelbench_search.py's rows: which row is correct and fast at each
tolerance, the summary per level as KernelBench scores (fast_0, fast_1, fast_2, geometric mean), and
the rows of one search budget merged over several records. bench/kernelbench_search.py writes the
scores into its record; bench/make_tables.py scores the merged rows."""
import glob
import math
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERIFIED = ("ok", "under_floor")
STRICT_PRECISIONS = ("f32", "3xtf32")  # the precisions whose rows count at 1e-4


def geometric_mean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def speedup(row):
    """The speedup of the row's timed kernel over the faster of eager and torch.compile at PyTorch's
    defaults (else the row's first setting); None where either side has no time."""
    entries = row.get("pytorch") or []
    t = next((e for e in entries if e.get("settings") == "default"), entries[0] if entries else None)
    ms = (row.get("cusched_ms") or {}).get("median")
    theirs = [x for x in ((t or {}).get("eager_ms"), (t or {}).get("compile_ms")) if x]
    return min(theirs) / ms if ms and theirs else None


def at_tolerance(row, tolerance):
    """The row as scored at `tolerance`: at 1e-4 its `strict_kernel` (the fastest f32 or 3xtf32 kernel
    of the search, where its best is of a lower precision) stands in for its kernel."""
    if tolerance != "1e-4" or not row.get("strict_kernel"):
        return row
    return dict(row, **row["strict_kernel"])


def correct(row, tolerance):
    """KernelBench's correctness at `tolerance` ("1e-2" or "1e-4"): the timed run verified, its output
    matched the module's at that tolerance and, at 1e-4, its precision is f32 or 3xtf32."""
    match = row.get("pytorch_match") or {}
    if row.get("verdict") not in VERIFIED or match.get(tolerance) is not True:
        return False
    return tolerance != "1e-4" or row.get("precision", "f32") in STRICT_PRECISIONS


def not_run(row):
    return (row.get("search") or {}).get("status") == "not_run"


def row_level(row):
    level = (row.get("search") or {}).get("level")
    if level:
        return str(level)
    m = re.match(r"kb(\d+)_", row.get("problem", ""))
    return m.group(1) if m else "-"


def level_summary(rows, requested=None):
    """The summary per level, as KernelBench scores: over every problem of the level asked for (requested:
    {level: file count}; default the rows'), a failure or a file not run counting as neither correct nor
    fast. Per tolerance: correct (fast_0), faster than the faster of eager and torch.compile (fast_1),
    over twice as fast (fast_2), as counts and fractions, and the geometric mean of the speedups of the
    correct problems, each row as scored at that tolerance (at_tolerance); precision: the precisions of
    the problems correct at 1e-2."""
    by_level = {}
    for r in rows:
        by_level.setdefault(row_level(r), []).append(r)
    order = lambda x: (not x.isdigit(), int(x) if x.isdigit() else 0, x)  # noqa: E731
    levels = sorted(set(by_level) | set(requested or {}), key=order)
    out = []
    for level in levels:
        mine = by_level.get(level, [])
        total = max(len(mine), (requested or {}).get(level, 0))
        entry = {"level": level, "problems": total, "run": sum(1 for r in mine if not not_run(r)),
                 "search_schedules": sum(1 for r in mine if (r.get("search") or {}).get("timed") == "search")}
        for tolerance in ("1e-2", "1e-4"):
            good = [v for v in (at_tolerance(r, tolerance) for r in mine) if correct(v, tolerance)]
            speedups = [s for s in (speedup(r) for r in good) if s]
            fast1 = sum(1 for s in speedups if s > 1)
            fast2 = sum(1 for s in speedups if s > 2)
            g = geometric_mean(speedups)
            entry[tolerance] = {"correct": len(good), "faster": fast1, "faster_2x": fast2,
                                "fast_0": round(len(good) / total, 4) if total else 0.0,
                                "fast_1": round(fast1 / total, 4) if total else 0.0,
                                "fast_2": round(fast2 / total, 4) if total else 0.0,
                                "geomean_speedup": round(g, 4) if g else None}
        precision = {}
        for r in mine:
            if correct(r, "1e-2"):
                p = r.get("precision", "f32")
                precision[p] = precision.get(p, 0) + 1
        entry["precision"] = dict(sorted(precision.items()))
        out.append(entry)
    return {"speedup_over": "the faster of PyTorch eager and torch.compile at PyTorch's defaults",
            "levels": out}


def budget_of(row):
    """The search budget a row was found with: (candidates, seconds)."""
    s = row.get("search") or {}
    return (s.get("candidates"), s.get("seconds"))


def merged_search_rows(records, budget=None):
    """The latest row of each problem over the records of KernelBench searches (rows with a `search`
    entry) made with one budget, (candidates, seconds), or with any where `budget` is None; rows of
    files not run are left out. `records` in chronological order (make_tables.load_records)."""
    latest = {}
    for r in records:
        for row in r.get("results", []):
            if row.get("search") and not not_run(row) and (budget is None or budget_of(row) == tuple(budget)):
                latest[row["problem"]] = row
    return list(latest.values())


def level_file_counts(root=ROOT):
    """The number of KernelBench problem files of each level: the problems a level is scored over."""
    return {level: len(glob.glob(os.path.join(root, "problems", "kernelbench", "level" + level, "*.json")))
            for level in ("1", "2")}
