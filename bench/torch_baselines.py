#!/usr/bin/env python3
"""PyTorch baselines for the cusched problem set, on the GPU.

For each problem (all, or the names given) this builds the inputs on the GPU from the
problem's distributions, times PyTorch eager and torch.compile (mode default) with
cusched's protocol (L2 flushed before each timed launch by writing a buffer of twice
the L2 size, CUDA events, warm-up, median of at least 30 launches with min and max)
and prints one JSON line per problem:

    {"problem": "softmax", "eager_ms": ..., "compile_ms": ..., "settings": "default", ...}

PyTorch runs at its own defaults (cuDNN may use TF32, FP32 matmuls may not) unless
--settings says otherwise: "tf32" (--tf32) allows TF32 for matmuls and cuDNN, "fp32"
forbids it for both. Each line names its setting, so the records keep the settings apart.

Timings are kept in a cache (--cache, default bench/pytorch_cache.json) keyed by problem,
size, setting, protocol and GPU, with the PyTorch version: a later run with the same
PyTorch version reuses them (the line says "cached": true) instead of timing again;
--no-cache times afresh, and a new PyTorch version times afresh and replaces the entry.

Shapes, dtypes, distributions, tolerances and the PyTorch expression come from
`cusched problems --json` (pass its output with --problems-json), so the problem set
has one source of truth. Each expression is evaluated with the input names bound to
the input tensors and `torch` and `F` (torch.nn.functional) in scope.

With --inputs DIR the inputs are read from DIR/<buffer>.npy (or trial<K>_<buffer>.npy,
as `cusched` saves them) instead of drawn; with --outputs DIR the PyTorch result is
compared with cusched's saved output DIR/<output>.npy within the problem's tolerance
(|got - ref| <= atol + rtol * |ref|; integer outputs exactly) and the maximum errors
are printed as a JSON line {"problem", "check": "pass" | "fail", "max_abs_err", ...}.

Examples:
    cusched problems --json > problems.json
    python3 bench/torch_baselines.py --problems-json problems.json
    python3 bench/torch_baselines.py --problems-json problems.json softmax relu --iters 50
    python3 bench/torch_baselines.py --problems-json problems.json softmax \\
        --size small --inputs saved/ --outputs saved/ --no-timing

Exit status: 0 when every requested problem ran (and every check passed), 1 when a
check failed or a problem could not run, 2 for bad arguments or an unreadable file.
"""

import argparse
import json
import tempfile
import math
import os
import statistics
import sys

DTYPES = {
    "f32": "float32",
    "f16": "float16",
    "bf16": "bfloat16",
    "f64": "float64",
    "i32": "int32",
    "i64": "int64",
    "bool": "bool",
}


class UsageError(Exception):
    """A bad argument or unreadable file: exit status 2."""


def load_problems(path):
    try:
        if path == "-":
            problems = json.load(sys.stdin)
        else:
            with open(path) as f:
                problems = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read the problem list {path!r}: {e}. "
                         "Write it with `cusched problems --json > problems.json`.")
    if not isinstance(problems, list) or not all("inputs" in p and "torch" in p for p in problems):
        raise UsageError(f"{path!r} is not the output of `cusched problems --json` with inputs; "
                         "rebuild cusched and write it again.")
    return {p["name"]: p for p in problems}


def torch_dtype(torch, name):
    if name not in DTYPES:
        raise UsageError(f"unknown dtype {name!r} in the problem list")
    return getattr(torch, DTYPES[name])


def draw_input(torch, spec, dist, generator):
    """One input tensor on the GPU drawn from dist = {kind, a, b}."""
    shape = tuple(spec["shape"])
    dtype = torch_dtype(torch, spec["dtype"])
    kind, a, b = dist["kind"], dist["a"], dist["b"]
    if kind == "randint":
        t = torch.randint(int(math.ceil(a)), int(math.floor(b)) + 1, shape, device="cuda", generator=generator,
                          dtype=torch.int64)
        return t.to(dtype)
    if dtype.is_floating_point:
        t = torch.empty(shape, device="cuda", dtype=dtype)
    else:
        t = torch.empty(shape, device="cuda", dtype=torch.float32)
    if kind == "normal":
        t.normal_(a, b, generator=generator)
    elif kind == "uniform":
        t.uniform_(a, b, generator=generator)
    else:
        raise UsageError(f"unknown distribution {kind!r}")
    return t.to(dtype)


def find_npy(directory, name, trial):
    for candidate in (f"{name}.npy", f"trial{trial}_{name}.npy"):
        path = os.path.join(directory, candidate)
        if os.path.exists(path):
            return path
    raise UsageError(f"neither {name}.npy nor trial{trial}_{name}.npy is in {directory!r}")


def load_input(torch, np, directory, spec, trial):
    path = find_npy(directory, spec["name"], trial)
    try:
        array = np.load(path)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {path!r}: {e}")
    if tuple(array.shape) != tuple(spec["shape"]):
        raise UsageError(f"{path!r} has shape {tuple(array.shape)}, but input {spec['name']!r} at this size is "
                         f"{tuple(spec['shape'])}; pass the matching --size")
    return torch.from_numpy(array).to(device="cuda", dtype=torch_dtype(torch, spec["dtype"]))


