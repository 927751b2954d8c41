#!/usr/bin/env python3
"""Writes one benchmark record (bench/record.schema.json) from a GPU benchmark run.

usage: make_record.py --runs runs.jsonl --torch torch.jsonl --name NAME --command CMD
                      [--prediction TEXT] [--kind benchmark] [--problems-json problems.json]
                      [--strict-runs strict.jsonl] [--out-dir DIR]

runs.jsonl: `cusched run --json` outcomes, each with "problem" added (bench/run_gpu_bench.sh).
torch.jsonl: bench/torch_baselines.py lines: timings (one per problem and setting) and output
comparisons. strict.jsonl: the same runs with --strict (the 1e-4 tolerance), when made.
The record is written to OUT_DIR/DATE-NAME.json (default bench/results/) and its path printed;
bench/make_tables.py then regenerates bench/RESULTS.md and the README's table.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_jsonl(path):
    rows = []
    if not path or not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return rows


def number(x):
    return x if isinstance(x, (int, float)) and x == x and x > 0 else None


def command_output(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def environment(runs, torch_lines):
    gpus = command_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    names = [g.split(",")[0].strip() for g in gpus.splitlines()] if gpus else []
    driver = gpus.splitlines()[0].split(",")[1].strip() if gpus else None
    device = next((((r.get("gpu") or {}).get("device_name")) for r in runs if (r.get("gpu") or {}).get("device_name")), None)
    cuda = command_output(["bash", "-c", "nvcc --version 2>/dev/null | tail -1"])
    version = next((t["torch"] for t in torch_lines if t.get("torch")), None)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    count = len(visible.split(",")) if visible else max(1, len(names))
    return {"gpu": device or (names[0] if names else "unknown"), "gpu_count": count, "driver": driver,
            "cuda": cuda, "pytorch": version}


def commit():
    c = os.environ.get("CUSCHED_COMMIT") or command_output(["git", "-C", ROOT, "rev-parse", "HEAD"])
    return c if c and re.fullmatch(r"[0-9a-f]{7,40}", c) else None


def result(run, strict, timings, check, tolerance):
    gpu = run.get("gpu") or {}
    verdict = run.get("verdict")
    passed = verdict in ("ok", "under_floor")
    tight = None
    if strict is not None:
        tight = strict.get("verdict") in ("ok", "under_floor")
    elif passed and tolerance is not None and tolerance <= 1e-4:
        tight = True
    r = {
        "problem": run["problem"],
        "schedule": run.get("schedule", "best"),
        "cusched_ms": {"median": number(gpu.get("median_ms")), "min": number(gpu.get("min_ms")),
                       "max": number(gpu.get("max_ms"))},
        "verdict": verdict,
        "verified": {"1e-2": passed if tolerance is None or tolerance <= 1e-2 else None, "1e-4": tight},
        "pct_of_floor": gpu.get("pct_of_floor") or None,
        "precision": run.get("precision") or "f32",
        "math": "fast" if run.get("math") == "fast" else "exact",
    }
    if check:
        r["matches_pytorch"] = check.get("check") if check.get("check") in ("pass", "fail") else None
    entries = []
    for t in timings:
        e = {"settings": t.get("settings", "default"), "cudnn_allow_tf32": bool(t.get("cudnn_allow_tf32", True)),
             "matmul_allow_tf32": bool(t.get("matmul_allow_tf32", False)), "version": t.get("torch"),
             "eager_ms": number(t.get("eager_ms")), "compile_ms": number(t.get("compile_ms"))}
        for k in ("eager_min_ms", "eager_max_ms", "compile_min_ms", "compile_max_ms"):
            if number(t.get(k)):
                e[k] = t[k]
        if t.get("cached"):
            e["cached"] = True
        for k in ("eager_kernels", "compile_kernels"):
            if t.get(k):
                e[k] = t[k]
        entries.append(e)
    if entries:
        r["pytorch"] = entries
    return r


def write_record(record, out_dir):
    """Writes the record to OUT_DIR/DATE-NAME.json (the name make_tables.py expects) through a temporary
    file, so that a reader never sees half of it (runs rewrite their record after every problem); returns
    the path."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{record['date']}-{record['name']}.json")
    with open(path + ".part", "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(path + ".part", path)
    return path


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", required=True)
    p.add_argument("--torch")
    p.add_argument("--strict-runs")
    p.add_argument("--problems-json")
    p.add_argument("--name", required=True, help="what the run measures: lower case, digits and '-'")
    p.add_argument("--title")
    p.add_argument("--kind", default="benchmark", choices=["benchmark", "experiment", "search", "tests"])
    p.add_argument("--command", required=True)
    p.add_argument("--prediction", default="")
    p.add_argument("--notes", default="")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    args = p.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.name):
        print(f"make_record: the name {args.name!r} must be lower case letters, digits and '-' "
              "(it says what the run measures, e.g. table-softmax).", file=sys.stderr)
        return 2
    runs = read_jsonl(args.runs)
    torch_lines = read_jsonl(args.torch)
    strict = {r["problem"]: r for r in read_jsonl(args.strict_runs) if "problem" in r}
    tolerance = {}
    if args.problems_json:
        with open(args.problems_json) as f:
            tolerance = {q["name"]: max(q.get("atol", 1e-2), q.get("rtol", 1e-2)) for q in json.load(f)}
    timings, checks = {}, {}
    for t in torch_lines:
        if "eager_ms" in t:
            timings.setdefault(t["problem"], []).append(t)
        elif "check" in t:
            checks[t["problem"]] = t
    now = datetime.datetime.now(datetime.timezone.utc)
    record = {
        "schema_version": 1,
        "date": now.strftime("%Y-%m-%d"),
        "started": os.environ.get("CUSCHED_RUN_STARTED") or now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "name": args.name,
        "title": args.title or args.name.replace("-", " "),
        "kind": args.kind,
        "commit": commit(),
        "environment": environment(runs, torch_lines),
        "command": args.command,
        "prediction": args.prediction or None,
        "results": [result(r, strict.get(r["problem"]), timings.get(r["problem"], []), checks.get(r["problem"]),
                           tolerance.get(r["problem"])) for r in runs if "problem" in r],
        "notes": args.notes,
    }
    print(write_record(record, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
