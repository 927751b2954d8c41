"""bench/cost_rank.py without a GPU: a store's verified GPU-timed candidates of its latest run, re-estimated
through a stand-in cusched (its estimate read from the schedule), and the rank correlations."""
import os
import sqlite3
import stat
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cost_rank  # noqa: E402

# `lower -p DEF -s SCHEDULE --size S --emit cost --json`: the schedule file is {"estimate": ms}, or not
# JSON (then it prints an error, as cusched does for a schedule that does not lower).
STAND_IN = """#!/usr/bin/env python3
import json, sys
a = sys.argv
s = json.load(open(a[a.index("-s") + 1])) if open(a[a.index("-s") + 1]).read().startswith("{") else None
assert a[a.index("--size") + 1] == "bench" and json.load(open(a[a.index("-p") + 1]))["name"] == "p"
print(json.dumps({"ok": True, "total": {"estimated_ms": s["estimate"]}} if s else {"ok": False, "error": {}}))
"""


def make_store(path, runs):
    """runs: for each run, rows of (median ms or None, stored estimate, current estimate or None (a schedule
    that does not lower), verified, backend)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, problem_definition TEXT, size TEXT)")
    con.execute("CREATE TABLE candidates (id INTEGER PRIMARY KEY, run INTEGER, schedule TEXT)")
    con.execute("CREATE TABLE evaluations (id INTEGER PRIMARY KEY, candidate INTEGER, verified INTEGER, "
                "median_ms REAL, cost_estimate REAL, backend TEXT)")
    for run, rows in enumerate(runs, 1):
        con.execute("INSERT INTO runs VALUES (?, ?, 'bench')", (run, '{"name": "p"}'))
        for median, stored, current, verified, backend in rows:
            schedule = '{"estimate": %r}' % current if current is not None else "not json"
            cid = con.execute("INSERT INTO candidates (run, schedule) VALUES (?, ?)", (run, schedule)).lastrowid
            con.execute("INSERT INTO evaluations (candidate, verified, median_ms, cost_estimate, backend) "
                        "VALUES (?, ?, ?, ?, ?)", (cid, verified, median, stored, backend))
    con.commit()
    con.close()


class CostRank(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.cusched = os.path.join(self.dir.name, "cusched")
        with open(self.cusched, "w") as f:
            f.write(STAND_IN)
        os.chmod(self.cusched, os.stat(self.cusched).st_mode | stat.S_IEXEC)
        self.db = os.path.join(self.dir.name, "run.db")

    def tearDown(self):
        self.dir.cleanup()

    def test_the_current_estimates_are_ranked_against_the_gpu_medians(self):
        make_store(self.db, [
            [(1.0, 9.0, 9.0, 1, "gpu")],  # an earlier run: left out
            [(1.0, 4.0, 1.0, 1, "gpu"), (2.0, 3.0, 2.0, 1, "gpu"), (3.0, 2.0, 3.0, 1, "gpu"),
             (4.0, 1.0, 4.0, 1, "gpu"),
             (0.5, 0.1, 0.1, 0, "gpu"),     # not verified
             (None, 5.0, 5.0, 1, "interp"),  # the interpreter's estimate, no GPU time
             (5.0, 0.5, None, 1, "gpu")]])   # does not lower with the current model
        r = cost_rank.store_rank(self.cusched, self.db)
        self.assertEqual(r["run"], 2)
        self.assertEqual(r["candidates"], 4)
        self.assertAlmostEqual(r["stored"], -1.0)
        self.assertAlmostEqual(r["current"], 1.0)
        self.assertEqual([x["median_ms"] for x in r["rows"]], [1.0, 2.0, 3.0, 4.0])

    def test_a_run_may_be_named_and_too_few_candidates_give_no_correlation(self):
        make_store(self.db, [[(1.0, 2.0, 2.0, 1, "gpu"), (2.0, 1.0, 1.0, 1, "gpu")], [(1.0, 1.0, 1.0, 1, "gpu")]])
        r = cost_rank.store_rank(self.cusched, self.db, run=1)
        self.assertEqual((r["run"], r["candidates"], r["stored"], r["current"]), (1, 2, None, None))
        with self.assertRaises(ValueError):
            cost_rank.store_rank(self.cusched, self.db, run=7)


if __name__ == "__main__":
    unittest.main()
