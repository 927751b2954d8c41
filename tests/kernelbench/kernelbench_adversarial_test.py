"""scripts/kernelbench_adversarial.py: the KernelBench files are as it writes them, its edits
keep each file's layout and undo exactly, and its evaluator of the stage syntax agrees with
hand-computed values."""
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import kernelbench_adversarial as ka  # noqa: E402

KB = os.path.join(ROOT, "problems", "kernelbench")
# One file of each layout (one key a line; one input a line) and each class.
FILES = ["level1/23_Softmax.json", "level1/40_LayerNorm.json", "level1/36_RMSNorm_.json",
         "level1/48_Mean_reduction_over_a_dimension.json", "level1/97_ScaledDotProductAttention.json",
         "level2/33_Gemm_Scale_BatchNorm.json", "level2/92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp.json"]


class FilesAreInSync(unittest.TestCase):
    def test_every_file_is_as_the_script_writes_it(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = ka.main(["--check"])
        self.assertEqual(rc, 0, out.getvalue())


class Edits(unittest.TestCase):
    def test_removing_and_adding_again_gives_the_file_back(self):
        for rel in FILES:
            with self.subTest(rel):
                path = os.path.join(KB, rel)
                p = ka.Problem(path)
                overrides, sentence = ka.decide(p)
                self.assertIsNotNone(overrides, sentence)
                self.assertEqual(ka.apply(p, overrides, sentence), p.text, "the file is not as the script writes it")
                with tempfile.TemporaryDirectory() as tmp:
                    bare = os.path.join(tmp, os.path.basename(path))
                    with open(bare, "w", encoding="utf-8") as f:
                        f.write(ka.apply(p, None, None))
                    q = ka.Problem(bare)
                    self.assertNotIn("adversarial", q.text)
                    self.assertNotIn("adversarial trial", q.doc["notes"])
                    self.assertEqual(list(q.doc), list(p.doc))
                    again = ka.apply(q, overrides, sentence)
                    self.assertEqual(again, p.text)

    def test_a_file_without_a_target_is_left_alone(self):
        p = ka.Problem(os.path.join(KB, "level1/19_ReLU.json"))
        overrides, reason = ka.decide(p)
        self.assertIsNone(overrides)
        self.assertEqual(ka.apply(p, None, None), p.text)

    def test_bounded_tensors_get_none(self):
        # a clamp to [-10, 10] before the log-sum-exp; a sigmoid before the GroupNorm
        for rel in ["level2/22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish.json",
                    "level2/21_Conv2d_Add_Scale_Sigmoid_GroupNorm.json"]:
            with self.subTest(rel):
                overrides, reason = ka.decide(ka.Problem(os.path.join(KB, rel)))
                self.assertIsNone(overrides)
                self.assertIn("no candidate met the goal", reason)


class Evaluator(unittest.TestCase):
    def test_stage_syntax(self):
        doc = {
            "name": "t", "sizes": {"small": {"R": 3, "D": 4}}, "notes": "",
            "inputs": [{"name": "X", "dtype": "f32", "shape": ["R", "D"],
                        "distribution": {"kind": "uniform", "a": -2, "b": 2}}],
            "stages": [
                "M(i in R) = maximum(k in D: X(i, k))",
                "Y(i in R, j in D) = exp(X(i, j) - M(i)) / sum(k in D: exp(X(i, k) - M(i)))",
                "P(i in R, j in D + 2) = padded(X(i, j - 1), -inf)",
                "C(i in R, j in D) = cumsum(j, reverse, exclusive: X(i, j))",
                "Q(i in R) = (D - 7) / 2 + (D - 7) % 2 + argmax(k in D: X(i, k)) + i32(-1.5f)",
            ],
            "outputs": ["Y"],
        }
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            p = ka.Problem(path)
            v = p.evaluate({}, 3)
        x = v["X"].data
        for i in range(3):
            row = x[4 * i:4 * i + 4]
            z = sum(math.exp(a) for a in row)
            for j in range(4):
                self.assertAlmostEqual(v["Y"].data[4 * i + j], math.exp(row[j]) / z)
            self.assertEqual(v["P"].data[6 * i], -math.inf)
            self.assertEqual(v["P"].data[6 * i + 1:6 * i + 5], row)
            self.assertEqual(v["P"].data[6 * i + 5], -math.inf)
            for j in range(4):
                self.assertAlmostEqual(v["C"].data[4 * i + j], sum(row[j + 1:]))
            # C truncation: (4 - 7) / 2 = -1, (4 - 7) % 2 = -1, i32(-1.5) = -1
            self.assertEqual(v["Q"].data[i], -3 + row.index(max(row)))


if __name__ == "__main__":
    unittest.main()
