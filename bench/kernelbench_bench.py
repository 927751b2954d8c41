#!/usr/bin/env python3
"""KernelBench problem files on a GPU: cusched's kernels against the PyTorch modules they reproduce.

usage: kernelbench_bench.py --kernelbench DIR [FILE ...] [--schedule baseline|best] [--schedule-dir DIR]
                            [--settings NAME ...] [--no-compile] [--strict] [--iters N] [--warmup N]
                            [--cache PATH] [--time-limit S] [--name NAME] [--out-dir DIR]
                            [--prediction TEXT] [--cusched PATH]

For each problem file (default: every problems/kernelbench/**/*.json), at its bench size:
- cusched: `cusched run -p FILE -s SCHEDULE --json --no-audit` (verified against the float64
  reference at 1e-2 and timed with cusched's protocol); with --strict also at 1e-4. The
  schedule is DIR/<problem name>.json from --schedule-dir where there is one (a search's best,
  exported), else --schedule (default baseline).
- PyTorch: the module of the file's `source` (Model(*init_args) with torch.manual_seed, in
  eval mode where the file says so) on the inputs of the file's own get_inputs(), both built on
  the GPU (torch.device("cuda") as the default device, so that large inputs are drawn there);
  eager and torch.compile timed as bench/torch_baselines.py times (L2 flushed before each
  launch, CUDA events, median of --iters), once for each --settings (default: PyTorch's own
  defaults); timings are cached (--cache) by problem, setting, protocol, GPU and PyTorch version.
One record (bench/record.schema.json, kind benchmark) is written to OUT_DIR/DATE-NAME.json and
rewritten after every file, so that a run that is cut keeps what it measured; a table is
printed last. --time-limit S starts no file after S seconds. bench/kernelbench_search.py
searches each file first and times the search's best, scored per level as KernelBench scores.
"""
import argparse
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import make_record  # noqa: E402
from kernelbench_verify import SAVED_TRIALS, default_files, environment, kernelbench_file  # noqa: E402
from make_record import command_output  # noqa: E402
from torch_baselines import SETTINGS, L2Flusher, TimingCache, time_function  # noqa: E402


def schedule_for(problem_name, schedule, schedule_dir):
    """The -s argument for a problem: its file in `schedule_dir` when there is one, else `schedule`."""
    if schedule_dir:
        path = os.path.join(schedule_dir, problem_name + ".json")
        if os.path.isfile(path):
            return path
    return schedule


def tf32_flags(settings):
    """(matmul TF32, cuDNN TF32) a setting runs with; PyTorch's defaults are (False, True)."""
    flags = SETTINGS[settings]
    return flags if flags is not None else (False, True)


def cache_key(name, settings, args, gpu):
    return "|".join(str(x) for x in ("kernelbench-module", name, settings, args.seed, args.iters, args.warmup,
                                      not args.no_compile, gpu))


def run_cusched(args, path, name, strict=False, schedule=None, timed=True, save_io=None):
    """`cusched run` of one file at its bench size: the JSON reply with "problem" and "schedule" added.
    The schedule is `schedule` when given, else the file's in --schedule-dir or --schedule;
    timed=False verifies only (--no-time); save_io: a folder the verification trials' inputs and
    outputs are written to (--save-io)."""
    if schedule is None:
        schedule = schedule_for(name, args.schedule, args.schedule_dir)
    cmd = [args.cusched, "run", "-p", path, "-s", schedule, "--json", "--no-audit"] + (["--strict"] if strict else [])
    if timed:
        cmd.append("--per-launch")  # each kernel of a chain timed alone after the whole: the row's cusched_kernels
    if save_io:
        cmd += ["--save-io", save_io, "--save-io-trials", str(SAVED_TRIALS)]
    if not timed:
        cmd.append("--no-time")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        out = json.loads(p.stdout)
    except subprocess.TimeoutExpired:
        out = {"verdict": "timeout", "reason": "cusched run took over %d s" % args.timeout}
    except ValueError:
        out = {"verdict": None, "reason": "cusched run printed no JSON: %s" % (p.stderr or p.stdout)[-300:]}
    if "error" in out and "verdict" not in out:
        out = {"verdict": None, "reason": out["error"].get("message", str(out["error"]))}
    out["problem"], out["schedule"] = name, ("file" if schedule != args.schedule else schedule)
    return out


