#!/usr/bin/env python3
"""Checks problem files against the KernelBench modules they reproduce, on a GPU.

usage: kernelbench_verify.py --kernelbench DIR [FILE ...] [--cusched PATH] [--jobs N]
                             [--timeout S] [--max-gib G] [--disk-gib G] [--work DIR]
                             [--name NAME] [--out-dir DIR] [--prediction TEXT] [--allow-tf32]

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
table printed last. docs/kernelbench.md describes the set and this check.
"""
import argparse
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCES = (1e-2, 1e-4)
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i32": 4, "i64": 8, "bool": 1}
SAVED_TRIALS = 3  # the verification trials `cusched run` saves (inputs, outputs and references)
GIB = 1 << 30


# ---------------------------------------------------------------------------- shapes

def size_value(expr, sizes):
    """An integer expression of sizes (a shape entry or a stage extent) at `sizes`: names,
    integers, + - * / % and parentheses; / and % truncate as in C (the sizes are positive)."""
    if isinstance(expr, int):
        return expr
    tokens = re.findall(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else ("", "", "")

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1] if pos <= len(tokens) else ("", "", "")

    def primary():
        num, name, op = take()
        if num:
            return int(num)
        if name:
            if name not in sizes:
                raise ValueError("the size '%s' of '%s' is not bound" % (name, expr))
            return int(sizes[name])
        if op == "(":
            v = additive()
            if take()[2] != ")":
                raise ValueError("a ')' is missing in '%s'" % expr)
            return v
        if op == "-":
            return -primary()
        raise ValueError("'%s' is not an integer expression of sizes" % expr)

    def term():
        v = primary()
        while peek()[2] in ("*", "/", "%"):
            op, rhs = take()[2], primary()
            if op == "*":
                v *= rhs
            else:
                q = abs(v) // abs(rhs) * (1 if (v >= 0) == (rhs > 0) else -1)
                v = q if op == "/" else v - q * rhs
        return v

    def additive():
        v = term()
        while peek()[2] in ("+", "-"):
            op, rhs = take()[2], term()
            v = v + rhs if op == "+" else v - rhs
        return v

    value = additive()
    if pos != len(tokens):
        raise ValueError("'%s' is not an integer expression of sizes" % expr)
    return value


