"""The parts of bench/kernelbench_verify.py that need no GPU and no PyTorch: shapes and working
sets of problem files, the reduced shape, the forward-argument and parameter mapping, the
comparison at both tolerances, the disk budget's order, and the record it writes (which
validates and which make_tables.py renders)."""
import contextlib
import glob
import io
import json
import os
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_verify as kv  # noqa: E402
import make_tables  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None
try:
    import torch
except ImportError:
    torch = None


def problem_file(stem_prefix, level="level1"):
    paths = glob.glob(os.path.join(ROOT, "problems", "kernelbench", level, stem_prefix + "_*.json"))
    if not paths:
        raise unittest.SkipTest("no problem file %s_*" % stem_prefix)
    with open(paths[0]) as f:
        return json.load(f)


class SkipMatched(unittest.TestCase):
    def test_only_files_without_a_match_at_both_tolerances_are_kept(self):
        relu, sigmoid, tanh = (os.path.join(ROOT, "problems", "kernelbench", "level1", f)
                               for f in ("19_ReLU.json", "21_Sigmoid.json", "22_Tanh.json"))
        def row(name, loose, strict):
            return {"problem": name, "pytorch_match": {"status": "compared", "1e-2": loose, "1e-4": strict,
                                                       "max_abs_err": 0.0, "max_rel_err": 0.0, "sizes": {},
                                                       "reduced": False}}
        with tempfile.TemporaryDirectory() as d:
            record = {"date": "2026-01-01", "name": "kernelbench-verify", "title": "t", "command": "c", "notes": "",
                      "results": [row("kb1_19_ReLU", True, True), row("kb1_21_Sigmoid", True, False)]}
            with open(os.path.join(d, "2026-01-01-kernelbench-verify.json"), "w") as f:
                json.dump(record, f)
            with contextlib.redirect_stdout(io.StringIO()):
                kept = kv.skip_matched([relu, sigmoid, tanh], d)
                # the record names no GPU: with --matched-on its match does not count
                kept_on = kv.skip_matched([relu, sigmoid, tanh], d, "H200")
                record["environment"] = {"gpu": "NVIDIA H200", "gpu_count": 1, "driver": None, "cuda": None,
                                         "pytorch": None}
                with open(os.path.join(d, "2026-01-01-kernelbench-verify.json"), "w") as f:
                    json.dump(record, f)
                kept_h200 = kv.skip_matched([relu, sigmoid, tanh], d, "H200")
                kept_h100 = kv.skip_matched([relu, sigmoid, tanh], d, "H100")
        self.assertEqual(kept, [sigmoid, tanh])  # 1e-4 missed; never checked
        self.assertEqual(kept_on, [relu, sigmoid, tanh])
        self.assertEqual(kept_h200, [sigmoid, tanh])
        self.assertEqual(kept_h100, [relu, sigmoid, tanh])


