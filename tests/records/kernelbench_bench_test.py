"""The parts of bench/kernelbench_bench.py that need no GPU: which schedule a file runs,
the TF32 flags of each PyTorch setting, the cache key, the GPU kernels read from a profile
(through a stand-in for torch's profiler), and the record's rows (which validate against
bench/record.schema.json) and summary."""
import argparse
import os
import sys
import tempfile
import types
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_bench as kb  # noqa: E402
from record_schema import schema_errors  # noqa: E402


class ScheduleChoice(unittest.TestCase):
    def test_a_file_in_the_schedule_folder_comes_first(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "kb1_19_ReLU.json"), "w") as f:
                f.write("[]")
            self.assertEqual(kb.schedule_for("kb1_19_ReLU", "baseline", d), os.path.join(d, "kb1_19_ReLU.json"))
            self.assertEqual(kb.schedule_for("kb1_20_LeakyReLU", "baseline", d), "baseline")
        self.assertEqual(kb.schedule_for("kb1_19_ReLU", "best", None), "best")


class Settings(unittest.TestCase):
    def test_pytorch_defaults_allow_tf32_in_cudnn_only(self):
        self.assertEqual(kb.tf32_flags("default"), (False, True))
        self.assertEqual(kb.tf32_flags("tf32"), (True, True))
        self.assertEqual(kb.tf32_flags("fp32"), (False, False))

    def test_the_cache_key_tells_settings_and_protocols_apart(self):
        a = argparse.Namespace(seed=42, iters=30, warmup=5, no_compile=False)
        b = argparse.Namespace(seed=42, iters=50, warmup=5, no_compile=False)
        keys = {kb.cache_key("kb1_19_ReLU", s, a, "NVIDIA H200") for s in ("default", "tf32")}
        keys.add(kb.cache_key("kb1_19_ReLU", "default", b, "NVIDIA H200"))
        self.assertEqual(len(keys), 3)


class Warming(unittest.TestCase):
    """start_warming compiles ahead only the modules whose timings the cache does not hold."""

    class FakeCuda:
        @staticmethod
        def get_device_name(_):
            return "NVIDIA H200"

    class FakeTorch:
        __version__ = "2.11"

    def setUp(self):
        self.torch = self.FakeTorch()
        self.torch.cuda = self.FakeCuda()
        self.args = argparse.Namespace(seed=42, iters=30, warmup=5, no_compile=False, warm_jobs=4, warm_seconds=60,
                                       settings=["default"], kernelbench="/kb")
        self.warmed = []
        self.real = kb.warm_compiles
        kb.warm_compiles = lambda args, paths, jobs, seconds: self.warmed.append((list(paths), jobs, seconds))

    def tearDown(self):
        kb.warm_compiles = self.real

    def start(self, cached):
        with tempfile.TemporaryDirectory() as d:
            from torch_baselines import TimingCache
            cache = TimingCache(os.path.join(d, "cache.json"))
            for name in cached:
                cache.put(kb.cache_key(name, "default", self.args, "NVIDIA H200"), "2.11", {"eager_ms": 1.0})
            problems = [("a.json", {"name": "kb1_1_a"}), ("b.json", {"name": "kb1_2_b"})]
            thread = kb.start_warming(self.torch, self.args, problems, cache)
            if thread:
                thread.join()
            return thread

    def test_only_uncached_modules_are_compiled_ahead(self):
        self.assertIsNotNone(self.start(["kb1_1_a"]))
        self.assertEqual(self.warmed, [(["b.json"], 4, 60)])

    def test_nothing_starts_when_every_timing_is_cached_or_compile_is_off(self):
        self.assertIsNone(self.start(["kb1_1_a", "kb1_2_b"]))
        self.args.no_compile = True
        self.assertIsNone(self.start([]))
        self.assertEqual(self.warmed, [])


class Profile:
    """A stand-in for torch.profiler.profile: its events are the given (name, device type, microseconds)."""
    events_given = []

    def __init__(self, activities):
        self.activities = activities

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def events(self):
        out = []
        for name, device, us in self.events_given:
            e = types.SimpleNamespace(name=name, device_type="DeviceType." + device,
                                      time_range=types.SimpleNamespace(elapsed_us=lambda us=us: us))
            out.append(e)
        return out


