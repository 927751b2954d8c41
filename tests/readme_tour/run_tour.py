#!/usr/bin/env python3
"""Runs the commands of a README block between `<!-- NAME: begin -->` and `<!-- NAME: end -->`,
one line at a time in one fresh folder, as the README writes them.

A line's comment may say "exits N": the line must then exit with N; every other line must exit
0, and a line with --json must print one JSON document on stdout. In the block "tour-gpu" a line may also exit 3 with a structured no-gpu error on stdout
(a machine without a GPU). `B=...` is pointed at the cusched under test. mpirun lines run
with Open MPI's run-as-root permission set in the environment when the test runs as root,
and are skipped with a reason when mpirun is not installed.

Usage: run_tour.py README.md CUSCHED_DIR BLOCK
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def block_lines(readme, name):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"<!-- %s: begin -->\n(.*?)<!-- %s: end -->" % (re.escape(name), re.escape(name)), text, re.S)
    if not m:
        sys.exit("no block '%s' in %s" % (name, readme))
    lines = [l[4:] if l.startswith("    ") else l for l in m.group(1).splitlines()]
    return [l for l in lines if l.strip()]


def expected_exit(line):
    m = re.search(r"#.*\bexits (\d+)", line)
    return int(m.group(1)) if m else 0


def main():
    readme, cusched_dir, name = sys.argv[1:4]
    lines = block_lines(readme, name)
    if not any(l.startswith("B=") for l in lines):
        sys.exit("the block does not set B=")
    work = tempfile.mkdtemp(prefix="cusched-tour-")
    env = dict(os.environ)
    if os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    failures = 0
    prefix = "B=%s\n" % cusched_dir
    try:
        for line in lines:
            if line.startswith("B="):
                continue
            if line.startswith("mpirun") and not shutil.which("mpirun"):
                print("SKIP (mpirun is not installed): " + line)
                continue
            want = expected_exit(line)
            start = time.time()
            r = subprocess.run(["bash", "-c", prefix + line], cwd=work, env=env,
                               capture_output=True, text=True, timeout=600)
            took = time.time() - start
            ok = r.returncode == want
            if not ok and name == "tour-gpu" and r.returncode == 3 and '"no-gpu"' in r.stdout:
                ok = True
                print("no GPU (exit 3, no-gpu error): " + line)
            status = "ok  " if ok else "FAIL"
            print("%s %5.1fs exit %d: %s" % (status, took, r.returncode, line))
            if not ok:
                failures += 1
                print("  expected exit %d\n  stdout: %s\n  stderr: %s" % (want, r.stdout[-3000:], r.stderr[-3000:]))
            elif "--json" in line and "|" not in line and ">" not in line:
                try:
                    json.loads(r.stdout)
                except ValueError:
                    failures += 1
                    print("  FAIL: --json printed no JSON document on stdout: %r" % r.stdout[:500])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit("%d line(s) of the README block '%s' failed" % (failures, name))
    print("every line of the README block '%s' ran as written" % name)


if __name__ == "__main__":
    main()