class Shapes(unittest.TestCase):
    def test_size_expressions_truncate_as_c_does(self):
        s = {"H": 224, "W": 7}
        self.assertEqual(kv.size_value("(H + 4 - 11) / 4 + 1", s), 55)
        self.assertEqual(kv.size_value("H - 2 * W", s), 210)
        self.assertEqual(kv.size_value("W % 4", s), 3)
        self.assertEqual(kv.size_value("(W - 9) / 2", s), -1)  # truncation toward zero, not floor
        self.assertEqual(kv.size_value(3, s), 3)
        with self.assertRaises(ValueError):
            kv.size_value("H + Q", s)
        with self.assertRaises(ValueError):
            kv.size_value("H +", s)

    def test_stage_domains_split_at_top_level_commas(self):
        name, extents = kv.stage_domain("Y(n in N, oh in (H - 11) / 11 + 1, ow in max(W, 2)) = S(n, oh, ow) / 2.0f")
        self.assertEqual(name, "Y")
        self.assertEqual(extents, ["N", "(H - 11) / 11 + 1", "max(W, 2)"])

    def test_a_strided_convolution_file_gives_pytorchs_output_shape(self):
        p = problem_file("50")
        shapes = kv.output_shapes(p, p["sizes"]["bench"])
        self.assertEqual(shapes, {"Y": [256, 96, 55, 55]})
        ins, outs = kv.working_set(p, p["sizes"]["bench"])
        self.assertEqual(outs, 256 * 96 * 55 * 55 * 4)
        self.assertEqual(ins, (256 * 3 * 224 * 224 + 96 * 3 * 11 * 11 + 96) * 4)

    def test_argmax_outputs_count_eight_bytes(self):
        p = problem_file("51")
        _, outs = kv.working_set(p, p["sizes"]["bench"])
        self.assertEqual(outs, 128 * 4095 * 8)

    def test_a_reduced_shape_fits_and_keeps_every_extent_positive(self):
        p = problem_file("45")  # AvgPool2d kernel 11: H and W must stay at least 11
        bench = p["sizes"]["bench"]
        limit = 64 << 20
        sizes, reduced = kv.reduced_sizes(p, bench, limit)
        self.assertTrue(reduced)
        self.assertLessEqual(sum(kv.working_set(p, sizes)), limit)
        self.assertTrue(kv.shapes_valid(p, sizes))
        self.assertGreaterEqual(sizes["H"], 11)
        self.assertEqual(kv.shape_flag(bench, bench), "")
        flag = kv.shape_flag(bench, sizes)
        self.assertTrue(flag and all("=" in part for part in flag.split(",")))
        same, again = kv.reduced_sizes(p, bench, 1 << 50)
        self.assertEqual((same, again), (bench, False))

    def test_a_reduced_shape_keeps_the_sizes_the_module_fixes(self):
        # Conv2d(3, 128, 3) of level 1 #55: the channels shape its weight, so only the batch
        # and the image shrink; LayerNorm((64, 256, 256)) of #40: its normalised shape is a
        # constructor argument.
        conv = problem_file("55")
        bench = conv["sizes"]["bench"]
        sizes, reduced = kv.reduced_sizes(conv, bench, 64 << 20)
        self.assertTrue(reduced)
        self.assertEqual((sizes["CI"], sizes["CO"]), (bench["CI"], bench["CO"]))
        self.assertIn("CI", kv.module_sizes(conv, bench))
        norm = problem_file("40")
        nb = norm["sizes"]["bench"]
        fixed = kv.module_sizes(norm, nb)
        kept, _ = kv.reduced_sizes(norm, nb, 64 << 20)
        for name in fixed:
            self.assertEqual(kept[name], nb[name], name)
        self.assertTrue(fixed, "LayerNorm's normalised shape is fixed by its constructor")

    def test_a_reduced_batch_keeps_enough_rows_for_batch_statistics(self):
        # Gemm, scale and training-mode BatchNorm1d of level 2 #33: its weight alone exceeds
        # the limit, and a batch of 1 would make every normalised value 0.
        gemm_bn = problem_file("33", level="level2")
        bench = gemm_bn["sizes"]["bench"]
        sizes, reduced = kv.reduced_sizes(gemm_bn, bench, 64 << 20)
        self.assertTrue(reduced)
        self.assertEqual(sizes["B"], kv.MIN_REDUCED_SIZE)
        self.assertGreater(kv.MIN_REDUCED_SIZE, 1)

    def test_a_long_reduction_is_cut_below_the_references_serial_limit(self):
        # ConvTranspose3d and training-mode BatchNorm3d of level 2 #72: at the bench size each
        # of the 16 channels' statistics reduces 64 x 63^3 elements; the float64 reference
        # gives each channel a block of 256 threads (fewer than 4096 points over 65536 or
        # more elements), so a thread's serial part is 64 x 63^3 / 256 and the bench size
        # stays.
        p = problem_file("72", level="level2")
        bench = p["sizes"]["bench"]
        self.assertEqual(kv.longest_reduction(p, bench), 64 * 63 ** 3)
        self.assertEqual(kv.longest_serial_reduction(p, bench), -(-64 * 63 ** 3 // 256))
        self.assertEqual(kv.reduced_sizes(p, bench, 1 << 50), (bench, False))
        # A reduction of 4096 or more points is serial in one thread per point: 8192 rows
        # of 2^23 elements are cut below the limit.
        rows = {"name": "rows", "inputs": [{"name": "X", "dtype": "f32", "shape": ["R", "K"]}], "source": {},
                "stages": ["S(r in R) = sum(k in K: X(r, k))"], "outputs": ["S"]}
        sizes, reduced = kv.reduced_sizes(rows, {"R": 8192, "K": 1 << 23}, 1 << 50)
        self.assertTrue(reduced)
        self.assertLessEqual(kv.longest_serial_reduction(rows, sizes), kv.MAX_REFERENCE_REDUCTION)
        self.assertEqual(kv.longest_serial_reduction(rows, {"R": 8192, "K": 1 << 23}), 1 << 23)
        self.assertEqual(kv.longest_serial_reduction(rows, {"R": 64, "K": 1 << 23}), 1 << 15)
        self.assertTrue(kv.shapes_valid(rows, sizes))

    def test_reductions_are_the_calls_with_a_domain(self):
        self.assertEqual(kv.reduction_headers("X(i) + sum(r in N, s in 2 * D - 1: A(r, s)) * max(t in 3: B(t, max(i, 2)))"),
                         [["N", "2 * D - 1"], ["3"]])
        self.assertEqual(kv.reduction_headers("select(i % 2 == 0, A(i / 2), B((i - 1) / 2))"), [])

    def test_the_plan_names_the_shape_flag_of_a_reduced_run(self):
        paths = sorted(glob.glob(os.path.join(ROOT, "problems", "kernelbench", "level1", "19_*.json")))
        if not paths:
            self.skipTest("no ReLU file")
        job = kv.plan(paths[0], 1 << 30)
        self.assertTrue(job["reduced"])
        ins, outs = kv.working_set(job["problem"], job["sizes"])
        self.assertEqual(job["disk"], kv.SAVED_TRIALS * (ins + 2 * outs))
        line = kv.plan_lines([job])[0]
        self.assertIn("--shape BATCH=", line)
        self.assertIn("bench size", kv.plan_lines([kv.plan(paths[0], 1 << 40)])[0])

    def test_files_run_in_kernelbench_order(self):
        files = ["p/level1/10_a.json", "p/level1/2_b.json", "p/level2/1_c.json", "p/level1/100_d.json"]
        self.assertEqual(sorted(files, key=kv.file_order),
                         ["p/level1/2_b.json", "p/level1/10_a.json", "p/level1/100_d.json", "p/level2/1_c.json"])

    def test_every_problem_file_has_valid_bench_shapes(self):
        paths = sorted(glob.glob(os.path.join(ROOT, "problems", "kernelbench", "**", "*.json"), recursive=True))
        for path in paths:
            with open(path) as f:
                p = json.load(f)
            for table, sizes in p["sizes"].items():
                self.assertTrue(kv.shapes_valid(p, sizes), "%s at %s" % (path, table))


class ModuleMapping(unittest.TestCase):
    def test_forward_arguments_follow_the_source_order_with_scalars(self):
        source = {"forward_args": ["A", 3.14, "B", 2]}
        self.assertEqual(kv.forward_arguments(source, {"A": "a", "B": "b"}), ["a", 3.14, "b", 2])
        with self.assertRaises(KeyError):
            kv.forward_arguments({"forward_args": ["C"]}, {"A": "a"})

    def test_parameters_are_copied_into_the_attribute_paths(self):
        class Tensor:
            def __init__(self, shape):
                self.shape, self.data, self.value = shape, self, None

            def copy_(self, v):
                self.value = v.value

        class Layer:
            def __init__(self):
                self.weight, self.bias = Tensor((4, 3)), Tensor((4,))

        class Model:
            def __init__(self):
                self.conv = Layer()

        m = Model()
        w, b = Tensor((4, 3)), Tensor((4,))
        w.value, b.value = "w", "b"
        kv.load_parameters(m, {"parameters": {"W": "conv.weight", "B": "conv.bias"}}, {"W": w, "B": b})
        self.assertEqual((m.conv.weight.value, m.conv.bias.value), ("w", "b"))
        with self.assertRaises(ValueError):
            kv.load_parameters(m, {"parameters": {"B": "conv.weight"}}, {"B": b})

    def test_constructor_arguments_compare_tuples_as_lists(self):
        self.assertEqual(kv.normalised([3, (5, 7), False]), [3, [5, 7], False])

    def test_the_module_is_found_under_the_checkout_or_its_kernelbench_folder(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "KernelBench", "level1"))
            path = os.path.join(d, "KernelBench", "level1", "19_ReLU.py")
            open(path, "w").close()
            self.assertEqual(kv.kernelbench_file(d, "level1/19_ReLU.py"), path)
            self.assertEqual(kv.kernelbench_file(os.path.join(d, "KernelBench"), "level1/19_ReLU.py"), path)
            with self.assertRaises(FileNotFoundError):
                kv.kernelbench_file(d, "level1/20_LeakyReLU.py")

    def test_the_first_trials_files_are_used(self):
        with tempfile.TemporaryDirectory() as d:
            for n in ("trial2_X.npy", "trial10_X.npy", "trial1_X.npy", "trial1_Y.npy", "trial1_Y.reference.npy"):
                open(os.path.join(d, n), "w").close()
            self.assertEqual(os.path.basename(kv.saved(d, "X")), "trial1_X.npy")
            self.assertEqual(os.path.basename(kv.saved(d, "Y")), "trial1_Y.npy")
            self.assertEqual(os.path.basename(kv.saved(d, "Y", ".reference.npy")), "trial1_Y.reference.npy")
            with self.assertRaises(FileNotFoundError):
                kv.saved(d, "Z")


class Comparison(unittest.TestCase):
    """The rule on plain sequences; the numpy path (the GPU machine's) must agree where numpy is installed."""

    def both(self, got, ref, **kw):
        c = kv.compare(got, ref, **kw)
        if np is not None:
            d = kv.compare(np.array(got), np.array(ref), **kw)
            self.assertEqual(c["pass"], d["pass"])
            self.assertAlmostEqual(c["max_abs_err"], d["max_abs_err"], places=6)
            if torch is not None:  # the module's output as a tensor, on the GPU where there is one
                device = "cuda" if torch.cuda.is_available() else "cpu"
                e = kv.compare(np.array(got), torch.tensor(ref, dtype=torch.float64, device=device), **kw)
                self.assertEqual(c["pass"], e["pass"])
                self.assertAlmostEqual(c["max_abs_err"], e["max_abs_err"], places=6)
        return c

    def test_each_tolerance_is_absolute_plus_relative(self):
        ref = [1.0, 100.0, 0.0]
        c = self.both([1.015, 100.9, 0.005], ref)
        self.assertTrue(c["pass"][1e-2])
        self.assertFalse(c["pass"][1e-4])
        self.assertAlmostEqual(c["max_abs_err"], 0.9, places=6)
        self.assertAlmostEqual(self.both([1.015, 100.9], [1.0, 100.0])["max_rel_err"], 0.015, places=6)
        self.assertFalse(self.both([1.05, 100.0, 0.0], ref)["pass"][1e-2])
        self.assertFalse(self.both([1.0, 101.5, 0.0], ref)["pass"][1e-2])
        self.assertTrue(self.both([1.00005, 100.0, 0.0], ref)["pass"][1e-4])

    def test_shapes_may_differ_but_element_counts_may_not(self):
        self.assertTrue(self.both([[[1.0, 2.0]], [[3.0, 4.0]]], [[1.0, 2.0], [3.0, 4.0]])["pass"][1e-4])
        with self.assertRaises(ValueError):
            kv.compare([1.0, 2.0], [1.0, 2.0, 3.0])

    def test_nan_and_infinity_pass_only_where_both_agree(self):
        nan, inf = float("nan"), float("inf")
        self.assertTrue(self.both([nan, inf, -inf], [nan, inf, -inf])["pass"][1e-2])
        self.assertFalse(self.both([nan], [1.0])["pass"][1e-2])
        self.assertFalse(self.both([inf], [1.0])["pass"][1e-2])
        self.assertFalse(self.both([1.0], [inf])["pass"][1e-2])
        self.assertFalse(self.both([inf], [-inf])["pass"][1e-2])

    def test_chunks_cover_every_element(self):
        got = [0.0] * 999 + [1.0]
        c = self.both(got, [0.0] * 1000, chunk=7)
        self.assertFalse(c["pass"][1e-2])
        self.assertEqual(c["max_abs_err"], 1.0)

    def test_integer_outputs_compare_exactly_enough(self):
        self.assertTrue(self.both([3, 7], [3, 7])["pass"][1e-4])
        self.assertFalse(self.both([3, 8], [3, 7])["pass"][1e-2])


class DiskBudget(unittest.TestCase):
    def test_runs_take_their_share_in_job_order_and_never_exceed_it(self):
        budget = kv.DiskBudget(10)
        order, peak, lock = [], [0], threading.Lock()

        def job(i, n):
            budget.acquire(n, i)
            with lock:
                order.append(i)
                peak[0] = max(peak[0], budget.used)
            time.sleep(0.01)
            budget.release(n)

        threads = [threading.Thread(target=job, args=(i, n)) for i, n in reversed(list(enumerate([4, 4, 4, 30, 2])))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        self.assertEqual(order, [0, 1, 2, 3, 4])
        self.assertLessEqual(peak[0], 30)  # the 30 runs alone


class TimeLimit(unittest.TestCase):
    def job(self):
        return {"disk": 0, "index": 0, "problem": {"name": "kb1_19_ReLU"}, "path": "x.json", "bench": {}, "sizes": {},
                "reduced": False}

    def test_past_the_time_limit_no_run_starts(self):
        budget = kv.DiskBudget(1 << 20)
        with tempfile.TemporaryDirectory() as work:
            run, reason, _ = kv.run_cusched("/nonexistent/cusched", self.job(), work, 100, budget, time.time() - 1)
        self.assertIsNone(run)
        self.assertTrue(reason.startswith("not run"), reason)

    def test_a_run_is_not_started_too_close_to_the_time_limit_to_finish(self):
        budget = kv.DiskBudget(1 << 20)
        with tempfile.TemporaryDirectory() as work:
            run, reason, _ = kv.run_cusched("/nonexistent/cusched", self.job(), work, 100, budget,
                                            time.time() + kv.MIN_START_S - 10)
        self.assertIsNone(run)
        self.assertTrue(reason.startswith("not run"), reason)

    def test_within_the_time_limit_the_run_starts(self):
        budget = kv.DiskBudget(1 << 20)
        with tempfile.TemporaryDirectory() as work:
            run, reason, _ = kv.run_cusched("/nonexistent/cusched", self.job(), work, 100, budget, time.time() + 600)
        self.assertIsNone(run)
        self.assertTrue(reason.startswith("cusched could not run"), reason)

    def test_files_not_run_are_counted_apart(self):
        row = kv.result_row("kb1_19_ReLU", {"status": "not_run", "reason": "not run: the --time-limit had passed"})
        self.assertEqual(row["pytorch_match"]["status"], "not_run")
        self.assertIsNone(row["pytorch_match"]["1e-2"])
        self.assertTrue(kv.summary_lines([row])[-1].endswith("1 not run (time limit)"))


class Timed(unittest.TestCase):
    def test_a_timed_run_carries_its_median_and_floor_share(self):
        check = {"max_abs_err": 0.0, "max_rel_err": 0.0, "pass": {1e-2: True, 1e-4: True}}
        row = kv.result_row("kb1_89_cumsum", {"status": "compared", "verdict": "ok", "check": check, "sizes": {},
                                              "gpu": {"median_ms": 2.5, "min_ms": 2.4, "max_ms": 2.7,
                                                      "pct_of_floor": 81.0}})
        self.assertEqual(row["cusched_ms"], {"median": 2.5, "min": 2.4, "max": 2.7})
        self.assertEqual(row["pct_of_floor"], 81.0)
        untimed = kv.result_row("kb1_89_cumsum", {"status": "compared", "verdict": "ok", "check": check,
                                                  "gpu": {"median_ms": 0, "pct_of_floor": 0}})
        self.assertIsNone(untimed["cusched_ms"]["median"])
        self.assertIsNone(untimed["pct_of_floor"])


class Record(unittest.TestCase):
    def outcomes(self):
        check = {"max_abs_err": 2e-5, "max_rel_err": 3e-4, "pass": {1e-2: True, 1e-4: False}}
        return [
            ("kb1_19_ReLU", {"status": "compared", "verdict": "ok", "check": check, "reference_check": check,
                             "sizes": {"BATCH": 1024, "D": 393216}, "reduced": True, "source_file": "level1/19_ReLU.py"}),
            ("kb1_50_conv", {"status": "cusched_failed", "verdict": "timeout", "reason": "timeout: the kernel",
                             "sizes": {"N": 256}, "reduced": False, "source_file": "level1/50_conv.py"}),
        ]

    def record(self):
        rows = [kv.result_row(n, o) for n, o in self.outcomes()]
        return kv.make_record(rows, name="kernelbench-verify", date="2026-12-02", started="2026-12-02T03:00:00Z",
                              commit="abc1234", environment={"gpu": "NVIDIA H200", "gpu_count": 1, "driver": None,
                                                             "cuda": None, "pytorch": "2.11"},
                              command="python3 bench/kernelbench_verify.py --kernelbench kb", prediction=None,
                              notes="n")

    def test_rows_carry_both_tolerances_and_the_failure_reason(self):
        r = self.record()
        ok, failed = r["results"]
        self.assertEqual((ok["pytorch_match"]["1e-2"], ok["pytorch_match"]["1e-4"]), (True, False))
        self.assertEqual(ok["matches_pytorch"], "pass")
        self.assertTrue(ok["pytorch_match"]["reduced"])
        self.assertEqual(failed["pytorch_match"]["status"], "cusched_failed")
        self.assertIsNone(failed["matches_pytorch"])
        self.assertEqual(failed["note"], "timeout: the kernel")
        self.assertIsNone(ok["cusched_ms"]["median"])  # not timed: never in the current-numbers table

    def test_the_record_validates_and_renders(self):
        r = self.record()
        try:
            import jsonschema
            with open(os.path.join(ROOT, "bench", "record.schema.json")) as f:
                errors = [e.message for e in jsonschema.Draft202012Validator(json.load(f)).iter_errors(r)]
            self.assertEqual(errors, [])
        except ImportError:
            pass
        md = make_tables.results_md([r])
        self.assertIn("2 problem files checked against their PyTorch modules: 1 match at 1e-2, 0 at 1e-4", md)
        self.assertIn("| level1/19_ReLU.py |", md)
        self.assertIn("yes / no", md)
        self.assertIn("reduced: BATCH=1024, D=393216", md)
        self.assertEqual(make_tables.current_rows([r]), [])

    def test_the_summary_counts_matches(self):
        lines = kv.summary_lines(self.record()["results"])
        self.assertEqual(lines[-1], "2 problems: 1 match PyTorch at 1e-2, 0 at 1e-4")
        self.assertIn("FAIL", lines[2])


if __name__ == "__main__":
    unittest.main()
