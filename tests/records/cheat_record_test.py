"""bench/cheat_record.py: the record of a cheating-corpus run validates against
bench/record.schema.json, keeps every check row and the GPU tests' table, counts them in
its notes, and is named after its date and name so that bench/make_tables.py reads it."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from record_schema import schema_errors

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "cheat_record.py")

ROWS = [
    ["relu_honest.cu", "control", "audit", "ok", "pass"],
    ["static_local_replay.cu", "state across launches", "no_audit", "unwritten_output", "pass"],
    ["device_fingerprint_replay.cu", "state across launches", "audit", "audit (CPU)", "skipped"],
    ["wrong_name.cu", "kernel contract", "no_audit", "ok", "fail"],
]
LOG = """[ RUN      ] Corpus/CheatCorpusGpu.GetsAnExpectedVerdict/0
| relu_honest.cu | control | audit | ok |
| relu_honest.cu | control | audit | ok |
| softmax | best | sanitizer | clean |
[  PASSED  ] 22 tests.
[  FAILED  ] 1 test, listed below:
"""


class CheatRecord(unittest.TestCase):
    def write(self, d, audit_only=0):
        rows = os.path.join(d, "rows.tsv")
        with open(rows, "w") as f:
            f.write("".join("\t".join(r) + "\n" for r in ROWS))
        log = os.path.join(d, "gpu.log")
        with open(log, "w") as f:
            f.write(LOG)
        out = subprocess.run([sys.executable, SCRIPT, "--rows", rows, "--gpu-log", log, "--gpu-status", "1",
                              "--check-seconds", "12", "--total-seconds", "40", "--audit-in-build", "0",
                              "--audit-only", str(audit_only), "--name", "cheat-corpus", "--out-dir", d,
                              "--prediction", "every cheat rejected"],
                             capture_output=True, text=True, check=True)
        path = out.stdout.strip()
        with open(path) as f:
            return path, json.load(f)

    def test_the_record_keeps_every_row_and_counts_them(self):
        with tempfile.TemporaryDirectory() as d:
            path, r = self.write(d)
            self.assertEqual(os.path.basename(path), "%s-cheat-corpus.json" % r["date"])
            self.assertEqual(len(r["checks"]), 4)
            self.assertEqual(r["checks"][3], {"kernel": "wrong_name.cu", "class": "kernel contract",
                                              "mode": "no_audit", "verdict": "ok", "result": "fail"})
            self.assertIn("2 pass, 1 fail, 1 left to the CPU audit", r["notes"])
            self.assertIn("exit code 1", r["notes"])
            # Table lines once each, summary lines kept.
            self.assertEqual(r["gpu_tests"].count("| relu_honest.cu | control | audit | ok |"), 1)
            self.assertIn("[  FAILED  ] 1 test, listed below:", r["gpu_tests"])
            self.assertEqual(r["prediction"], "every cheat rejected")
            self.assertEqual(r["command"], "bash bench/check_cheats.sh")

    def test_the_record_validates_against_the_schema(self):
        with tempfile.TemporaryDirectory() as d:
            for audit_only in (0, 1):
                _, r = self.write(d, audit_only)
                self.assertEqual(schema_errors(r), [])

    def test_an_audit_only_record_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            _, r = self.write(d, audit_only=1)
            self.assertTrue(r["command"].startswith("AUDIT_ONLY=1 "))
            self.assertIn("audit and the precision scan only", r["notes"])


if __name__ == "__main__":
    unittest.main()
