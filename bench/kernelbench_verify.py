#!/usr/bin/env python3
"""Checks problem files against the KernelBench modules they reproduce, on a GPU.

usage: kernelbench_verify.py --kernelbench DIR [FILE ...] [--cusched PATH] [--jobs N]
                             [--timeout S] [--time-limit S] [--time] [--max-gib G] [--disk-gib G] [--work DIR]
                             [--name NAME] [--out-dir DIR] [--prediction TEXT] [--allow-tf32]
       kernelbench_verify.py --plan [FILE ...] [--max-gib G]

For each problem file (default: every problems/kernelbench/**/*.json) it runs
`cusched run -p FILE -s baseline --backend gpu --save-io DIR --no-time --json` at the bench
size, or at a reduced --shape when the bench working set (inputs and outputs) exceeds
--max-gib; loads the first trial's .npy inputs; builds the module of the file's `source`
(the KernelBench file under DIR, `Model(*init_args)` with torch seeded); copies the
parameters from the saved inputs (`source.parameters`); calls forward on the saved inputs
(`source.forward_args`); and compares PyTorch's output with cusched's at
|got - ref| <= t + t |ref| for t = 1e-2 and t = 1e-4. TF32 is off in PyTorch unless
--allow-tf32. The cusched runs go --jobs at a time (their CPU-side lowering and
compilation overlap); the saved files of the runs in flight stay within --disk-gib.
One record (bench/record.schema.json) is written to OUT_DIR/DATE-NAME.json and a summary
table printed last. --plan prints the sizes each file would run at and runs nothing.
docs/kernelbench.md describes the set and this check.
"""
import argparse
import contextlib
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from problem_sizes import (DTYPE_BYTES, MAX_REFERENCE_REDUCTION, MIN_REDUCED_SIZE,  # noqa: E402,F401
                           longest_reduction, longest_serial_reduction, module_sizes, output_shapes, prod,
                           reduced_sizes, reduction_headers, shape_flag, shapes_valid, size_value, split_top_level,
                           stage_domain, stage_dtype, working_set)
import make_record as records  # noqa: E402
from make_record import command_output  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCES = (1e-2, 1e-4)
SAVED_TRIALS = 1  # the verification trials `cusched run` saves (--save-io-trials: inputs, outputs and references)
GIB = 1 << 30


# The shapes of problem files: bench/problem_sizes.py.


# ---------------------------------------------------------------------------- the module

def kernelbench_file(root, source_file):
    """The module's path in a KernelBench checkout (its root or its KernelBench/ folder)."""
    for base in (os.path.join(root, "KernelBench"), root):
        path = os.path.join(base, source_file)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError("%s is not under %s (give --kernelbench the checkout's root)" % (source_file, root))


def forward_arguments(source, tensors):
    """forward()'s arguments: saved inputs by name, JSON numbers as Python scalars."""
    args = []
    for a in source["forward_args"]:
        if isinstance(a, str):
            if a not in tensors:
                raise KeyError("forward argument '%s' has no saved input" % a)
            args.append(tensors[a])
        else:
            args.append(a)
    return args


