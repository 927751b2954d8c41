#!/usr/bin/env python3
"""Runs the malformed-input corpus (generate.py) through the cusched binary.

Every case must end cleanly: no signal, no timeout, and
  outcome "error":  exit code 1 or 2 and, on stdout or stderr, a structured error
                    {"ok": false, "error": {"code": <expected>, "message": ..., "hint": ...}}
                    with a non-empty message and hint;
  outcome "logged": a search that finishes (exit 0 or 1, a "done:" line) and names the
                    expected code in its log or in the stored verdict of the proposal.
Usage: run_corpus.py CUSCHED CORPUS_DIR [--generate generate.py] [--timeout S] [--jobs N]
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile


def structured_errors(text):
    """Every JSON object in `text` that has an "error" member."""
    found = []
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            found.append(value["error"])
        i = text.find("{", end)
    return found


def stored_verdicts(path):
    """The evaluations of a search store as text (verdicts, reasons, errors)."""
    if not os.path.exists(path):
        return ""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return "\n".join(repr(row) for row in db.execute("SELECT * FROM evaluations"))
    finally:
        db.close()


def run_case(cusched, corpus, c, timeout):
    tmp = tempfile.mkdtemp(prefix="cusched-malformed-")
    try:
        args = [a.replace("{cases}", os.path.join(corpus, "cases")).replace("{tmp}", tmp) for a in c["args"]]
        stdin = subprocess.DEVNULL
        if c["stdin"]:
            stdin = open(c["stdin"].replace("{cases}", os.path.join(corpus, "cases")), "rb")
        try:
            p = subprocess.run([cusched] + args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return "hang (no answer in %g s)" % timeout
        finally:
            if stdin is not subprocess.DEVNULL:
                stdin.close()
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        tail = (out[-600:] + "\n" + err[-600:]).strip()
        if p.returncode < 0:
            return "crash (signal %s)\n%s" % (signal.Signals(-p.returncode).name, tail)
        if c["outcome"] == "logged":
            if p.returncode not in (0, 1) or "done:" not in out:
                return "search did not finish cleanly (exit %d)\n%s" % (p.returncode, tail)
            if c["expect"] not in out and c["expect"] not in stored_verdicts(os.path.join(tmp, "search.db")):
                return "neither the search log nor the stored verdicts name %s\n%s" % (c["expect"], tail)
            return None
        if p.returncode not in (1, 2):
            return "exit code %d, expected a clean failure (1 or 2)\n%s" % (p.returncode, tail)
        errors = structured_errors(out) + structured_errors(err)
        if not errors:
            return "no structured error on stdout or stderr\n%s" % tail
        e = errors[0]
        if e.get("code") != c["expect"]:
            return "error code %r, expected %r\n%s" % (e.get("code"), c["expect"], tail)
        if not e.get("message") or not e.get("hint"):
            return "the error lacks a message or a hint\n%s" % tail
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cusched")
    ap.add_argument("corpus")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--generate", metavar="GENERATE_PY", help="write the corpus into CORPUS_DIR with this generator first")
    a = ap.parse_args()
    if a.generate:
        subprocess.run([sys.executable, a.generate, a.corpus], check=True)
    a.cusched = os.path.abspath(a.cusched)
    a.corpus = os.path.abspath(a.corpus)
    with open(os.path.join(a.corpus, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    failures = 0
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda c: (c, run_case(a.cusched, a.corpus, c, a.timeout)), cases))
    for c, problem in results:
        counts[c["channel"]] = counts.get(c["channel"], 0) + 1
        if problem:
            failures += 1
            print("FAIL %s [%s] %s: %s" % (c["id"], c["channel"], c["what"][:80], problem))
    print("%d cases (%s), %d failed" % (len(cases), ", ".join("%s %d" % kv for kv in sorted(counts.items())), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
