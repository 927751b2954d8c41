"""scripts/cost_model_scan.py with the built cusched (CUSCHED_BIN): the first round's estimates of two
KernelBench files against their floors, the summary computed from them, a file that is not a problem
reported as an error, and the comparison with an earlier scan."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "cost_model_scan.py")
RELU = os.path.join(ROOT, "problems", "kernelbench", "level1", "19_ReLU.json")
LAYERNORM = os.path.join(ROOT, "problems", "kernelbench", "level1", "40_LayerNorm.json")


def scan(*args):
    return subprocess.run([sys.executable, SCRIPT, "--cusched", os.environ["CUSCHED_BIN"], "--jobs", "2", *args],
                          capture_output=True, text=True)


class CostModelScan(unittest.TestCase):
    def test_estimates_floors_summary_errors_and_comparison(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "not_a_problem.json")
            with open(bad, "w") as f:
                f.write("{}")
            out = os.path.join(d, "scan.json")
            r = scan(RELU, LAYERNORM, bad, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                result = json.load(f)
            files = result["files"]
            relu = files["problems/kernelbench/level1/19_ReLU.json"]
            layernorm = files["problems/kernelbench/level1/40_LayerNorm.json"]
            # ReLU of (4096, 393216) floats: 12.9 GB read and written, 2.68 ms at 4.8 TB/s.
            self.assertAlmostEqual(relu["floor_ms"], 2 * 4096 * 393216 * 4 / 4.8e12 * 1e3, places=3)
            self.assertGreaterEqual(relu["ratio"], 1.0)
            self.assertLess(relu["ratio"], 1.5)
            # LayerNorm's 16 rows of 4M elements: the statistics split over clusters (on grids of
            # their own, or each row over a cluster), within 3x of the floor.
            self.assertLess(layernorm["ratio"], 3.0)
            self.assertEqual(layernorm["problem_class"], "normalisation")
            self.assertRegex(layernorm["idea"], "statistics on grids of their own|rows over clusters of")
            self.assertIn("error", files[os.path.relpath(bad, ROOT)])
            s = result["summary"]
            self.assertEqual((s["files"], s["estimated"]), (3, 2))
            self.assertAlmostEqual(s["geomean_ratio"], math.sqrt(relu["ratio"] * layernorm["ratio"]), places=9)
            # Against itself nothing moved; against a scan with ReLU twice as far, ReLU moved by half.
            result["files"]["problems/kernelbench/level1/19_ReLU.json"]["ratio"] *= 2
            earlier = os.path.join(d, "earlier.json")
            with open(earlier, "w") as f:
                json.dump(result, f)
            r = scan(RELU, "--compare", earlier)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("  0.50x  problems/kernelbench/level1/19_ReLU.json", r.stdout)


if __name__ == "__main__":
    unittest.main()
