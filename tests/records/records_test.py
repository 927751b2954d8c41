"""The record format and the table generator: records validate against bench/record.schema.json,
the current table takes each problem's latest verified row, fills missing PyTorch numbers from
earlier records of the same setting with a mark, and --check reports stale files."""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_bench  # noqa: E402
import kernelbench_tables  # noqa: E402
import make_tables  # noqa: E402
import record_cells  # noqa: E402


def result(problem, ms, verdict="ok", eager=None, compile_ms=None, settings="default"):
    r = {"problem": problem, "cusched_ms": {"median": ms, "min": None, "max": None}, "verdict": verdict,
         "verified": {"1e-2": verdict == "ok", "1e-4": None}, "pct_of_floor": 50.0, "precision": "f32", "math": "exact"}
    if eager is not None or compile_ms is not None:
        r["pytorch"] = [{"settings": settings, "cudnn_allow_tf32": settings != "fp32", "matmul_allow_tf32": settings == "tf32",
                         "version": "2.11", "eager_ms": eager, "compile_ms": compile_ms}]
    return r


def record(date, name, results, sequence=1):
    return {"schema_version": 1, "date": date, "sequence": sequence, "name": name, "title": name, "kind": "benchmark",
            "commit": None, "environment": {"gpu": "NVIDIA H200", "gpu_count": 1, "driver": None, "cuda": None,
                                            "pytorch": "2.11"},
            "command": "bash bench/run_gpu_bench.sh", "prediction": None, "results": results, "notes": ""}


class CurrentRows(unittest.TestCase):
    def test_latest_verified_row_wins(self):
        rows = make_tables.current_rows([
            record("2026-01-01", "a", [result("softmax", 1.0, eager=2.0, compile_ms=1.5)]),
            record("2026-01-02", "b", [result("softmax", 0.5, eager=2.0, compile_ms=1.0)]),
            record("2026-01-03", "c", [result("softmax", 0.1, verdict="wrong_output")]),
        ])
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["ms"], 0.5)
        self.assertEqual(rows[0]["record"]["name"], "b")
        self.assertAlmostEqual(rows[0]["speedup"], 2.0)

    def test_kernelbench_files_are_kept_apart_from_the_built_in_set(self):
        records = [record("2026-01-01", "a", [result("softmax", 1.0, eager=2.0), result("kb1_23_Softmax", 3.0, eager=1.0),
                                              result("kb2_76_Gemm_Add_ReLU", 2.0, eager=4.0)])]
        self.assertEqual([r["problem"] for r in make_tables.current_rows(records)], ["softmax"])
        self.assertEqual([r["problem"] for r in make_tables.current_rows(records, kernelbench=True)],
                         ["kb2_76_Gemm_Add_ReLU", "kb1_23_Softmax"])
        page = make_tables.results_md(records)
        built_in, kernelbench = page.split("## KernelBench", 1)
        self.assertNotIn("kb1_23_Softmax", built_in)
        self.assertIn("| kb1_23_Softmax | 3.0000 |", kernelbench.split("## Archive")[0])
        self.assertIn("No search record yet.", kernelbench)

    def test_matched_precision_takes_the_setting_of_the_kernels_precision(self):
        tf32 = result("matmul", 0.5, eager=2.0, compile_ms=2.5)  # timed against PyTorch's defaults (FP32 matmuls)
        tf32["precision"] = "tf32"
        bf16 = result("bmm", 1.0, eager=3.0)
        bf16["precision"] = "bf16"
        rows = {r["problem"]: r for r in make_tables.current_rows([
            record("2026-01-01", "a", [result("matmul", 9.0, eager=0.4, compile_ms=0.45, settings="tf32"),
                                       result("conv", 9.0, eager=4.0, settings="fp32")]),
            record("2026-01-02", "b", [tf32, bf16, result("conv", 2.0, eager=1.0, compile_ms=1.5)]),
        ])}
        self.assertAlmostEqual(rows["matmul"]["speedup"], 4.0)  # over the defaults
        self.assertAlmostEqual(rows["matmul"]["matched"], 0.8)  # over cuBLAS TF32 of the earlier run
        self.assertIsNone(rows["bmm"]["matched"])  # PyTorch has no bf16 setting to match
        self.assertAlmostEqual(rows["conv"]["matched"], 2.0)  # a f32 kernel against TF32 off
        line = next(l for l in make_tables.current_table(list(rows.values()), False) if l.startswith("| matmul"))
        self.assertIn("| 4.00x | 0.80x |", line)

    def test_missing_compile_time_comes_from_an_earlier_record_and_is_marked(self):
        rows = make_tables.current_rows([
            record("2026-01-01", "a", [result("relu", 1.0, eager=1.2, compile_ms=0.9)]),
            record("2026-01-02", "b", [result("relu", 0.8, eager=1.1)]),
        ])
        self.assertEqual(rows[0]["compile"], 0.9)
        self.assertEqual(rows[0]["marks"]["compile"], " c")
        self.assertEqual(rows[0]["marks"]["eager"], "")

    def test_other_pytorch_settings_are_not_mixed_in(self):
        rows = make_tables.current_rows([
            record("2026-01-01", "a", [result("matmul", 1.0, eager=0.3, compile_ms=0.3, settings="tf32")]),
            record("2026-01-02", "b", [result("matmul", 0.4, eager=2.6)]),
        ])
        self.assertIsNone(rows[0]["compile"])
        self.assertAlmostEqual(rows[0]["speedup"], 6.5)

    def test_records_order_by_date_then_sequence(self):
        with tempfile.TemporaryDirectory() as d:
            for r in (record("2026-01-02", "x", [], 1), record("2026-01-01", "z", [], 2), record("2026-01-01", "y", [], 1)):
                with open(os.path.join(d, "%s-%s.json" % (r["date"], r["name"])), "w") as f:
                    json.dump(r, f)
            self.assertEqual([r["name"] for r in record_cells.load_records(d)], ["y", "z", "x"])

    def test_a_misnamed_record_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "2026-01-01-other.json"), "w") as f:
                json.dump(record("2026-01-01", "x", []), f)
            with self.assertRaises(record_cells.RecordError):
                record_cells.load_records(d)