def load_model(torch, kernelbench, problem, seed):
    """The problem's module, built as KernelBench builds it (Model(*init_args) after torch.manual_seed(seed),
    in eval mode where the file says so), on the GPU, with the inputs of its own get_inputs(), both drawn
    with the GPU as the default device (the timings' values: the module check uses cusched's inputs)."""
    source = problem["source"]
    path = kernelbench_file(kernelbench, source["file"])
    spec = importlib.util.spec_from_file_location("kernelbench_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(seed)
    init = source.get("init_args")
    with torch.device("cuda"):  # parameters and inputs drawn on the GPU: a CPU draw of GBs takes seconds
        model = module.Model(*(init if init is not None else module.get_init_inputs())).cuda()
        inputs = [x.cuda() if hasattr(x, "cuda") else x for x in module.get_inputs()]
    if source.get("mode") == "eval":
        model.eval()
    return model, inputs


def launched_kernels(torch, fn, inputs, top=3):
    """The GPU kernels one call of `fn` launches, the `top` longest by their summed time: [{name, share}]
    (share: of the call's kernel time; names cut to 160 characters); [] where the profiler gives none."""
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            fn(*inputs)
            torch.cuda.synchronize()
        totals = {}
        for e in prof.events():
            if "CUDA" not in str(getattr(e, "device_type", "")):
                continue
            totals[e.name] = totals.get(e.name, 0.0) + float(e.time_range.elapsed_us())
    except Exception:  # a profiler that cannot run here leaves the names out, not the timings
        return []
    whole = sum(totals.values())
    longest = sorted(totals.items(), key=lambda kv: -kv[1])[:top]
    return [{"name": name[:160], "share": round(t / whole, 3)} for name, t in longest] if whole > 0 else []


def module_timings(torch, args, problem, flusher, cache):
    """PyTorch eager and torch.compile of the problem's module, one entry for each setting."""
    gpu = torch.cuda.get_device_name(0)
    entries = []
    for settings in args.settings:
        key = cache_key(problem["name"], settings, args, gpu)
        hit = cache.get(key, torch.__version__)
        if hit:
            entries.append(hit)
            continue
        matmul, cudnn = tf32_flags(settings)
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn
        model, inputs = load_model(torch, args.kernelbench, problem, args.seed)
        entry = {"problem": problem["name"], "settings": settings, "cudnn_allow_tf32": cudnn,
                 "matmul_allow_tf32": matmul, "torch": torch.__version__}
        with torch.no_grad():
            eager = time_function(torch, model, inputs, flusher, args.warmup, args.iters)
            entry.update(eager_ms=eager["median"], eager_min_ms=eager["min"], eager_max_ms=eager["max"],
                         eager_kernels=launched_kernels(torch, model, inputs))
            if not args.no_compile:
                compiled = torch.compile(model)
                done = time_function(torch, compiled, inputs, flusher, args.warmup, args.iters)
                entry.update(compile_ms=done["median"], compile_min_ms=done["min"], compile_max_ms=done["max"],
                             compile_kernels=launched_kernels(torch, compiled, inputs))
        del model, inputs
        torch.cuda.empty_cache()
        cache.put(key, torch.__version__, entry)
        entries.append(entry)
    return entries


WARM_MEMORY_FRACTION = 0.05  # of the GPU's memory, each torch.compile warm-up process


def compile_once(kernelbench, problem_path, seed, settings):
    """torch.compile of one problem's module, run once: fills torch.compile's on-disk caches, so that the
    timing process's own compile of the same module is a cache hit (warm_compiles runs these in parallel)."""
    import torch
    # A small share of the GPU's memory: warming runs beside the searches' evaluations, and a module too
    # large for it is compiled in the timing process instead.
    torch.cuda.set_per_process_memory_fraction(WARM_MEMORY_FRACTION)
    with open(problem_path) as f:
        problem = json.load(f)
    for s in settings:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = tf32_flags(s)
        model, inputs = load_model(torch, kernelbench, problem, seed)
        with torch.no_grad():
            torch.compile(model)(*inputs)
        torch.cuda.synchronize()


def warm_compiles(args, paths, jobs, seconds):
    """compile_once for each problem file in `paths`, in order, `jobs` processes at a time; whatever is still
    compiling after `seconds` is stopped (its module then compiles in the timing process)."""
    import concurrent.futures
    code = ("import sys; sys.path.insert(0, %r); import kernelbench_bench as kb; "
            "kb.compile_once(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:])" % HERE)
    deadline = time.time() + seconds

    def one(path):
        left = deadline - time.time()
        if left <= 0:
            return
        try:
            subprocess.run([sys.executable, "-c", code, args.kernelbench, path, str(args.seed)] + args.settings,
                           capture_output=True, timeout=left)
        except subprocess.TimeoutExpired:
            pass
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, paths))


