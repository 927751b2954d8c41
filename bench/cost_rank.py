#!/usr/bin/env python3
"""The cost model against stored GPU times: for each search store (a run's SQLite file), the verified,
timed candidates of its latest run (or --run) with their GPU median, the estimate stored when they were
evaluated and the estimate of the current cost model (`cusched lower --emit cost` of the candidate's
schedule on the run's problem definition and size), and Spearman's rank correlation of each estimate with
the medians. A change to the cost model is measured on the stores of earlier GPU runs without a GPU.

usage: cost_rank.py STORE.db [STORE.db ...] [--cusched PATH] [--run N] [--json]
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_store import spearman  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed_candidates(db, run=None):
    """(run id, problem definition, size, [(candidate, median ms, stored estimate, schedule)]) of the store's
    run `run` (default: the latest), its verified candidates timed on a GPU."""
    con = sqlite3.connect(db)
    try:
        if run is None:
            run = con.execute("SELECT max(id) FROM runs").fetchone()[0]
        row = con.execute("SELECT problem_definition, size FROM runs WHERE id = ?", (run,)).fetchone()
        if row is None:
            raise ValueError("%s has no run %s" % (db, run))
        rows = con.execute(
            "SELECT c.id, e.median_ms, e.cost_estimate, c.schedule FROM evaluations e "
            "JOIN candidates c ON c.id = e.candidate WHERE c.run = ? AND e.verified = 1 AND e.backend = 'gpu' "
            "AND e.median_ms IS NOT NULL ORDER BY e.median_ms", (run,)).fetchall()
    finally:
        con.close()
    return run, row[0], row[1], rows


def estimate(cusched, problem_path, schedule, size):
    """The current cost model's estimate (ms) of `schedule` (JSON text), None where it does not lower."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(schedule)
    try:
        p = subprocess.run([cusched, "lower", "-p", problem_path, "-s", f.name, "--size", size, "--emit", "cost",
                            "--json"], capture_output=True, text=True, timeout=120)
        return json.loads(p.stdout)["total"]["estimated_ms"]
    except (ValueError, KeyError, TypeError, subprocess.TimeoutExpired):
        return None
    finally:
        os.unlink(f.name)


def store_rank(cusched, db, run=None):
    """One store's comparison: {store, run, candidates, stored, current, rows}."""
    run, definition, size, rows = timed_candidates(db, run)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(definition)
    try:
        out = []
        for cid, median, stored, schedule in rows:
            now = estimate(cusched, f.name, schedule, size)
            if now is not None:
                out.append({"candidate": cid, "median_ms": median, "stored_ms": stored, "current_ms": now})
    finally:
        os.unlink(f.name)
    medians = [r["median_ms"] for r in out]
    rho = lambda key: spearman([r[key] for r in out], medians)  # noqa: E731
    rounded = lambda x: round(x, 4) if x is not None else None  # noqa: E731
    return {"store": db, "run": run, "candidates": len(out), "stored": rounded(rho("stored_ms")),
            "current": rounded(rho("current_ms")), "rows": out}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("stores", nargs="+")
    p.add_argument("--cusched", default=os.path.join(ROOT, "build", "tools", "cusched"))
    p.add_argument("--run", type=int, default=None, help="the run of each store (default: its latest)")
    p.add_argument("--json", action="store_true", help="print the comparisons as one JSON list")
    args = p.parse_args(argv)
    if not os.access(args.cusched, os.X_OK):
        print("cost_rank: %s is not an executable cusched (give --cusched)" % args.cusched, file=sys.stderr)
        return 2
    results = [store_rank(args.cusched, db, args.run) for db in args.stores]
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    show = lambda x: "-" if x is None else "%.3f" % x  # noqa: E731
    print("%-48s %10s %14s %15s" % ("store (run)", "candidates", "stored rho", "current rho"))
    for r in results:
        print("%-48s %10d %14s %15s" % ("%s (%d)" % (os.path.basename(r["store"])[:42], r["run"]), r["candidates"],
                                        show(r["stored"]), show(r["current"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