def split_top_level(text, sep=","):
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def stage_domain(stage_text):
    """(name, [extent expression, ...]) of a stage definition 'NAME(v in EXTENT, ...) = BODY'."""
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(", stage_text)
    if not m:
        raise ValueError("'%s' is not a stage definition" % stage_text)
    depth, i = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(stage_text[i], 0)
        i += 1
    domain = split_top_level(stage_text[m.end():i - 1])
    return m.group(1), [d.split(" in ", 1)[1] for d in domain]


def output_shapes(problem, sizes):
    """{output name: shape} at `sizes`."""
    extents = dict(stage_domain(s) for s in problem["stages"])
    return {o: [size_value(e, sizes) for e in extents[o]] for o in problem["outputs"]}


def stage_dtype(problem, name):
    # Argmax and argmin stages are int64; every other output of these files is f32.
    for s in problem["stages"]:
        if stage_domain(s)[0] == name:
            body = s.split("=", 1)[1].strip()
            return "i64" if re.match(r"arg(max|min)\s*\(", body) else "f32"
    return "f32"


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def working_set(problem, sizes):
    """(input bytes, output bytes) at `sizes`."""
    ins = sum(prod(size_value(d, sizes) for d in i["shape"]) * DTYPE_BYTES[i["dtype"]] for i in problem["inputs"])
    outs = sum(prod(shape) * DTYPE_BYTES[stage_dtype(problem, name)]
               for name, shape in output_shapes(problem, sizes).items())
    return ins, outs


def shapes_valid(problem, sizes):
    try:
        dims = [size_value(d, sizes) for i in problem["inputs"] for d in i["shape"]]
        dims += [d for shape in output_shapes(problem, sizes).values() for d in shape]
        for s in problem["stages"]:
            body = s.split("=", 1)[1]
            for m in re.finditer(r"\b[a-z]+ in ([^,:]+)[,:]", body):
                dims.append(size_value(m.group(1), sizes))
    except (ValueError, ZeroDivisionError):
        return False
    return all(d >= 1 for d in dims)


def reduced_sizes(problem, sizes, limit_bytes):
    """Sizes whose working set fits `limit_bytes`: the sizes of the first input's dimensions,
    in order, halved while the shapes stay valid. Returns (sizes, reduced)."""
    sizes = dict(sizes)
    order = []
    for inp in problem["inputs"]:
        for d in inp["shape"]:
            if isinstance(d, str) and d in sizes and d not in order:
                order.append(d)
    order += [n for n in sorted(sizes, key=lambda n: -sizes[n]) if n not in order]
    reduced = False
    for name in order:
        while sum(working_set(problem, sizes)) > limit_bytes and sizes[name] > 1:
            trial = dict(sizes, **{name: sizes[name] // 2})
            if not shapes_valid(problem, trial):
                break
            sizes, reduced = trial, True
        if sum(working_set(problem, sizes)) <= limit_bytes:
            break
    return sizes, reduced


def shape_flag(bench, sizes):
    changed = ["%s=%d" % (n, v) for n, v in sorted(sizes.items()) if bench.get(n) != v]
    return ",".join(changed)


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
    """got and ref: arrays (numpy or sequences) of one element count. Returns max_abs_err,
    max_rel_err and for each t whether |got - ref| <= t + t |ref| everywhere (element_error:
    NaN and infinities fail unless both sides hold the same)."""
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
    max_abs = max_rel = 0.0
    ok = {t: True for t in tolerances}
    for start in range(0, g.size, chunk):
        a = g[start:start + chunk].astype(np.float64)
        b = r[start:start + chunk].astype(np.float64)
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        with np.errstate(invalid="ignore", over="ignore"):
            d = np.where(same, 0.0, np.abs(a - b))
            d = np.where(np.isnan(d), np.inf, d)
            rel = d / np.maximum(np.abs(b), 1e-30)
        if d.size:
            max_abs = max(max_abs, float(d.max()))
            max_rel = max(max_rel, float(rel.max()))
        for t in tolerances:
            ok[t] = ok[t] and bool(np.all((d == 0.0) | (d <= t + t * np.abs(np.where(np.isinf(b), 0.0, b)))))
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
    row = {
        "problem": name,
        "schedule": "baseline",
        "cusched_ms": {"median": None, "min": None, "max": None},
        "verdict": outcome.get("verdict"),
        "verified": {"1e-2": (outcome.get("verdict") == "ok") if outcome.get("verdict") else None, "1e-4": None},
        "pct_of_floor": None,
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
    out.append("%d problems: %d match PyTorch at 1e-2, %d at 1e-4" % (n, loose, strict))
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


def run_cusched(cusched, job, work, timeout, budget):
    """Runs the baseline with --save-io; returns (outcome JSON or None, reason, directory)."""
    budget.acquire(job["disk"], job["index"])
    directory = tempfile.mkdtemp(prefix=job["problem"]["name"] + ".", dir=work)
    cmd = [cusched, "run", "-p", job["path"], "-s", "baseline", "--backend", "gpu", "--save-io", directory,
           "--no-time", "--json"]
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
    load_parameters(model, source, tensors)
    with torch.no_grad():
        out = model(*forward_arguments(source, tensors))
    if isinstance(out, (tuple, list)):
        out = out[0]
    got_torch = out.detach().cpu().numpy()
    del out, model, tensors
    torch.cuda.empty_cache()
    name = problem["outputs"][0]
    kernel = compare(np.load(saved(directory, name), mmap_mode="r"), got_torch)
    reference = compare(np.load(saved(directory, name, ".reference.npy"), mmap_mode="r"), got_torch)
    return kernel, reference, "; ".join(notes)


def verify_one(job, future, args, modules):
    outcome = {"sizes": job["sizes"], "reduced": job["reduced"], "source_file": job["problem"]["source"]["file"]}
    run, reason, directory = future.result()
    try:
        if run is None:
            outcome.update(status="cusched_failed" if not reason.startswith("timeout") else "timeout", reason=reason)
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


def command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def environment(torch_version, device):
    smi = command_output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    driver = smi.splitlines()[0].split(",")[1].strip() if smi else None
    return {"gpu": device or "unknown", "gpu_count": 1, "driver": driver, "cuda": None, "pytorch": torch_version}


def default_files():
    return sorted(glob.glob(os.path.join(ROOT, "problems", "kernelbench", "**", "*.json"), recursive=True))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", help="problem files (default: problems/kernelbench/**/*.json)")
    p.add_argument("--kernelbench", required=True, help="a KernelBench checkout (its root or KernelBench/)")
    p.add_argument("--cusched", default=os.path.join(ROOT, "build", "tools", "cusched"))
    p.add_argument("--jobs", type=int, default=3, help="cusched runs at a time")
    p.add_argument("--timeout", type=int, default=900, help="seconds per cusched run")
    p.add_argument("--max-gib", type=float, default=6.0, help="working set (inputs + outputs) above which the "
                   "shape is reduced")
    p.add_argument("--disk-gib", type=float, default=40.0, help="saved files of the runs in flight")
    p.add_argument("--work", default=None, help="folder for the saved .npy files (default: a temporary folder)")
    p.add_argument("--seed", type=int, default=42, help="torch.manual_seed before Model(*init_args)")
    p.add_argument("--allow-tf32", action="store_true", help="leave TF32 on for PyTorch's matmuls and convolutions")
    p.add_argument("--name", default="kernelbench-verify", help="the record's name (DATE-NAME.json)")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    p.add_argument("--prediction", default=None, help="what was predicted before the run")
    args = p.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.name):
        p.error("--name must be lower-case letters, digits and '-'")
    return args


def main(argv):
    args = parse_args(argv)
    import torch
    torch.backends.cuda.matmul.allow_tf32 = args.allow_tf32
    torch.backends.cudnn.allow_tf32 = args.allow_tf32
    files = args.files or default_files()
    started = datetime.datetime.now(datetime.timezone.utc)
    work = args.work or tempfile.mkdtemp(prefix="kernelbench-verify.")
    os.makedirs(work, exist_ok=True)
    args.budget = DiskBudget(int(args.disk_gib * GIB))
    jobs = [dict(plan(f, int(args.max_gib * GIB)), index=i) for i, f in enumerate(files)]
    rows, modules = [], {}
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_cusched, args.cusched, j, work, args.timeout, args.budget) for j in jobs]
        for job, future in zip(jobs, futures):
            t0 = time.time()
            outcome = verify_one(job, future, args, modules)
            row = result_row(job["problem"]["name"], outcome)
            rows.append(row)
            print(json.dumps({"problem": row["problem"], **row["pytorch_match"], "seconds": round(time.time() - t0, 1)}),
                  flush=True)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    commit = os.environ.get("CUSCHED_COMMIT") or command_output(["git", "-C", ROOT, "rev-parse", "HEAD"])
    kb_commit = command_output(["git", "-C", args.kernelbench, "rev-parse", "HEAD"])
    lines = summary_lines(rows)
    notes = ("PyTorch %s with TF32 %s; modules built with torch.manual_seed(%d); each problem's baseline schedule, "
             "compared on its first trial's inputs. KernelBench checkout %s. %s." % (
                 torch.__version__, "allowed" if args.allow_tf32 else "off", args.seed,
                 kb_commit or "of unknown commit", lines[-1]))
    record = make_record(
        rows, name=args.name, date=started.strftime("%Y-%m-%d"), started=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        commit=commit if commit and re.fullmatch(r"[0-9a-f]{7,40}", commit) else None,
        environment=environment(torch.__version__, torch.cuda.get_device_name(0)),
        command="python3 bench/kernelbench_verify.py " + " ".join(argv), prediction=args.prediction, notes=notes)
    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, "%s-%s.json" % (record["date"], record["name"]))
    with open(path, "w") as f:
        f.write(json.dumps(record, indent=2) + "\n")
    print("\n".join(lines))
    print("wrote %s" % path)
    return 0 if all(r["pytorch_match"]["1e-2"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