def checked(problem, status, loose=True, strict=True, search=False):
    r = result(problem, None, verdict="ok")
    r["pytorch_match"] = {"status": status, "1e-2": loose if status == "compared" else None,
                          "1e-4": strict if status == "compared" else None, "max_abs_err": None, "max_rel_err": None,
                          "sizes": {"N": 8}, "reduced": False}
    if search:
        r["search"] = {"level": "1"}
    return r


class ModuleChecks(unittest.TestCase):
    def test_the_latest_comparison_of_each_file_wins_and_a_later_timeout_does_not_hide_it(self):
        rows = kernelbench_tables.module_check_rows([
            record("2026-01-01", "a", [checked("kb1_1_Matmul", "compared", strict=False),
                                       checked("kb2_2_Conv", "compared")]),
            record("2026-01-02", "b", [checked("kb1_1_Matmul", "compared"), checked("kb2_2_Conv", "timeout"),
                                       checked("kb2_3_Gemm", "cusched_failed"), checked("softmax", "compared")]),
            record("2026-01-03", "c", [checked("kb2_3_Gemm", "timeout"),
                                       checked("kb1_1_Matmul", "compared", strict=False, search=True)]),
        ])
        self.assertEqual(sorted(rows), ["kb1_1_Matmul", "kb2_2_Conv", "kb2_3_Gemm"])
        self.assertEqual(rows["kb1_1_Matmul"][1]["name"], "b", "a search's kernel is not the problem file's check")
        self.assertTrue(rows["kb1_1_Matmul"][0]["pytorch_match"]["1e-4"])
        self.assertEqual(rows["kb2_2_Conv"][1]["name"], "a")
        self.assertEqual((rows["kb2_3_Gemm"][1]["name"], rows["kb2_3_Gemm"][0]["pytorch_match"]["status"]),
                         ("c", "timeout"))
        table = "\n".join(kernelbench_tables.module_check_table([record("2026-01-01", "a", [checked("kb2_2_Conv", "compared")])]))
        self.assertIn("| 2 | 1 | 1 | 1 | 0 |", table)