def make_function(problem):
    """The PyTorch expression as a function of the inputs, in pipeline order."""
    import torch
    import torch.nn.functional as F
    names = [spec["name"] for spec in problem["inputs"]]
    source = f"lambda {', '.join(names)}: {problem['torch']}"
    return eval(source, {"torch": torch, "F": F})  # the expression is the problem's, from cusched itself


class L2Flusher:
    """Writes a buffer of twice the L2 size, so that no input or output stays cached."""

    def __init__(self, torch):
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 64 << 20) or (64 << 20)
        self.buffer = torch.empty(2 * l2 // 4, dtype=torch.float32, device="cuda")
        self.l2_bytes = l2

    def flush(self):
        self.buffer.fill_(1.0)


def time_function(torch, fn, args, flusher, warmup, iters):
    """Milliseconds of `iters` launches, each after an L2 flush, timed with CUDA events."""
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for n in range(iters):
        flusher.flush()
        starts[n].record()
        fn(*args)
        ends[n].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return {"median": statistics.median(times), "min": min(times), "max": max(times)}


def compare(np, problem, got, expected_path, output_spec):
    """Compares PyTorch's result `got` with cusched's saved output within the tolerance."""
    try:
        saved = np.load(expected_path)
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {expected_path!r}: {e}")
    ours = got.detach().cpu().numpy()
    if ours.size != saved.size:
        raise UsageError(f"{expected_path!r} holds {saved.size} elements, PyTorch's result {ours.size}")
    ref = ours.reshape(-1).astype(np.float64)
    out = saved.reshape(-1).astype(np.float64)
    diff = np.abs(out - ref)
    integer = not np.issubdtype(ours.dtype, np.floating)
    atol, rtol = (0.0, 0.0) if integer else (problem["atol"], problem["rtol"])
    bound = atol + rtol * np.abs(ref)
    finite = np.isfinite(out) & np.isfinite(ref)
    bad = ~(finite & (diff <= bound))
    rel = diff / np.maximum(np.abs(ref), 1e-30)
    return {
        "problem": problem["name"],
        "output": output_spec["name"],
        "check": "fail" if bad.any() else "pass",
        "max_abs_err": float(np.nanmax(diff)) if diff.size else 0.0,
        "max_rel_err": float(np.nanmax(rel)) if rel.size else 0.0,
        "mismatches": int(bad.sum()),
        "elements": int(bad.size),
        "non_finite": int((~finite).sum()),
        "atol": atol,
        "rtol": rtol,
    }


SETTINGS = {"default": None, "tf32": (True, True), "fp32": (False, False)}  # (matmul, cuDNN) TF32


class TimingCache:
    """PyTorch timings by key, each stored with the PyTorch version that measured it."""

    def __init__(self, path):
        self.path, self.entries = path, {}
        if path and os.path.exists(path):
            try:
                with open(path) as f:
                    self.entries = json.load(f)
            except (OSError, ValueError):
                self.entries = {}  # an unreadable cache is timed afresh and rewritten

    def get(self, key, version):
        e = self.entries.get(key)
        return dict(e["record"], cached=True) if e and e.get("torch") == version else None

    def put(self, key, version, record):
        if not self.path:
            return
        self.entries[key] = {"torch": version, "record": record}
        directory = os.path.dirname(os.path.abspath(self.path))
        with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, suffix=".tmp") as f:
            json.dump(self.entries, f, indent=1, sort_keys=True)
        os.replace(f.name, self.path)


def cache_key(torch, problem, args):
    return "|".join(str(x) for x in (problem["name"], args.size, args.settings, bool(args.adversarial), args.seed,
                                      args.iters, args.warmup, not args.no_compile, torch.cuda.get_device_name(0)))