def start_warming(torch, args, problems, cache):
    """warm_compiles in a background thread for the problems (path, problem) whose timings are not cached:
    the compiles run while the files before them are timed, so that each module's compile in the timing
    process finds its kernels built. Returns the thread (None when there is nothing to warm)."""
    import threading
    if args.no_compile or args.warm_jobs <= 0:
        return None
    gpu = torch.cuda.get_device_name(0)
    paths = [path for path, problem in problems
             if any(not cache.get(cache_key(problem["name"], s, args, gpu), torch.__version__) for s in args.settings)]
    if not paths:
        return None
    thread = threading.Thread(target=warm_compiles, args=(args, paths, args.warm_jobs, args.warm_seconds), daemon=True)
    thread.start()
    return thread


def launched_kernel_times(run, top=3):
    """The `top` longest kernels of a timed run of several kernels (`cusched run --per-launch`, each timed
    alone): [{name, ms, share}], share of their summed medians; [] for one kernel or none timed."""
    launches = [(l.get("kernel"), l.get("median_ms")) for l in ((run.get("gpu") or {}).get("launch_ms") or [])]
    launches = [(k, ms) for k, ms in launches if k and isinstance(ms, (int, float)) and ms > 0]
    total = sum(ms for _, ms in launches)
    if len(launches) < 2 or total <= 0:
        return []
    launches.sort(key=lambda kv: -kv[1])
    return [{"name": k, "ms": round(ms, 4), "share": round(ms / total, 4)} for k, ms in launches[:top]]


def result_row(run, strict_run, timings, tolerance=None):
    """One record result: make_record's row of a cusched run and its PyTorch timings (tolerance: the one the
    run verified at, where below 1e-2)."""
    row = make_record.result(run, strict_run, timings, None, tolerance)
    kernels = launched_kernel_times(run)
    if kernels:
        row["cusched_kernels"] = kernels
    notes = []
    if run.get("reason") and run.get("verdict") != "ok":
        notes.append(str(run["reason"])[:300])
    if strict_run and strict_run.get("verdict") not in ("ok", "under_floor"):
        # why the 1e-4 verification failed: a wrong output, a timeout, a run without JSON
        strict = "1e-4 run: %s" % (strict_run.get("verdict") or "no verdict")
        notes.append(strict + (": " + str(strict_run["reason"])[:200] if strict_run.get("reason") else ""))
    if notes:
        row["note"] = "; ".join(notes)[:300]
    return row


def summary_lines(rows):
    head = "%-64s %-14s %10s %10s %10s %8s" % ("problem", "verdict", "cusched ms", "eager ms", "compile ms", "speedup")
    out = [head, "-" * len(head)]
    for r in rows:
        t = (r.get("pytorch") or [{}])[0]
        ours = r["cusched_ms"]["median"]
        theirs = [x for x in (t.get("eager_ms"), t.get("compile_ms")) if x]
        speedup = "%.2fx" % (min(theirs) / ours) if ours and theirs and r["verdict"] in ("ok", "under_floor") else "-"
        out.append("%-64s %-14s %10s %10s %10s %8s" % (
            r["problem"][:64], r["verdict"], "%.4f" % ours if ours else "-",
            "%.4f" % t["eager_ms"] if t.get("eager_ms") else "-",
            "%.4f" % t["compile_ms"] if t.get("compile_ms") else "-", speedup))
    return out


