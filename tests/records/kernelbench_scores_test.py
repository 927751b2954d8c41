"""The scoring half of bench/kernelbench_search.py and its tables, without a GPU: the rows (their
verdicts, module check and search entry), the KernelBench summary per level (worked by hand in
kernelbench_rows.hand_rows), runs that continue one another, the cost model's rank correlation,
the record's schema and its tables."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_search as kbs  # noqa: E402
import kernelbench_tables
import search_store  # noqa: E402
import make_tables  # noqa: E402
from kernelbench_rows import hand_rows, row, search_args  # noqa: E402
from record_schema import schema_errors  # noqa: E402


class Rows(unittest.TestCase):
    def test_a_row_carries_both_verdicts_the_module_check_and_the_search(self):
        a, b = hand_rows()[:2]
        self.assertEqual(a["schedule"], "search")
        self.assertEqual(a["verified"], {"1e-2": True, "1e-4": True})
        self.assertEqual(b["verified"], {"1e-2": True, "1e-4": False})
        self.assertEqual((a["pytorch_match"]["1e-2"], a["pytorch_match"]["1e-4"], a["matches_pytorch"]),
                         (True, True, "pass"))
        self.assertEqual(a["search"]["candidates_per_minute"], 40.0)
        self.assertEqual(b["precision"], "tf32")
        self.assertAlmostEqual(kbs.speedup(a), 2.0)
        self.assertAlmostEqual(kbs.speedup(b), 4.0)

    def test_a_file_not_run_is_a_row_that_says_so(self):
        e = hand_rows()[4]
        self.assertEqual((e["search"]["status"], e["search"]["timed"], e["pytorch_match"]["status"]),
                         ("not_run", "none", "not_run"))
        self.assertEqual(e["verified"], {"1e-2": None, "1e-4": None})
        self.assertNotIn("precision", e)
        self.assertIn("time-limit", e["note"])

    def test_rows_validate_against_the_record_schema(self):
        for r in hand_rows():
            self.assertEqual(schema_errors(r, "result"), [], r["problem"])


class CostRank(unittest.TestCase):
    def test_spearman_is_one_for_the_same_order_minus_one_for_the_reverse_and_shares_tied_ranks(self):
        self.assertEqual(kbs.spearman([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]), 1.0)
        self.assertEqual(kbs.spearman([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]), -1.0)
        self.assertEqual(kbs.ranks([5.0, 1.0, 5.0, 2.0]), [3.5, 1.0, 3.5, 2.0])
        self.assertAlmostEqual(kbs.spearman([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]), 0.8)
        self.assertIsNone(kbs.spearman([1.0, 2.0], [2.0, 1.0]))
        self.assertIsNone(kbs.spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]), "no spread")

    def test_the_table_groups_the_searches_by_problem_class(self):
        def row(cls, rho):
            return {"search": {"problem_class": cls, "cost_rank": {"candidates": 5, "spearman": rho}}}
        table = kernelbench_tables.cost_rank_table([row("matmul", 0.9), row("matmul", 0.3), row("pointwise", 1.0),
                                             {"search": {"problem_class": "reduction", "cost_rank": None}}])
        self.assertIn("| matmul | 2 | 0.60 | 0.30 | 1 |", table)
        self.assertIn("| pointwise | 1 | 1.00 | 1.00 | 0 |", table)
        self.assertFalse(any("| reduction |" in line for line in table))


class Summary(unittest.TestCase):
    def summary(self):
        return kbs.level_summary(hand_rows(), {"1": 5, "2": 2})

    def test_level_1_counts_failures_and_files_not_run_as_not_fast(self):
        one = self.summary()["levels"][0]
        self.assertEqual((one["level"], one["problems"], one["run"], one["search_schedules"]), ("1", 5, 4, 4))
        loose = one["1e-2"]
        self.assertEqual((loose["correct"], loose["faster"], loose["faster_2x"]), (3, 2, 1))  # A, B, C; A, B; B
        self.assertEqual((loose["fast_0"], loose["fast_1"], loose["fast_2"]), (0.6, 0.4, 0.2))
        self.assertAlmostEqual(loose["geomean_speedup"], (2.0 * 4.0 * 0.5) ** (1 / 3), places=4)  # 1.5874
        self.assertEqual(one["precision"], {"f32": 2, "tf32": 1})

    def test_at_1e4_only_f32_and_3xtf32_rows_that_matched_count(self):
        strict = self.summary()["levels"][0]["1e-4"]
        self.assertEqual((strict["correct"], strict["faster"], strict["faster_2x"]), (1, 1, 0))  # A only
        self.assertEqual((strict["fast_0"], strict["fast_1"], strict["fast_2"]), (0.2, 0.2, 0.0))
        self.assertEqual(strict["geomean_speedup"], 2.0)

    def test_at_1e4_a_rows_strict_kernel_stands_in_for_its_lower_precision_kernel(self):
        b = hand_rows()[1]  # tf32, 0.25 ms against 1.0 / 1.5
        b["strict_kernel"] = {"schedule": "search", "cusched_ms": {"median": 0.5, "min": 0.5, "max": 0.5},
                              "verdict": "ok", "verified": {"1e-2": True, "1e-4": True}, "pct_of_floor": 40.0,
                              "precision": "3xtf32", "math": "exact",
                              "pytorch_match": dict(b["pytorch_match"], **{"1e-4": True})}
        s = kbs.level_summary([b], {"1": 1})["levels"][0]
        self.assertEqual((s["1e-2"]["correct"], s["1e-2"]["geomean_speedup"]), (1, 4.0))  # the tf32 kernel
        self.assertEqual((s["1e-4"]["correct"], s["1e-4"]["faster_2x"], s["1e-4"]["geomean_speedup"]),
                         (1, 0, 2.0))  # the 3xtf32 kernel: 1.0 / 0.5
        self.assertEqual(s["precision"], {"tf32": 1})
        self.assertEqual(schema_errors(b, "result"), [])
        b["strict_kernel"]["pytorch_match"]["1e-4"] = False
        self.assertEqual(kbs.level_summary([b], {"1": 1})["levels"][0]["1e-4"]["correct"], 0)

    def test_a_correct_problem_without_a_pytorch_time_is_correct_but_not_fast(self):
        two = self.summary()["levels"][1]
        for t in ("1e-2", "1e-4"):
            self.assertEqual((two[t]["correct"], two[t]["faster"], two[t]["fast_0"], two[t]["fast_1"]),
                             (2, 1, 1.0, 0.5))
            self.assertEqual(two[t]["geomean_speedup"], 1.5)
        self.assertEqual(two["precision"], {"3xtf32": 1, "f32": 1})

    def test_a_level_asked_for_but_not_reached_scores_zero(self):
        s = kbs.level_summary(hand_rows()[:1], {"1": 1, "2": 3})
        self.assertEqual([(e["level"], e["problems"], e["run"], e["1e-2"]["correct"], e["1e-2"]["fast_0"])
                          for e in s["levels"]], [("1", 1, 1, 1, 1.0), ("2", 3, 0, 0, 0.0)])
        self.assertIsNone(s["levels"][1]["1e-2"]["geomean_speedup"])


class Accumulation(unittest.TestCase):
    """Runs that continue one another: the latest row of each problem of one budget is what counts."""

    def records(self):
        first = {"date": "2026-12-04", "results": hand_rows()[:4], "summary": {"levels": []}}
        later = [row("kb1_3_C", "1", "ok", 0.25, True, True, eager=0.5), kbs.not_run_row("kb1_1_A", "1",
                                                                                       search_args("/w"))]
        other_budget = row("kb1_4_D", "1", "ok", 0.1, True, True, eager=1.0)
        other_budget["search"]["candidates"] = 400
        second = {"date": "2026-12-05", "results": later + [other_budget], "summary": {"levels": []}}
        return [first, second]

    def test_the_latest_row_of_a_problem_counts_and_rows_not_run_or_of_another_budget_do_not(self):
        rows = {r["problem"]: r for r in kbs.merged_search_rows(self.records(), (40, 60.0))}
        self.assertEqual(sorted(rows), ["kb1_1_A", "kb1_2_B", "kb1_3_C", "kb1_4_D"])
        self.assertEqual(rows["kb1_3_C"]["cusched_ms"]["median"], 0.25)  # the later run's
        self.assertEqual(rows["kb1_1_A"]["cusched_ms"]["median"], 1.0)  # not replaced by a row not run
        self.assertEqual(rows["kb1_4_D"]["verdict"], "wrong_output")  # the 400-candidate row is another budget

    def test_without_a_budget_the_latest_row_of_any_budget_counts_and_the_summary_counts_the_budgets(self):
        records = self.records()
        for i, r in enumerate(records):
            r.update(name="kernelbench-%d-search" % i, environment={"gpu": "NVIDIA H100 80GB HBM3"})
        rows = {r["problem"]: r for r in kbs.merged_search_rows(records)}
        self.assertEqual(rows["kb1_4_D"]["verdict"], "ok")  # the 400-candidate row, the latest of kb1_4_D
        self.assertEqual(rows["kb1_1_A"]["cusched_ms"]["median"], 1.0)
        head = kernelbench_tables.kernelbench_merged_summary(records, False)[0]
        self.assertTrue(head.startswith("Each problem's latest row of any budget (3 at 40 candidates or 60.0 s, "
                                        "1 at 400 candidates or 60.0 s). Rows from 2 record(s)"), head)
        long_form = "\n".join(kernelbench_tables.kernelbench_merged_summary(records, True))
        self.assertIn("Budget per problem: 400 candidates or 60.0 s. Rows from 1 record(s)", long_form)
        self.assertLess(long_form.index("problem: 400 candidates"), long_form.index("problem: 40 candidates"))

    def test_every_file_of_a_level_is_scored_and_the_counts_come_from_the_tree(self):
        counts = kbs.level_file_counts()
        self.assertEqual(counts, {"1": 100, "2": 100})
        merged = kbs.level_summary(kbs.merged_search_rows(self.records(), (40, 60.0)), counts)
        one = merged["levels"][0]
        self.assertEqual((one["problems"], one["run"], one["1e-2"]["correct"]), (100, 4, 3))

    def test_skip_recorded_leaves_out_the_files_with_a_verified_row_of_the_budget(self):
        with tempfile.TemporaryDirectory() as d:
            rec = {"date": "2026-12-04", "name": "kernelbench-search", "title": "t", "command": "c", "notes": "",
                   "results": [row("kb1_19_ReLU", "1", "ok", 1.0, True, True, eager=2.0),
                               row("kb1_21_Sigmoid", "1", "internal_error", None, False, False, eager=2.0)],
                   "summary": {"levels": []}}
            with open(os.path.join(d, "2026-12-04-kernelbench-search.json"), "w") as f:
                json.dump(rec, f)
            files = [os.path.join(ROOT, "problems", "kernelbench", "level1", n) for n in
                     ("19_ReLU.json", "20_LeakyReLU.json", "21_Sigmoid.json")]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                # ReLU's row verified; Sigmoid's failed and runs again, LeakyReLU has none.
                self.assertEqual(kbs.skip_recorded(files, d, (40, 60.0)), files[1:])
                self.assertEqual(kbs.skip_recorded(files, d, (80, 60.0)), files)
                self.assertEqual(kbs.skip_recorded(files, d, None), files[1:])  # --skip-recorded-any
            self.assertIn("1 of 3 files have a verified row of this budget", out.getvalue())
            self.assertIn("1 of 3 files have a verified row of some budget", out.getvalue())


class Record(unittest.TestCase):
    def record(self):
        rows = hand_rows()
        env = {"gpu": "NVIDIA H200", "gpu_count": 1, "driver": None, "cuda": None, "pytorch": "2.11"}
        import datetime
        started = datetime.datetime(2026, 12, 4, 10, 0, tzinfo=datetime.timezone.utc)
        files = ["a"] * 7
        return kbs.make_record(rows, files, search_args("/w"), ["--search-candidates", "40"], started, "abc1234", env,
                               kbs.level_summary(rows, {"1": 5, "2": 2}))

    def test_the_record_validates_and_states_the_budget(self):
        r = self.record()
        self.assertEqual(schema_errors(r), [])
        self.assertIn("40 candidates or 60 s", r["notes"])
        self.assertIn("6 of 7 files searched", r["notes"])
        self.assertEqual(r["command"], "python3 bench/kernelbench_search.py --search-candidates 40")

    def test_the_schema_refuses_a_summary_fraction_above_one(self):
        r = self.record()
        r["summary"]["levels"][0]["1e-2"]["fast_0"] = 1.5
        self.assertNotEqual(schema_errors(r), [])

    def test_the_tables_render_the_summary_and_the_rows(self):
        r = self.record()
        summary = kernelbench_tables.kernelbench_summary_table(r["summary"])
        self.assertIn("| 1 | 1e-2 | 5 (4) | 3 (60%) | 2 (40%) | 1 (20%) | 1.59x | f32 2, tf32 1 |", summary)
        self.assertIn("| 1 | 1e-4, f32 / 3xtf32 | 5 (4) | 1 (20%) | 1 (20%) | 0 (0%) | 2.00x | - |", summary)
        rows = kernelbench_tables.search_table(r)
        self.assertTrue(rows[2].startswith("| kb1_1_A | search | 1.0000 | 3.0000 | 2.0000 | 2.00x | yes / yes | "
                                           "yes / yes | f32 | the same | 50.0 | 40 / 60 s | 40 (40.0) | - |"), rows[2])
        b = hand_rows()[1]
        b["strict_kernel"] = {"schedule": "search", "cusched_ms": {"median": 0.5, "min": 0.5, "max": 0.5},
                              "verdict": "ok", "verified": {"1e-2": True, "1e-4": True}, "precision": "3xtf32",
                              "pytorch_match": dict(b["pytorch_match"])}
        self.assertEqual(kernelbench_tables.strict_kernel_cell(b), "0.5000 ms 3xtf32, module yes / yes")
        self.assertEqual(kernelbench_tables.phases_cell({"compile": 1.5, "timing": 6.0, "reference": 0.5, "check": 0.25}),
                         "8.2: timing 6.0, compile 1.5, reference 0.5")
        self.assertEqual(kernelbench_tables.phases_cell(None), "-")
        self.assertEqual(kernelbench_tables.file_seconds_cell(
            {"search": 30.2, "timed_run": 2.1, "module_check": 10.4, "pytorch": 0.9}), "44 (30 + 13)")
        self.assertEqual(kernelbench_tables.file_seconds_cell(None), "-")
        self.assertEqual(kernelbench_tables.sanitizer_cell({"clean": True, "errors": {"memcheck": 0}}), "clean")
        self.assertEqual(kernelbench_tables.sanitizer_cell({"clean": False, "errors": {"memcheck": 0, "racecheck": 3}}),
                         "findings: racecheck 3")
        not_run = search_store.sanitizer_entry({"sanitizer": {"clean": False, "run": False, "problem": "too large"}})
        self.assertEqual(not_run, {"clean": False, "run": False, "errors": {}, "problem": "too large"})
        self.assertEqual(kernelbench_tables.sanitizer_cell(not_run), "not run")
        self.assertEqual(kernelbench_tables.sanitizer_cell(search_store.sanitizer_entry(
            {"sanitizer": {"clean": False, "runs": [{"tool": "memcheck", "errors": 1}]}})), "findings: memcheck 1")
        self.assertIn("| kb1_5_E | none | - |", rows[6])
        text = make_tables.results_md([r])
        self.assertIn("fast_1, fast_2", text)
        self.assertIn("| kb2_1_F | search |", text)


if __name__ == "__main__":
    unittest.main()
