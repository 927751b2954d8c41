#!/usr/bin/env python3
"""The built-in search's first round on the CPU, over many problem files: for each file, the cost model's
estimate of the best schedule it verified in the interpreter, against the file's floor at nominal H200
rates. No GPU is used and nothing is measured: the numbers say how far the sketches' kernels are from the
floor in the cost model's eyes, and how a change to the sketches or the model moves them.

usage: cost_model_scan.py [FILE ...] [--cusched BIN] [--jobs N] [--out FILE] [--compare FILE] [--worst N]

For each problem file (default: problems/kernelbench/level1/*.json and level2/*.json):
  cusched search -p FILE --backend interp --rounds 1 --no-audit --json --db TMP/<name>.db
  cusched problems -p FILE --json
The floor is the larger of the file's GFLOP at 60 TFLOP/s and its bytes at 4.8 TB/s. --out writes
{"command", "commit", "files": {path: {best_ms, baseline_ms, floor_ms, ratio, problem_class, idea}},
"summary": {files, geomean_ratio, above_10x, above_3x}}; --compare reads an earlier --out and lists the
files whose ratio moved by more than 5%.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOP_RATE = 60e12  # f32-equivalent FLOP/s
BANDWIDTH = 4.8e12  # bytes/s


def floor_ms(problem):
    """The least time of a problem listed by `cusched problems --json`: FLOPs or bytes at the nominal rates."""
    return max(problem["gflop"] * 1e9 / FLOP_RATE, problem["mbytes"] * 1e6 / BANDWIDTH) * 1e3


def best_idea(db, candidate):
    """The idea text of a candidate in a search store, or None."""
    try:
        with sqlite3.connect(db) as c:
            row = c.execute("select i.text from candidates c join ideas i on c.idea = i.id where c.id = ?",
                            (candidate,)).fetchone()
        return row[0] if row else None
    except sqlite3.Error:
        return None


def scan_file(cusched, path, work):
    """One file's entry: the first round's best estimate, the baseline's and the floor, or {"error": ...}."""
    db = os.path.join(work, os.path.basename(path) + ".db")
    search = subprocess.run([cusched, "search", "-p", path, "--backend", "interp", "--rounds", "1", "--no-audit",
                             "--json", "--db", db], capture_output=True, text=True)
    listed = subprocess.run([cusched, "problems", "-p", path, "--json"], capture_output=True, text=True)
    try:
        summary, listing = json.loads(search.stdout), json.loads(listed.stdout)
    except ValueError:
        return {"error": (search.stderr or listed.stderr or "no JSON").strip()[-300:]}
    for reply in (summary, listing):
        if isinstance(reply, dict) and reply.get("error"):
            return {"error": reply["error"].get("message", str(reply["error"]))}
    problem = listing[0]
    if not summary.get("best"):
        return {"error": (summary.get("error") or {}).get("message", "the search verified no candidate")}
    floor = floor_ms(problem)
    return {"best_ms": summary["best"], "baseline_ms": summary.get("baseline"), "floor_ms": floor,
            "ratio": summary["best"] / floor, "problem_class": summary.get("problem_class"),
            "idea": best_idea(db, summary.get("best_candidate"))}


def summarise(files):
    ratios = [e["ratio"] for e in files.values() if "ratio" in e]
    return {"files": len(files), "estimated": len(ratios),
            "geomean_ratio": math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None,
            "above_10x": sum(1 for r in ratios if r > 10), "above_3x": sum(1 for r in ratios if r > 3)}


def moved(before, after, threshold=0.05):
    """(after / before, path, before, after) of the files whose ratio moved by more than `threshold`."""
    out = []
    for path, e in after.items():
        b = before.get(path, {})
        if "ratio" in e and "ratio" in b and abs(math.log(e["ratio"] / b["ratio"])) > threshold:
            out.append((e["ratio"] / b["ratio"], path, b["ratio"], e["ratio"]))
    return sorted(out)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--cusched", default=os.path.join(ROOT, "build", "tools", "cusched"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--out", help="write the scan as JSON to this file")
    p.add_argument("--compare", help="an earlier --out to compare with")
    p.add_argument("--worst", type=int, default=20, help="rows of the table of the files furthest from their floor")
    args = p.parse_args(argv)
    if not os.access(args.cusched, os.X_OK):
        p.error("no cusched at %s: build it (cmake --build build) or pass --cusched" % args.cusched)
    files = args.files or sorted(glob.glob(os.path.join(ROOT, "problems", "kernelbench", "level*", "*.json")))
    scanned = {}
    with tempfile.TemporaryDirectory(prefix="cost-model-scan.") as work:
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for n, (path, entry) in enumerate(zip(files, pool.map(lambda f: scan_file(args.cusched, f, work), files))):
                scanned[os.path.relpath(os.path.abspath(path), ROOT)] = entry
                print("%d/%d %s" % (n + 1, len(files), os.path.basename(path)), file=sys.stderr, flush=True)
    summary = summarise(scanned)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=7", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    result = {"command": "python3 scripts/cost_model_scan.py " + " ".join(argv), "commit": commit,
              "flop_rate": FLOP_RATE, "bandwidth": BANDWIDTH, "files": scanned, "summary": summary}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    rows = sorted(((e["ratio"], path, e) for path, e in scanned.items() if "ratio" in e), reverse=True)
    for ratio, path, e in rows[:args.worst]:
        print("%8.1fx %10.3f ms  floor %8.4f ms  %-13s %s" % (ratio, e["best_ms"], e["floor_ms"], e["problem_class"],
                                                            path))
    for path, e in scanned.items():
        if "error" in e:
            print("error: %s: %s" % (path, e["error"]))
    if args.compare:
        with open(args.compare) as f:
            before = json.load(f)
        if not isinstance(before, dict) or not isinstance(before.get("files"), dict) or "summary" not in before:
            print("error: %s is not a scan written by --out" % args.compare)
            return 1
        for change, path, b, a in moved(before["files"], scanned):
            print("%6.2fx  %-80s %8.1f -> %8.1f" % (change, path, b, a))
        print("geomean ratio before %.3f" % before["summary"]["geomean_ratio"])
    print("%d files, %d estimated: geomean ratio to the floor %.3f, above 10x %d, above 3x %d" % (
        summary["files"], summary["estimated"], summary["geomean_ratio"] or float("nan"), summary["above_10x"],
        summary["above_3x"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
