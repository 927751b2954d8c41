"""scripts/transposed_conv_stages.py: the phase decomposition of a strided transposed
convolution against a brute-force count of its taps, over many layer shapes, and the
stage texts it prints and writes into a problem file."""
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "transposed_conv_stages.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import transposed_conv_stages as tcs  # noqa: E402


def gather_taps(o, L, kernel, stride, padding, dilation):
    """The (tap, input index) pairs of output o whose parity test passes (any index)."""
    out = set()
    for k in range(kernel):
        t = o + padding - k * dilation
        if t % stride == 0:
            out.add((k, t // stride))
    return out


def c_div(a, b):
    """Integer division truncating toward zero (the DSL's, as C's)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class PhasesMatchTheGather(unittest.TestCase):
    def test_every_layer_shape(self):
        checked = 0
        for kernel, stride, dilation in itertools.product(range(1, 8), range(1, 6), range(1, 4)):
            for padding in range(0, dilation * (kernel - 1) + 1):
                for op in range(max(stride, dilation)):
                    try:
                        dim = tcs.Dim("L", kernel, stride, padding, op, dilation)
                    except tcs.LayerError:
                        continue
                    for L in range(1, 7):
                        hout = dim.out_size(L)
                        if hout < 1:
                            continue
                        self.check(dim, L, hout, kernel, stride, padding, dilation)
                        checked += 1
        self.assertGreater(checked, 10000)

    def check(self, dim, L, hout, kernel, stride, padding, dilation):
        where = f"K={kernel} s={stride} pad={padding} dil={dilation} op={dim.output_padding} L={L}"
        live_total = 0
        for o in range(hout):
            want = gather_taps(o, L, kernel, stride, padding, dilation)
            live_total += len(want)
            p, q = o % stride, o // stride
            ph = dim.phases[p]
            # The interleave's index into the phase stage is inside the stage.
            self.assertEqual(c_div(o - p, stride), q, where)
            self.assertLess(q, dim.out_count(p, L), where)
            got = set()
            for m in range(ph["taps"]):
                got.add((ph["k0"] + m * ph["step"], q + ph["c"] - m * ph["back"]))
            self.assertEqual(got, want, f"{where} o={o}")
            if got and not ph["padded"]:
                self.assertTrue(all(0 <= i < L for _, i in got), f"{where} o={o}: an unpadded load leaves the input")
        # Outputs per phase: exactly those of that phase; a phase with outputs beyond them
        # would do multiplies that no output needs.
        for p, ph in enumerate(dim.phases):
            n = len([o for o in range(hout) if o % stride == p])
            if n:
                self.assertEqual(dim.out_count(p, L), n, where)
            if ph["taps"] and n and ph["padded"]:
                # padded only where some load of the stage does leave the input
                reads = [ph["c"] + q - m * ph["back"] for q in range(n) for m in range(ph["taps"])]
                self.assertTrue(min(reads) < 0 or max(reads) >= L, where)
        self.assertEqual(sum(dim.out_count(p, L) * ph["taps"] for p, ph in enumerate(dim.phases)
                             if any(o % stride == p for o in range(hout))), live_total, where)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class StageTexts(unittest.TestCase):
    def test_one_dimension_with_dilation(self):
        r = run("--name", "Y", "--input", "X", "--in-sizes", "L", "--kernel", "3", "--stride", "2",
                "--padding", "1", "--dilation", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "Y_p1(n in N, oc in CO, q in L) = sum(rc in CI, t in 3: padded(X(n, rc, q + 1 - t)) * weight(rc, oc, t))",
            "Y(n in N, oc in CO, o in 2 * L + 1) = select(o % 2 == 0, 0.0, Y_p1(n, oc, (o - 1) / 2))",
        ])

    def test_grouped_two_strides(self):
        r = run("--name", "Y", "--input", "X", "--in-sizes", "H,W", "--kernel", "3,5", "--stride", "2,3",
                "--padding", "1,2", "--dilation", "2,1", "--groups", "4", "--vars", "n,oc,oh,ow")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual([l.split("(")[0] for l in lines], ["Y_p1_p0", "Y_p1_p1", "Y_p1_p2", "Y"])
        self.assertIn("sum(rc in CI / 4, th in 3: padded(X(n, oc / (CO / 4) * (CI / 4) + rc, qh + 1 - th, qw)) * "
                      "weight(oc / (CO / 4) * (CI / 4) + rc, oc % (CO / 4), th, 2))", lines[0])
        for line in lines[:-1]:
            self.assertNotIn("select", line)

    def test_bad_layer_is_refused(self):
        r = run("--in-sizes", "H,W", "--kernel", "3,3,3", "--stride", "2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--kernel has 3 values", r.stderr)

    def test_replace_keeps_the_rest_of_the_file(self):
        src = os.path.join(ROOT, "tests", "kernelbench", "gather_forms", "level2",
                           "16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling.json")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "p.json")
            shutil.copyfile(src, path)
            r = run("--replace", path, "--in-sizes", "H,W", "--kernel", "3", "--stride", "2", "--padding", "1",
                    "--output-padding", "1", "--weight", "conv_transpose_weight")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(src) as f:
                old = json.load(f)
            with open(path) as f:
                new = json.load(f)
            self.assertEqual({k: v for k, v in old.items() if k != "stages"},
                             {k: v for k, v in new.items() if k != "stages"})
            self.assertEqual(new["stages"][5:], old["stages"][1:])
            self.assertEqual([s.split("(")[0] for s in new["stages"][:4]],
                             ["ConvT_p0_p0", "ConvT_p0_p1", "ConvT_p1_p0", "ConvT_p1_p1"])
            # the output extents are the file's own text
            self.assertTrue(new["stages"][4].startswith("ConvT(n in N, o in CO, oh in 2 * H, ow in 2 * W) = select("))
            # a layer that does not give the file's output extents is refused
            shutil.copyfile(src, path)
            r = run("--replace", path, "--in-sizes", "H,W", "--kernel", "3", "--stride", "2", "--padding", "1")
            self.assertEqual(r.returncode, 2)
            self.assertIn("is not the layer's", r.stderr)

    def test_summary_counts(self):
        src = os.path.join(ROOT, "problems", "kernelbench", "level2", "16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling.json")
        r = run("--summary", src, "--in-sizes", "H,W", "--kernel", "3", "--stride", "2", "--padding", "1",
                "--output-padding", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        s = json.loads(r.stdout)
        # small size H = 5, W = 4: each side has 2H (2W) outputs, half of them 1 tap, half 2
        self.assertEqual(s["taps_per_channel_pair"], (5 * 1 + 5 * 2) * (4 * 1 + 4 * 2))
        self.assertEqual(s["gather_taps_per_channel_pair"], 10 * 8 * 9)


if __name__ == "__main__":
    unittest.main()