class Behind(unittest.TestCase):
    def test_a_timed_run_of_several_kernels_gives_the_longest_with_their_shares(self):
        run = {"gpu": {"launch_ms": [{"kernel": "k0_S", "median_ms": 1.0}, {"kernel": "k1_Y", "median_ms": 3.0},
                                     {"kernel": "k2_Z", "median_ms": 0.0}]}}
        self.assertEqual(kernelbench_bench.launched_kernel_times(run),
                         [{"name": "k1_Y", "ms": 3.0, "share": 0.75}, {"name": "k0_S", "ms": 1.0, "share": 0.25}])
        self.assertEqual(kernelbench_bench.launched_kernel_times({"gpu": {"launch_ms": [{"kernel": "k0", "median_ms": 2}]}}),
                         [])
        self.assertEqual(kernelbench_bench.launched_kernel_times({}), [])


    def test_a_row_behind_pytorch_names_the_faster_sides_longest_kernel_and_both_shares_of_the_floor(self):
        slow = result("kb2_1_Conv2D", 4.0, eager=3.0, compile_ms=2.0)
        slow["pytorch"][0]["compile_kernels"] = [{"name": "cudnn_implicit_gemm_tf32", "share": 0.8}]
        slow["pytorch"][0]["eager_kernels"] = [{"name": "eager_kernel", "share": 0.5}]
        slow["search"] = {"timed": "search", "best_is_baseline": False,
                          "best_idea": "implicit GEMM on tensor cores | 64 channels x 128 columns " + "x" * 120}
        slow["cusched_kernels"] = [{"name": "k0_Conv", "ms": 3.4, "share": 0.85}, {"name": "k1_Out", "ms": 0.6, "share": 0.15}]
        fast = result("kb2_12_Gemm", 1.0, eager=2.0, compile_ms=2.0)
        unprofiled = result("kb2_5_ConvT", 2.0, eager=1.0, compile_ms=None)
        unprofiled["search"] = {"timed": "baseline", "best_is_baseline": False, "best_idea": None}
        rows = make_tables.current_rows([record("2026-01-01", "a", [slow, fast, unprofiled])], kernelbench=True)
        table = "\n".join(kernelbench_tables.behind_table(rows))
        self.assertNotIn("kb2_12_Gemm", table)
        # cusched at 50% of the floor in 4 ms: the floor is 2 ms, torch.compile's 2 ms is 100% of it
        # the search's idea, its "|" kept out of the table's cells and cut to 110 characters
        idea = ("implicit GEMM on tensor cores / 64 channels x 128 columns " + "x" * 120)[:107] + "..."
        self.assertIn("| kb2_1_Conv2D | 0.50x | torch.compile | `cudnn_implicit_gemm_tf32` (80%%) | %s | `k0_Conv` (85%%) "
                      "| 100.0 | 50.0 | f32 |" % idea, table)
        self.assertIn("| kb2_5_ConvT | 0.50x | eager | not profiled | baseline | - | 100.0 | 50.0 | f32 |", table)
        self.assertEqual(kernelbench_tables.behind_table([r for r in rows if r["problem"] == "kb2_12_Gemm"]), [])


class Check(unittest.TestCase):
    def test_check_fails_on_a_stale_table_and_passes_once_written(self):
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "results")
            os.mkdir(results)
            with open(os.path.join(results, "2026-01-01-a.json"), "w") as f:
                json.dump(record("2026-01-01", "a", [result("gelu", 0.13, eager=0.13, compile_ms=0.14)]), f)
            readme = os.path.join(d, "README.md")
            with open(readme, "w") as f:
                f.write("intro\n%s\nold\n%s\nmiddle\n%s\nold\n%s\nafter\n" % (
                    make_tables.README_BEGIN, make_tables.README_END, make_tables.README_KB_BEGIN,
                    make_tables.README_KB_END))
            args = ["--results", results, "--readme", readme, "--results-md", os.path.join(d, "RESULTS.md")]
            self.assertEqual(make_tables.main(args + ["--check"]), 1)
            self.assertEqual(make_tables.main(args), 0)
            self.assertEqual(make_tables.main(args + ["--check"]), 0)
            text = open(readme).read()
            self.assertTrue(text.startswith("intro\n") and text.endswith("after\n"))
            self.assertIn("| GELU (16,64,256,256) | 0.1300 | 0.1300 | 0.1400 |", text)
            self.assertIn("\nmiddle\n", text)
            self.assertIn("No search record yet.", text)  # the KernelBench summary, between its own markers
            self.assertNotIn("\nold\n", text)

    def test_a_readme_without_the_kernelbench_markers_is_refused_with_the_lines_to_add(self):
        with self.assertRaises(record_cells.RecordError) as e:
            make_tables.readme_with_table("%s\n%s\n" % (make_tables.README_BEGIN, make_tables.README_END), [])
        self.assertIn(make_tables.README_KB_BEGIN, str(e.exception))