def attribute(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def load_parameters(model, source, tensors):
    """Copies each saved input of source.parameters into the module's attribute."""
    for name, path in sorted(source.get("parameters", {}).items()):
        target = attribute(model, path)
        value = tensors[name]
        if tuple(target.shape) != tuple(value.shape):
            raise ValueError("module.%s is %s but the input %s is %s" % (path, tuple(target.shape), name,
                                                                      tuple(value.shape)))
        target.data.copy_(value)


def normalised(x):
    """JSON form of constructor arguments (tuples as lists), to compare init_args with get_init_inputs."""
    return json.loads(json.dumps(x, default=list))


# ---------------------------------------------------------------------------- comparison

def element_error(a, b):
    """|a - b| with equal values (NaN with NaN, an infinity with itself) at 0 and a NaN difference infinite."""
    if a == b or (a != a and b != b):
        return 0.0
    d = abs(a - b)
    return float("inf") if d != d else d


def within(d, b, t):
    return d == 0.0 or d <= t + t * (abs(b) if abs(b) != float("inf") else 0.0)


def compare(got, ref, tolerances=TOLERANCES, chunk=1 << 24):
    """got and ref: arrays (numpy or sequences) of one element count, or got a numpy array and ref a torch
    tensor (the module's output, left on its device: got is moved there chunk by chunk and compared there).
    Returns max_abs_err, max_rel_err and for each t whether |got - ref| <= t + t |ref| everywhere
    (element_error: NaN and infinities fail unless both sides hold the same)."""
    if type(ref).__module__.startswith("torch"):
        import numpy as np
        import torch
        g, r = np.ravel(got), ref.reshape(-1)
        if g.size != r.numel():
            raise ValueError("cusched's output has %d elements, PyTorch's %d" % (g.size, r.numel()))
        return _compare_chunks(torch, g.size, chunk, tolerances, contextlib.nullcontext, lambda s: (
            torch.from_numpy(np.ascontiguousarray(g[s:s + chunk])).to(r.device).to(torch.float64),
            r[s:s + chunk].to(torch.float64)))
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is None or not isinstance(got, np.ndarray):
        g, r = list(_flat(got)), list(_flat(ref))
        if len(g) != len(r):
            raise ValueError("cusched's output has %d elements, PyTorch's %d" % (len(g), len(r)))
        d = [element_error(float(a), float(b)) for a, b in zip(g, r)]
        return {"max_abs_err": max(d, default=0.0),
                "max_rel_err": max((x / max(abs(float(b)), 1e-30) for x, b in zip(d, r)), default=0.0),
                "pass": {t: all(within(x, float(b), t) for x, b in zip(d, r)) for t in tolerances}}
    g, r = np.ravel(got), np.ravel(ref)
    if g.size != r.size:
        raise ValueError("cusched's output has %d elements, PyTorch's %d" % (g.size, r.size))
    return _compare_chunks(np, g.size, chunk, tolerances, lambda: np.errstate(invalid="ignore", over="ignore"),
                           lambda s: (g[s:s + chunk].astype(np.float64), r[s:s + chunk].astype(np.float64)))


def _compare_chunks(xp, n, chunk, tolerances, quiet, take):
    """compare()'s rule over n elements in float64 chunks: xp is numpy or torch, take(start) the chunk's
    (got, ref) pair, quiet() a context that silences xp's warnings on NaN and overflow."""
    max_abs = max_rel = 0.0
    ok = {t: True for t in tolerances}
    for start in range(0, n, chunk):
        a, b = take(start)
        same = (a == b) | (xp.isnan(a) & xp.isnan(b))
        with quiet():
            d = xp.where(same, xp.zeros_like(a), xp.abs(a - b))
            d = xp.where(xp.isnan(d), xp.full_like(d, float("inf")), d)
            rel = d / xp.maximum(xp.abs(b), xp.full_like(b, 1e-30))
        if len(d):
            max_abs = max(max_abs, float(d.max()))
            max_rel = max(max_rel, float(rel.max()))
        scale = xp.abs(xp.where(xp.isinf(b), xp.zeros_like(b), b))
        for t in tolerances:
            ok[t] = ok[t] and bool(xp.all((d == 0.0) | (d <= t + t * scale)))
    return {"max_abs_err": max_abs, "max_rel_err": max_rel, "pass": ok}


def _flat(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


# ---------------------------------------------------------------------------- the record

def result_row(name, outcome):
    """One record result from a problem's outcome (see verify_one)."""
    check = outcome.get("check") or {}
    passed = check.get("pass") or {}
    matched = {str(t): passed.get(t) for t in TOLERANCES} if passed else {"0.01": None, "0.0001": None}
    match = {
        "status": outcome["status"],
        "1e-2": matched["0.01"],
        "1e-4": matched["0.0001"],
        "max_abs_err": check.get("max_abs_err"),
        "max_rel_err": check.get("max_rel_err"),
        "sizes": outcome.get("sizes") or {},
        "reduced": bool(outcome.get("reduced")),
    }
    if outcome.get("reference_check"):
        match["reference_1e-4"] = outcome["reference_check"]["pass"].get(1e-4)
    gpu = outcome.get("gpu") or {}

    def ms(key):
        v = gpu.get(key)
        return v if isinstance(v, (int, float)) and v > 0 else None

    row = {
        "problem": name,
        "schedule": "baseline",
        "cusched_ms": {"median": ms("median_ms"), "min": ms("min_ms"), "max": ms("max_ms")},
        "verdict": outcome.get("verdict"),
        "verified": {"1e-2": (outcome.get("verdict") == "ok") if outcome.get("verdict") else None, "1e-4": None},
        "pct_of_floor": gpu.get("pct_of_floor") if ms("median_ms") else None,
        "matches_pytorch": None if match["1e-2"] is None else ("pass" if match["1e-2"] else "fail"),
        "pytorch_match": match,
    }
    if outcome.get("source_file"):
        row["label"] = outcome["source_file"]
    if outcome.get("reason"):
        row["note"] = outcome["reason"]
    return row


def make_record(rows, *, name, date, started, commit, environment, command, prediction, notes):
    return {
        "schema_version": 1, "date": date, "started": started, "name": name,
        "title": "KernelBench problem files against the PyTorch modules they reproduce",
        "kind": "tests", "commit": commit, "environment": environment, "command": command,
        "prediction": prediction, "results": rows, "notes": notes,
    }


def summary_lines(rows):
    head = "%-72s %-16s %-6s %-6s %-10s %-10s %s" % ("problem", "status", "1e-2", "1e-4", "max abs", "max rel", "shape")
    out = [head, "-" * len(head)]
    yes = {True: "pass", False: "FAIL", None: "-"}
    for r in rows:
        m = r["pytorch_match"]
        out.append("%-72s %-16s %-6s %-6s %-10s %-10s %s" % (
            r.get("label", r["problem"])[:72], m["status"], yes[m["1e-2"]], yes[m["1e-4"]],
            "%.3g" % m["max_abs_err"] if m["max_abs_err"] is not None else "-",
            "%.3g" % m["max_rel_err"] if m["max_rel_err"] is not None else "-",
            ("reduced " if m["reduced"] else "") + ",".join("%s=%d" % kv for kv in sorted(m["sizes"].items()))))
    n = len(rows)
    loose = sum(1 for r in rows if r["pytorch_match"]["1e-2"])
    strict = sum(1 for r in rows if r["pytorch_match"]["1e-4"])
    not_run = sum(1 for r in rows if r["pytorch_match"]["status"] == "not_run")
    out.append("%d problems: %d match PyTorch at 1e-2, %d at 1e-4%s" % (
        n, loose, strict, ", %d not run (time limit)" % not_run if not_run else ""))
    return out


# ---------------------------------------------------------------------------- running

class DiskBudget:
    """Bytes that the saved files of the runs in flight may take. Runs take their share in
    job order (ticket i after ticket i - 1), so a later run never holds bytes an earlier
    one waits for; a run larger than the whole budget runs alone."""

    def __init__(self, capacity):
        self.capacity, self.used, self.next, self.cond = capacity, 0, 0, threading.Condition()

    def acquire(self, n, ticket):
        with self.cond:
            while self.next != ticket or (self.used and self.used + n > self.capacity):
                self.cond.wait()
            self.used += n
            self.next += 1
            self.cond.notify_all()

    def release(self, n):
        with self.cond:
            self.used -= n
            self.cond.notify_all()


def plan(path, max_bytes):
    with open(path) as f:
        problem = json.load(f)
    bench = problem["sizes"][problem.get("default_size", "bench")]
    sizes, reduced = reduced_sizes(problem, bench, max_bytes)
    ins, outs = working_set(problem, sizes)
    return {"path": path, "problem": problem, "bench": bench, "sizes": sizes, "reduced": reduced,
            "disk": SAVED_TRIALS * (ins + 2 * outs)}


# A run is not started with less time than this left before the --time-limit: it would be
# cut as a timeout, which reads as the file's failure, where "not run" is what happened.
MIN_START_S = 60


def run_cusched(cusched, job, work, timeout, budget, deadline=None):
    """Runs the baseline with --save-io; returns (outcome JSON or None, reason, directory).
    Within MIN_START_S of `deadline` (a time.time() value) nothing is run: the reason starts with
    "not run"."""
    budget.acquire(job["disk"], job["index"])
    if deadline is not None:
        left = int(deadline - time.time())
        if left < MIN_START_S:
            return None, "not run: the --time-limit had passed", tempfile.mkdtemp(dir=work)
        timeout = min(timeout, left)
    directory = tempfile.mkdtemp(prefix=job["problem"]["name"] + ".", dir=work)
    try:
        return run_command(cusched, job, directory, timeout)
    except Exception as e:  # cusched missing, the folder unwritable: recorded as the problem's failure
        return None, "cusched could not run: %s: %s" % (type(e).__name__, e), directory


def run_command(cusched, job, directory, timeout):
    """`cusched run --save-io` of the job's schedule (job["schedule"], default the baseline)."""
    cmd = [cusched, "run", "-p", job["path"], "-s", job.get("schedule", "baseline"), "--backend", "gpu", "--save-io",
           directory, "--save-io-trials", str(SAVED_TRIALS), "--json"]
    if not job.get("time"):
        cmd.append("--no-time")
    shape = shape_flag(job["bench"], job["sizes"])
    if shape:
        cmd += ["--shape", shape]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout: cusched run took over %d s" % timeout, directory
    try:
        out = json.loads(p.stdout)
    except ValueError:
        return None, "cusched run exited %d without JSON: %s" % (p.returncode, (p.stderr or p.stdout)[-400:]), directory
    if "error" in out and "verdict" not in out:
        return None, "cusched: %s" % out["error"].get("message", out["error"]), directory
    return out, "", directory


def saved(directory, buffer, suffix=".npy"):
    files = sorted(glob.glob(os.path.join(directory, "trial*_%s%s" % (buffer, suffix))),
                   key=lambda p: int(re.search(r"trial(\d+)_", os.path.basename(p)).group(1)))
    files = [f for f in files if suffix != ".npy" or not f.endswith(".reference.npy")]
    if not files:
        raise FileNotFoundError("no saved %s%s in %s" % (buffer, suffix, directory))
    return files[0]


def torch_check(job, directory, kernelbench, seed, modules):
    """Builds the module, runs it on the first trial's inputs, compares with cusched."""
    import importlib.util
    import numpy as np
    import torch
    problem, source = job["problem"], job["problem"]["source"]
    path = kernelbench_file(kernelbench, source["file"])
    if path not in modules:
        spec = importlib.util.spec_from_file_location("kernelbench_%d" % len(modules), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules[path] = module
    module = modules[path]
    notes = []
    init = source.get("init_args")
    declared = normalised(module.get_init_inputs())
    if init is None:
        init = declared
    elif normalised(init) != declared:
        notes.append("init_args %s differ from get_init_inputs() %s" % (json.dumps(init), json.dumps(declared)))
    tensors = {}
    for inp in problem["inputs"]:
        a = np.load(saved(directory, inp["name"]))
        tensors[inp["name"]] = torch.from_numpy(np.ascontiguousarray(a)).cuda()
    torch.manual_seed(seed)
    model = module.Model(*init).cuda()
    if source.get("mode") == "eval":
        model.eval()
    load_parameters(model, source, tensors)
    with torch.no_grad():
        out = model(*forward_arguments(source, tensors))
    if isinstance(out, (tuple, list)):
        out = out[0]
    got_torch = out.detach()
    del out, model, tensors
    torch.cuda.empty_cache()
    name = problem["outputs"][0]
    kernel = compare(np.load(saved(directory, name), mmap_mode="r"), got_torch)
    reference = compare(np.load(saved(directory, name, ".reference.npy"), mmap_mode="r"), got_torch)
    del got_torch
    torch.cuda.empty_cache()
    return kernel, reference, "; ".join(notes)


def verify_one(job, future, args, modules):
    outcome = {"sizes": job["sizes"], "reduced": job["reduced"], "source_file": job["problem"]["source"]["file"]}
    run, reason, directory = future.result()
    if run is not None and job.get("time"):
        outcome["gpu"] = run.get("gpu") or {}
    try:
        if run is None:
            status = next((s for s in ("timeout", "not run") if reason.startswith(s)), "cusched_failed")
            outcome.update(status=status.replace(" ", "_"), reason=reason)
            return outcome
        outcome["verdict"] = run.get("verdict")
        if run.get("verdict") != "ok":
            outcome.update(status="cusched_failed", reason="%s: %s" % (run.get("verdict"), run.get("reason", "")))
            return outcome
        try:
            kernel, reference, note = torch_check(job, directory, args.kernelbench, args.seed, modules)
        except Exception as e:  # the module, its parameters or the comparison failed: recorded, not fatal
            outcome.update(status="torch_failed", reason="%s: %s" % (type(e).__name__, e))
            return outcome
        outcome.update(status="compared", check=kernel, reference_check=reference)
        if note:
            outcome["reason"] = note
        return outcome
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        args.budget.release(job["disk"])


def environment(torch_version, device, cuda=None):
    smi = command_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    driver = smi.splitlines()[0].split(",")[1].strip() if smi else None
    return {"gpu": device or "unknown", "gpu_count": 1, "driver": driver, "cuda": ("CUDA " + cuda) if cuda else None,
            "pytorch": torch_version}


def file_order(path):
    """Level folder, then KernelBench's number: level1/2_... before level1/10_..."""
    m = re.match(r"(\d+)_", os.path.basename(path))
    return (os.path.dirname(path), int(m.group(1)) if m else 0, os.path.basename(path))


def default_files():
    return sorted(glob.glob(os.path.join(ROOT, "problems", "kernelbench", "**", "*.json"), recursive=True),
                  key=file_order)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="problem files (default: problems/kernelbench/**/*.json)")
    p.add_argument("--kernelbench", default=None, help="a KernelBench checkout (its root or KernelBench/)")
    built = os.path.join(ROOT, "build", "tools", "cusched")
    p.add_argument("--kernelbench-commit", default=None,
                   help="the checkout's commit, for a copy without git (default: git rev-parse HEAD there)")
    p.add_argument("--cusched", default=shutil.which("cusched") or built,
                   help="the cusched binary (default: cusched on PATH, else build/tools/cusched)")
    p.add_argument("--jobs", type=int, default=3, help="cusched runs at a time")
    p.add_argument("--timeout", type=int, default=900, help="seconds per cusched run")
    p.add_argument("--time", action="store_true", help="also time each baseline (cusched's protocol) where it runs "
                   "at the bench size; the record then carries its median and share of the floor")
    p.add_argument("--time-limit", type=int, default=0, help="seconds after which no further cusched run starts; "
                   "the files not run are recorded as not_run (default: no limit)")
    p.add_argument("--max-gib", type=float, default=6.0, help="working set (inputs + outputs) above which the "
                   "shape is reduced")
    p.add_argument("--disk-gib", type=float, default=40.0, help="saved files of the runs in flight")
    p.add_argument("--work", default=None, help="folder for the saved .npy files (default: a temporary folder)")
    p.add_argument("--seed", type=int, default=42, help="torch.manual_seed before Model(*init_args)")
    p.add_argument("--allow-tf32", action="store_true", help="leave TF32 on for PyTorch's matmuls and convolutions")
    p.add_argument("--name", default="kernelbench-verify", help="the record's name (DATE-NAME.json)")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    p.add_argument("--prediction", default=None, help="what was predicted before the run")
    p.add_argument("--plan", action="store_true", help="print each file's sizes and saved bytes; run nothing")
    p.add_argument("--skip-matched", default=None, metavar="DIR",
                   help="leave out the files whose latest check in the records of DIR (e.g. bench/results) matched "
                        "the module at 1e-2 and 1e-4: a run checks only what is not yet shown")
    p.add_argument("--matched-on", default=None, metavar="GPU",
                   help="with --skip-matched: a latest check counts only when it ran on a GPU whose name contains this "
                        "(e.g. H200)")
    args = p.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.name):
        p.error("--name must be lower-case letters, digits and '-'")
    if not args.plan and not args.kernelbench:
        p.error("--kernelbench is required (the checkout whose modules are run)")
    return args


def plan_lines(jobs):
    """What --plan prints: each file's working set at the sizes it will run and the bytes its run saves."""
    out = []
    for j in jobs:
        ins, outs = working_set(j["problem"], j["sizes"])
        shape = shape_flag(j["bench"], j["sizes"])
        out.append("%-64s %7.2f GiB  saves %7.2f GiB  %s" % (
            os.path.basename(j["path"])[:64], (ins + outs) / GIB, j["disk"] / GIB,
            ("--shape " + shape) if shape else "bench size"))
    return out


def skip_matched(files, directory, gpu=None):
    """The files whose problem's latest check in the records of `directory` did not match its module at
    both tolerances (or that have none, or, with `gpu`, that ran on a GPU whose name does not contain it),
    as bench/RESULTS.md's table of the checks reads them."""
    from kernelbench_tables import module_check_rows
    from record_cells import load_records
    rows = module_check_rows(load_records(directory))
    kept = []
    for f in files:
        with open(f) as fh:
            name = json.load(fh)["name"]
        match, record = rows[name] if name in rows else ({}, {})
        match = match.get("pytorch_match") or {}
        on = gpu is None or gpu in (record.get("environment") or {}).get("gpu", "")
        if not (match.get("1e-2") and match.get("1e-4") and on):
            kept.append(f)
    print("%d of %d files matched their modules in %s and are left out" % (len(files) - len(kept), len(files),
                                                                          directory), flush=True)
    return kept


def main(argv):
    args = parse_args(argv)
    files = args.files or default_files()
    if args.skip_matched:
        files = skip_matched(files, args.skip_matched, args.matched_on)
    if args.plan:
        print("\n".join(plan_lines([plan(f, int(args.max_gib * GIB)) for f in files])))
        return 0
    import torch
    torch.backends.cuda.matmul.allow_tf32 = args.allow_tf32
    torch.backends.cudnn.allow_tf32 = args.allow_tf32
    started = datetime.datetime.now(datetime.timezone.utc)
    work = args.work or tempfile.mkdtemp(prefix="kernelbench-verify.")
    os.makedirs(work, exist_ok=True)
    args.budget = DiskBudget(int(args.disk_gib * GIB))
    jobs = [dict(plan(f, int(args.max_gib * GIB)), index=i) for i, f in enumerate(files)]
    for j in jobs:
        j["time"] = args.time and not j["reduced"]
    commit = records.commit()
    kb_commit = args.kernelbench_commit or command_output(["git", "-C", args.kernelbench, "rev-parse", "HEAD"])
    env = environment(torch.__version__, torch.cuda.get_device_name(0), torch.version.cuda)
    path = os.path.join(args.out_dir, "%s-%s.json" % (started.strftime("%Y-%m-%d"), args.name))

    def write_record(rows):
        """The record of the rows so far: rewritten after every file, so a run that is cut keeps them."""
        lines = summary_lines(rows)
        left = len(jobs) - len(rows)
        notes = ("PyTorch %s with TF32 %s; modules built with torch.manual_seed(%d); each problem's baseline "
                 "schedule, compared on its first trial's inputs. KernelBench checkout %s. %s%s." % (
                     torch.__version__, "allowed" if args.allow_tf32 else "off", args.seed,
                     kb_commit or "of unknown commit", lines[-1],
                     "; the run stopped with %d of its %d files left" % (left, len(jobs)) if left else ""))
        record = make_record(
            rows, name=args.name, date=started.strftime("%Y-%m-%d"), started=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            commit=commit, environment=env,
            command="python3 bench/kernelbench_verify.py " + " ".join(argv), prediction=args.prediction, notes=notes)
        records.write_record(record, args.out_dir)
        return lines

    rows, modules = [], {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        deadline = time.time() + args.time_limit if args.time_limit else None
        futures = [pool.submit(run_cusched, args.cusched, j, work, args.timeout, args.budget, deadline)
                   for j in jobs]
        for job, future in zip(jobs, futures):
            t0 = time.time()
            outcome = verify_one(job, future, args, modules)
            row = result_row(job["problem"]["name"], outcome)
            rows.append(row)
            print(json.dumps({"problem": row["problem"], **row["pytorch_match"], "seconds": round(time.time() - t0, 1)}),
                  flush=True)
            write_record(rows)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    lines = write_record(rows)
    print("\n".join(lines))
    print("wrote %s" % path)
    return 0 if all(r["pytorch_match"]["1e-2"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