def run_problem(torch, np, problem, args, flusher, cache):
    size_key = "inputs" if args.size == "bench" else "small_inputs"
    out_key = "outputs" if args.size == "bench" else "small_outputs"
    specs = problem[size_key]
    generator = torch.Generator(device="cuda")
    generator.manual_seed(args.seed)
    inputs = []
    for spec in specs:
        if args.inputs:
            inputs.append(load_input(torch, np, args.inputs, spec, args.trial))
        else:
            dist = spec["adversarial"] if args.adversarial and spec.get("adversarial") else spec["distribution"]
            inputs.append(draw_input(torch, spec, dist, generator))
    fn = make_function(problem)
    lines = []
    if args.outputs:
        result = fn(*inputs)
        output_spec = problem[out_key][0]
        lines.append(compare(np, problem, result, find_npy(args.outputs, output_spec["name"], args.trial), output_spec))
        del result
    key = cache_key(torch, problem, args)
    cached = None if args.no_timing or args.inputs else cache.get(key, torch.__version__)
    if cached:
        lines.append(cached)
    elif not args.no_timing:
        record = {"problem": problem["name"], "size": args.size, "adversarial": bool(args.adversarial),
                  "iters": args.iters}
        eager = time_function(torch, fn, inputs, flusher, args.warmup, args.iters)
        record.update(eager_ms=eager["median"], eager_min_ms=eager["min"], eager_max_ms=eager["max"])
        if not args.no_compile:
            compiled = torch.compile(fn)
            c = time_function(torch, compiled, inputs, flusher, max(args.warmup, 2), args.iters)
            record.update(compile_ms=c["median"], compile_min_ms=c["min"], compile_max_ms=c["max"])
        if args.size == "bench":
            record["floor_bytes_ms"] = problem["mbytes"] * 1e6 / (args.copy_tbps * 1e12) * 1e3
            record["gflop"] = problem["gflop"]
        record["device"] = torch.cuda.get_device_name(0)
        record["torch"] = torch.__version__
        record["settings"] = args.settings
        record["matmul_allow_tf32"] = bool(torch.backends.cuda.matmul.allow_tf32)
        record["cudnn_allow_tf32"] = bool(torch.backends.cudnn.allow_tf32)
        if not args.inputs:
            cache.put(key, torch.__version__, record)
        lines.append(record)
    del inputs
    return lines


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("problems", nargs="*", help="problem names (default: every problem in the list)")
    p.add_argument("--problems-json", required=True,
                   help="output of `cusched problems --json` ('-' reads standard input)")
    p.add_argument("--size", choices=["bench", "small"], default="bench", help="problem size (default bench)")
    p.add_argument("--adversarial", action="store_true", help="draw from the adversarial distributions")
    p.add_argument("--seed", type=int, default=0, help="seed of the input generator")
    p.add_argument("--iters", type=int, default=30, help="timed launches, at least 30 (default 30)")
    p.add_argument("--warmup", type=int, default=5, help="untimed launches first (default 5)")
    p.add_argument("--no-compile", action="store_true", help="time eager only")
    p.add_argument("--no-timing", action="store_true", help="only check outputs (with --outputs)")
    p.add_argument("--settings", choices=sorted(SETTINGS), default="default",
                   help="PyTorch's TF32 settings: default (PyTorch's own: cuDNN TF32, FP32 matmuls), tf32 (both TF32), "
                        "fp32 (neither)")
    p.add_argument("--tf32", action="store_const", dest="settings", const="tf32", help="the same as --settings tf32")
    p.add_argument("--cache", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch_cache.json"),
                   help="timing cache reused while the PyTorch version is the same (default bench/pytorch_cache.json)")
    p.add_argument("--no-cache", action="store_true", help="time afresh and leave the cache alone")
    p.add_argument("--copy-tbps", type=float, default=4.27, help="copy bandwidth for floor_bytes_ms (default 4.27)")
    p.add_argument("--inputs", metavar="DIR", help="read inputs from DIR/<buffer>.npy instead of drawing them")
    p.add_argument("--outputs", metavar="DIR", help="compare with cusched's outputs DIR/<output>.npy")
    p.add_argument("--trial", type=int, default=0, help="K in trial<K>_<buffer>.npy file names (default 0)")
    args = p.parse_args(argv)
    if args.iters < 30:
        p.error("--iters must be at least 30 (the timing protocol's minimum)")
    if args.no_timing and not args.outputs:
        p.error("--no-timing leaves nothing to do without --outputs")
    return args


def main(argv):
    args = parse_args(argv)
    try:
        problems = load_problems(args.problems_json)
        names = args.problems or list(problems)
        unknown = [n for n in names if n not in problems]
        if unknown:
            raise UsageError(f"unknown problem(s) {', '.join(unknown)}; known: {', '.join(problems)}")
        for d in (args.inputs, args.outputs):
            if d and not os.path.isdir(d):
                raise UsageError(f"{d!r} is not a directory")
    except UsageError as e:
        print(f"torch_baselines: {e}", file=sys.stderr)
        return 2

    import numpy as np
    import torch
    if not torch.cuda.is_available():
        print("torch_baselines: PyTorch sees no CUDA device; run this on the GPU machine.", file=sys.stderr)
        return 2
    if SETTINGS[args.settings] is not None:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = SETTINGS[args.settings]
    flusher = L2Flusher(torch)
    cache = TimingCache(None if args.no_cache else args.cache)

    status = 0
    for name in names:
        try:
            for line in run_problem(torch, np, problems[name], args, flusher, cache):
                print(json.dumps(line), flush=True)
                if line.get("check") == "fail":
                    status = 1
        except UsageError as e:
            print(f"torch_baselines: {name}: {e}", file=sys.stderr)
            return 2
        except Exception as e:  # a failed problem (out of memory, compile error) must not stop the others
            print(json.dumps({"problem": name, "error": f"{type(e).__name__}: {e}"}), flush=True)
            status = 1
        finally:
            torch._dynamo.reset()
            torch.cuda.empty_cache()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