class Schema(unittest.TestCase):
    def test_every_checked_in_record_validates(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema is not installed")
        with open(os.path.join(ROOT, "bench", "record.schema.json")) as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        paths = sorted(glob.glob(os.path.join(ROOT, "bench", "results", "*.json")))
        self.assertGreater(len(paths), 0)
        for path in paths:
            with open(path) as f:
                errors = [e.message for e in validator.iter_errors(json.load(f))]
            self.assertEqual(errors, [], path)

    def test_the_schema_refuses_a_record_without_its_command(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema is not installed")
        with open(os.path.join(ROOT, "bench", "record.schema.json")) as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        r = record("2026-01-01", "a", [])
        del r["command"]
        self.assertFalse(validator.is_valid(r))


class PyTorchTimingCache(unittest.TestCase):
    def test_timings_are_reused_until_the_pytorch_version_changes(self):
        import torch_baselines
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cache.json")
            torch_baselines.TimingCache(path).put("softmax|bench|default", "2.11", {"problem": "softmax", "eager_ms": 1.05})
            cache = torch_baselines.TimingCache(path)  # read back from the file
            self.assertEqual(cache.get("softmax|bench|default", "2.11"), {"problem": "softmax", "eager_ms": 1.05, "cached": True})
            self.assertIsNone(cache.get("softmax|bench|default", "2.12"))
            self.assertIsNone(cache.get("softmax|bench|tf32", "2.11"))

    def test_pytorch_defaults_leave_the_tf32_flags_alone_and_other_settings_set_both(self):
        import torch_baselines
        self.assertIsNone(torch_baselines.SETTINGS["default"])
        self.assertEqual(torch_baselines.SETTINGS["tf32"], (True, True))
        self.assertEqual(torch_baselines.SETTINGS["fp32"], (False, False))
        self.assertEqual(torch_baselines.parse_args(["--problems-json", "x"]).settings, "default")
        self.assertEqual(torch_baselines.parse_args(["--problems-json", "x", "--tf32"]).settings, "tf32")


class MakeRecord(unittest.TestCase):
    def test_a_benchmark_run_becomes_a_valid_record_with_each_setting_labelled(self):
        with tempfile.TemporaryDirectory() as d:
            runs, torch = os.path.join(d, "runs.jsonl"), os.path.join(d, "torch.jsonl")
            with open(runs, "w") as f:
                f.write(json.dumps({"problem": "softmax", "verdict": "ok", "precision": "f32", "math": "fast",
                                    "gpu": {"median_ms": 0.54, "min_ms": 0.53, "max_ms": 0.56, "pct_of_floor": 94.8}}) + "\n")
            with open(torch, "w") as f:
                for settings, tf32 in (("default", False), ("tf32", True)):
                    f.write(json.dumps({"problem": "softmax", "eager_ms": 1.05, "compile_ms": 0.78, "torch": "2.11",
                                        "settings": settings, "cudnn_allow_tf32": True, "matmul_allow_tf32": tf32}) + "\n")
                f.write(json.dumps({"problem": "softmax", "check": "pass"}) + "\n")
            out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_record.py"), "--runs", runs, "--torch",
                                  torch, "--name", "table-softmax", "--command", "bash bench/run_gpu_bench.sh",
                                  "--prediction", "0.54 ms", "--out-dir", d], capture_output=True, text=True, check=True)
            with open(out.stdout.strip()) as f:
                r = json.load(f)
            self.assertTrue(os.path.basename(out.stdout.strip()).endswith("-table-softmax.json"))
            res = r["results"][0]
            self.assertEqual(res["cusched_ms"], {"median": 0.54, "min": 0.53, "max": 0.56})
            self.assertEqual([t["settings"] for t in res["pytorch"]], ["default", "tf32"])
            self.assertEqual(res["matches_pytorch"], "pass")
            self.assertEqual(res["math"], "fast")
            self.assertEqual(r["prediction"], "0.54 ms")
            try:
                import jsonschema
            except ImportError:
                return
            with open(os.path.join(ROOT, "bench", "record.schema.json")) as f:
                jsonschema.validate(r, json.load(f))

    def test_a_name_that_is_not_a_slug_is_refused(self):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_record.py"), "--runs", "/dev/null",
                              "--name", "Table 3", "--command", "x"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("lower case", out.stderr)


if __name__ == "__main__":
    unittest.main()