def build_parser(description):
    """The options of a timing run (bench/kernelbench_search.py adds its own to them)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("files", nargs="*", help="problem files (default: problems/kernelbench/**/*.json)")
    p.add_argument("--kernelbench", required=True, help="a KernelBench checkout (its root or KernelBench/)")
    built = os.path.join(ROOT, "build", "tools", "cusched")
    p.add_argument("--cusched", default=command_output(["sh", "-c", "command -v cusched"]) or built)
    p.add_argument("--schedule", default="baseline", help="baseline or best (default baseline)")
    p.add_argument("--schedule-dir", default=None, help="folder of <problem name>.json schedules, used first")
    p.add_argument("--settings", nargs="+", default=["default"], choices=sorted(SETTINGS),
                   help="PyTorch settings to time, each its own column (default: PyTorch's defaults)")
    p.add_argument("--no-compile", action="store_true", help="time PyTorch eager only")
    p.add_argument("--strict", action="store_true", help="also verify each kernel at the strict 1e-4 tolerance")
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--timeout", type=int, default=600, help="seconds per cusched run")
    p.add_argument("--time-limit", type=int, default=0, help="seconds after which no further file starts")
    p.add_argument("--cache", default=os.path.join(HERE, "pytorch_cache.json"))
    p.add_argument("--name", default="kernelbench-bench")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    p.add_argument("--prediction", default=None)
    p.add_argument("--warm-jobs", type=int, default=4,
                   help="processes compiling the modules with torch.compile ahead of their timings, in the background, "
                        "to fill its on-disk caches (default 4; 0: none)")
    p.add_argument("--warm-seconds", type=int, default=1800, help="time allowed for those compiles (default 1800)")
    return p


def parse_args(argv):
    p = build_parser(__doc__.split("\n\n")[0])
    args = p.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.name):
        p.error("--name must be lower-case letters, digits and '-'")
    return args


def main(argv):
    args = parse_args(argv)
    files = args.files or default_files()
    import torch
    started = datetime.datetime.now(datetime.timezone.utc)
    deadline = time.time() + args.time_limit if args.time_limit else None
    flusher, cache = L2Flusher(torch), TimingCache(args.cache)
    commit = make_record.commit()
    env = environment(torch.__version__, torch.cuda.get_device_name(0), torch.version.cuda)
    path = os.path.join(args.out_dir, "%s-%s.json" % (started.strftime("%Y-%m-%d"), args.name))
    rows = []
    problems = []
    for f in files:
        with open(f) as fh:
            problems.append((f, json.load(fh)))
    start_warming(torch, args, problems, cache)
    for f, problem in problems:
        if deadline and time.time() > deadline:
            break
        run = run_cusched(args, f, problem["name"])
        strict = run_cusched(args, f, problem["name"], strict=True) if args.strict else None
        try:
            timings = module_timings(torch, args, problem, flusher, cache)
        except Exception as e:  # the module failed to build or run: the row says so, the run goes on
            timings = []
            run["reason"] = "PyTorch: %s: %s" % (type(e).__name__, e)
        rows.append(result_row(run, strict, timings))
        print(json.dumps({"problem": problem["name"], "verdict": run.get("verdict"),
                          "cusched_ms": rows[-1]["cusched_ms"]["median"],
                          "pytorch": rows[-1].get("pytorch")}), flush=True)
        record = {
            "schema_version": 1, "date": started.strftime("%Y-%m-%d"), "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "name": args.name, "title": "KernelBench problem files: cusched against the PyTorch modules",
            "kind": "benchmark", "commit": commit,
            "environment": env, "command": "python3 bench/kernelbench_bench.py " + " ".join(argv),
            "prediction": args.prediction, "results": rows,
            "notes": "%d of %d files; schedule %s%s; PyTorch settings %s; the module on its own get_inputs() at "
                     "KernelBench's shapes, cusched at the file's bench size." % (
                         len(rows), len(files), args.schedule,
                         " (or the file in --schedule-dir)" if args.schedule_dir else "", ", ".join(args.settings)),
        }
        make_record.write_record(record, args.out_dir)
    print("\n".join(summary_lines(rows)))
    print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
