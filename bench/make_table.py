#!/usr/bin/env python3
"""Joins cusched's run outcomes with PyTorch's timings into the benchmark table.

usage: make_table.py runs.jsonl torch.jsonl
runs.jsonl: `cusched run --json` outcomes, each with "problem" added.
torch.jsonl: bench/torch_baselines.py lines (timings, and output comparisons).
"""
import json
import math
import sys


def read_jsonl(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return rows


def main():
    runs = {r["problem"]: r for r in read_jsonl(sys.argv[1])}
    timings, checks = {}, {}
    for r in read_jsonl(sys.argv[2]):
        if "eager_ms" in r:
            timings[r["problem"]] = r
        elif "problem" in r:
            checks[r["problem"]] = r
    print("| problem | cusched ms | eager ms | compile ms | speedup vs faster | % of floor | precision | verdict | matches torch |")
    print("|---|---|---|---|---|---|---|---|---|")
    speedups = []
    for name, run in runs.items():
        gpu = run.get("gpu") or {}
        ms = gpu.get("median_ms") or float("nan")
        t = timings.get(name, {})
        eager, comp = t.get("eager_ms"), t.get("compile_ms")
        faster = min(x for x in (eager, comp) if x) if (eager or comp) else None
        sp = faster / ms if faster and ms == ms and ms > 0 and run.get("verdict") == "ok" else None
        if sp:
            speedups.append(sp)
        check = checks.get(name, {})
        match = check.get("check", "")
        fmt = lambda x: "%.4f" % x if isinstance(x, (int, float)) and x == x else "-"
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt(ms), fmt(eager), fmt(comp), ("%.2fx" % sp) if sp else "-",
            ("%.1f" % gpu["pct_of_floor"]) if gpu.get("pct_of_floor") else "-", run.get("precision", "-") + ("+fast math" if run.get("math") == "fast" else ""),
            run.get("verdict", "-"), match))
    if speedups:
        g = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print("\ngeometric-mean speedup over the faster of eager and torch.compile: %.2fx over %d problems" % (g, len(speedups)))


if __name__ == "__main__":
    main()
