#!/usr/bin/env python3
"""Gives the KernelBench problem files adversarial input distributions against the classic
numerical shortcuts of their computations.

usage: kernelbench_adversarial.py [FILE ...] [--include-transposed] [--check] [--dry-run]
                                  [--cusched PATH] [--verbose]

For each problem file (default: every problems/kernelbench/level*/*.json but those whose
name or stages hold a transposed convolution, unless --include-transposed) it reads the
stages and finds the computations a shortcut can get wrong:

- softmax: a sum of exp(E - M) where M is a maximum of E (softmax, log-softmax,
  log-sum-exp, cross-entropy, attention). The adversarial inputs make the logits E exceed
  100: normal(120, 4) where an input or an added parameter reaches E unchanged, else the
  data inputs of the contraction that produces E normal(m, 1) with the smallest m of a
  ladder that gets there (attention's Q and K). Exp without the subtraction of the maximum
  overflows f32 above 88.7.
- normalisation: a sum of (E - S / n)^2 where S is a sum of E, or a variance of E, under
  rsqrt or sqrt
  (BatchNorm, InstanceNorm, GroupNorm, LayerNorm). The inputs make E's mean large against
  its spread: normal(s, 0.5) with s the largest of 1000, 300, 100, 30, 10, 3 that puts the
  median |mean| / std of E's groups between 400 and 2500 at the small size. A variance
  computed as E[x^2] - E[x]^2 in f32 errs by about 6e-8 ratio^2 of itself; an honest f32
  two-pass one by about 6e-8 ratio. A norm whose groups a later sum adds up whole (the
  mean of a GroupNorm's output) is left alone: that sum cancels, and shows the honest
  kernel's rounding.
- rms: the square root of a mean of squares plus an eps (RMSNorm). The inputs are tiny
  (mean square a tenth of eps): an eps left out or misplaced changes the result.
- sum: a plain sum of an input over a long axis (at least 256 at the bench size; sums and
  means). The inputs are zero-mean normal, scaled so the reduced outputs spread about 100
  at the small size: their sums cancel, so a sum in reduced precision (bf16 or f16 inputs
  or accumulator) misses the tolerance, while an f32 one stays well inside it at the bench
  size.

Each candidate input (the data input that E reads directly, else a parameter added on the
way to E, nearest first, else the data inputs of the contraction that produces E) is tried
by evaluating the stages in float64 at the small size (a plain Python evaluator of the
stage syntax): the first whose logits, ratio |mean| / std or mean square meets the class's
goal on every seed, and whose outputs are finite and not constant, is written as the
input's `adversarial` distribution, with one sentence at the end of the file's `notes`
saying what the adversarial trial exposes. A file where no candidate works (a clamp or a
sigmoid bounds the tensor; the output is declared constant) keeps no adversarial
distribution, and a sentence this script wrote before is removed. The file's text is edited
in place: only the `adversarial` entries and `notes` change, in the file's own layout;
running the script again changes nothing.

The work is done by the package adversarial/ beside this script: expression.py parses the
stage syntax; evaluation.py is the small float64 evaluator of it that the decisions measure
with (the statistics of intermediate stages at chosen inputs, which no cusched command
prints); targets.py finds the computations; decision.py picks and measures the
distributions; json_edit.py edits the files. The stages' meaning stays defined by dsl/, and
--cusched checks every written file with it.

--check changes nothing and exits 1 when a file is not as the script would write it.
--dry-run prints the decisions without writing. --cusched PATH verifies each file that has
an adversarial distribution afterwards: `PATH run -p FILE -s baseline --backend interp
--size small --json` must be ok (the adversarial trial included); --verbose prints the
measured statistics.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from adversarial.decision import decide, format_overrides  # noqa: E402
from adversarial.evaluation import Problem  # noqa: E402
from adversarial.json_edit import apply  # noqa: E402

ROOT = os.path.dirname(HERE)
KB_DIR = os.path.join(ROOT, "problems", "kernelbench")
TRANSPOSED = re.compile(r"ConvTranspose|conv_transposed|convtranspose", re.IGNORECASE)


def default_files(include_transposed):
    out = []
    for level in sorted(os.listdir(KB_DIR)):
        d = os.path.join(KB_DIR, level)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d), key=lambda n: (int(re.match(r"\d+", n).group()) if re.match(r"\d+", n) else 0, n)):
            if f.endswith(".json"):
                out.append(os.path.join(d, f))
    if not include_transposed:
        out = [f for f in out if not is_transposed(f)]
    return out


def is_transposed(path):
    if TRANSPOSED.search(os.path.basename(path)):
        return True
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return any(TRANSPOSED.search(s) for s in doc.get("stages", [])) or bool(TRANSPOSED.search(doc.get("title", "")))


def verify(cusched, path):
    """The verdict of the file's baseline in the interpreter at the small size."""
    r = subprocess.run([cusched, "run", "-p", path, "-s", "baseline", "--backend", "interp", "--size", "small",
                        "--json"], capture_output=True, text=True)
    try:
        j = json.loads(r.stdout)
    except json.JSONDecodeError:
        return f"no JSON (exit {r.returncode}): {r.stderr.strip()[:300]}"
    v = j.get("interp") or j
    verdict = v.get("verdict", j.get("verdict"))
    if verdict == "ok":
        return f"ok ({v.get('trials')} trials, max abs error {v.get('max_abs_err', 0):.2g})"
    return f"{verdict}: {v.get('message', j.get('reason', ''))}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--include-transposed", action="store_true",
                    help="also take the files with a transposed convolution")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    ap.add_argument("--dry-run", action="store_true", help="print the decisions, write nothing")
    ap.add_argument("--cusched", help="verify each file with an adversarial distribution with this binary")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    files = args.files or default_files(args.include_transposed)
    stale, failed, counts = [], [], {}
    for path in files:
        p = Problem(path)
        overrides, text = decide(p, args.verbose)
        label = os.path.relpath(path, ROOT)
        if overrides is None:
            print(f"{label}: none ({text})")
            kind = "none"
        else:
            print(f"{label}: {format_overrides(overrides)}")
            kind = ", ".join(sorted({m for m in ("norm", "softmax", "rms", "sum") if re.search(
                {"norm": "E\\[x\\^2\\]", "softmax": "logits", "rms": "mean square",
                 "sum": "sums cancel"}[m], text)}))
        counts[kind] = counts.get(kind, 0) + 1
        new = apply(p, overrides, text if overrides else None)
        if new != p.text:
            stale.append(label)
            if not (args.check or args.dry_run):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
        if args.cusched and overrides is not None and not args.check:
            verdict = verify(args.cusched, path)
            print(f"  baseline in the interpreter: {verdict}")
            if not verdict.startswith("ok "):
                failed.append(label)
    print("classes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.check and stale:
        print("not as this script writes them: " + ", ".join(stale), file=sys.stderr)
        return 1
    if failed:
        print("not verified: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