def fake_torch():
    return types.SimpleNamespace(
        profiler=types.SimpleNamespace(profile=Profile, ProfilerActivity=types.SimpleNamespace(CUDA="cuda")),
        cuda=types.SimpleNamespace(synchronize=lambda: None))


class LaunchedKernels(unittest.TestCase):
    def test_the_longest_gpu_kernels_with_their_share_of_the_kernel_time(self):
        Profile.events_given = [("cudnn_conv", "CUDA", 60.0), ("aten::conv2d", "CPU", 500.0),
                                ("relu_kernel", "CUDA", 10.0), ("cudnn_conv", "CUDA", 20.0), ("bias", "CUDA", 5.0),
                                ("memset", "CUDA", 5.0)]
        calls = []
        kernels = kb.launched_kernels(fake_torch(), lambda *a: calls.append(a), (1, 2), top=2)
        self.assertEqual(calls, [(1, 2)])
        self.assertEqual(kernels, [{"name": "cudnn_conv", "share": 0.8}, {"name": "relu_kernel", "share": 0.1}])

    def test_a_profiler_that_fails_or_sees_no_kernel_gives_none(self):
        Profile.events_given = [("aten::add", "CPU", 3.0)]
        self.assertEqual(kb.launched_kernels(fake_torch(), lambda *a: None, ()), [])

        def broken(*a):
            raise RuntimeError("no CUPTI")
        self.assertEqual(kb.launched_kernels(fake_torch(), broken, ()), [])


class Rows(unittest.TestCase):
    def rows(self):
        run = {"problem": "kb1_19_ReLU", "schedule": "baseline", "verdict": "ok", "precision": "f32",
               "gpu": {"median_ms": 2.0, "min_ms": 1.9, "max_ms": 2.2, "pct_of_floor": 90.0}}
        failed = {"problem": "kb1_50_conv", "schedule": "baseline", "verdict": "wrong_output",
                  "reason": "Output 'Y' is outside atol", "gpu": {}}
        t = {"problem": "kb1_19_ReLU", "settings": "default", "cudnn_allow_tf32": True, "matmul_allow_tf32": False,
             "torch": "2.11", "eager_ms": 3.0, "compile_ms": 2.5, "eager_min_ms": 2.9, "eager_max_ms": 3.1}
        return [kb.result_row(run, {"verdict": "ok"}, [t]), kb.result_row(failed, None, [])]

    def test_rows_carry_both_sides_and_the_failure(self):
        ok, failed = self.rows()
        self.assertEqual(ok["cusched_ms"]["median"], 2.0)
        self.assertEqual(ok["verified"], {"1e-2": True, "1e-4": True})
        self.assertEqual(ok["pytorch"][0]["compile_ms"], 2.5)
        self.assertEqual(failed["verified"]["1e-2"], False)
        self.assertIn("outside atol", failed["note"])

    def test_a_failed_strict_run_says_why_in_the_note(self):
        run = {"problem": "kb1_23_Softmax", "schedule": "search", "verdict": "ok", "precision": "f32",
               "gpu": {"median_ms": 6.5, "min_ms": 6.5, "max_ms": 7.5, "pct_of_floor": 66.0}}
        timeout = {"verdict": "timeout", "reason": "cusched run took over 180 s"}
        row = kb.result_row(run, timeout, [])
        self.assertEqual(row["verified"]["1e-4"], False)
        self.assertIn("1e-4 run: timeout: cusched run took over 180 s", row["note"])
        self.assertIn("1e-4 run: no verdict", kb.result_row(run, {"verdict": None}, [])["note"])
        self.assertNotIn("note", kb.result_row(run, {"verdict": "ok"}, []))
        self.assertEqual(schema_errors(row, "result"), [])

    def test_rows_validate_against_the_record_schema(self):
        for row in self.rows():
            self.assertEqual(schema_errors(row, "result"), [])

    def test_the_summary_gives_the_speedup_over_the_faster_pytorch(self):
        lines = kb.summary_lines(self.rows())
        self.assertIn("1.25x", lines[2])  # 2.5 ms torch.compile over 2.0 ms
        self.assertTrue(lines[3].rstrip().endswith("-"))  # no speedup for a failed kernel


if __name__ == "__main__":
    unittest.main()
