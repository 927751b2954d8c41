#!/usr/bin/env python3
"""KernelBench problem files searched on a GPU: the built-in search's best kernel of each file, verified
against its PyTorch module and timed against eager and torch.compile, scored as KernelBench scores.

usage: kernelbench_search.py --kernelbench DIR [FILE ...] [--search-candidates N] [--search-seconds S]
                             [--search-threads T] [--search-rounds R] [--work DIR] [--max-gib G]
                             [the options of bench/kernelbench_bench.py]

For each problem file (default: problems/kernelbench/level1/*.json and level2/*.json), one at a time:
1. `cusched search -p FILE --proposer builtin --budget-candidates N --budget-minutes S/60 --threads T
   --no-audit --stall-rounds 0 --sanitize-seconds 30 --db WORK/<name>.db --json`, killed after S + 120 s;
   the search times its candidates on the GPU, so no two searches run at once and each has every core
   (T, default all).
2. The best verified candidate of the run, read from the store, is written as a schedule file
   (--schedule-dir, default WORK/schedules/<name>.json) that `cusched run -s` takes. Where the
   search verified nothing the baseline stands in, and the row says which was timed.
3. That schedule is timed as bench/kernelbench_bench.py times it (`cusched run`, verified against
   the float64 reference): a kernel in f32 or 3xtf32 verifying at 1e-4 (--strict, which implies 1e-2;
   timed again at 1e-2 only where that fails), a lower-precision one at 1e-2 (not verified at 1e-4,
   which KernelBench's 1e-4 rule does not admit it to).
4. It is checked against the module as bench/kernelbench_verify.py checks a file: the module on the
   inputs the timed run saved (--save-io) with TF32 off, both outputs compared at 1e-2 and 1e-4;
   where the working set exceeds --max-gib, a `cusched run --save-io` of its own at a reduced shape.
5. PyTorch eager and torch.compile are timed at PyTorch's defaults (cached by PyTorch version).
6. Where the best verified candidate computes in a lower precision (tf32, bf16, f16) than KernelBench's
   1e-4 rule admits, the fastest f32 or 3xtf32 candidate of the same search (--schedule-dir,
   <name>.strict.json) is timed, verified and checked as in 3 and 4 too: the row's `strict_kernel`,
   which the scores at 1e-4 take.
Each row's search entry has `steps_s`, the wall seconds of each step above, and `timed_run_phase_s` and
`strict_kernel_phase_s`, where the `cusched run`s of steps 3 and 6 spent theirs (compile, reference, ...). One record
(bench/record.schema.json, kind benchmark) is written to OUT_DIR/DATE-NAME.json after every file, with a `search` entry per row and the KernelBench-style `summary` per level (level_summary);
--time-limit S starts no file after S seconds, and the files not started count as failures.
docs/kernelbench.md, "Searching KernelBench", describes the run and the summary.
"""
import concurrent.futures
import contextlib
import datetime
import fcntl
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from argparse import Namespace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import kernelbench_bench as kb  # noqa: E402
import kernelbench_verify as kv  # noqa: E402
import make_record as records  # noqa: E402
from kernelbench_verify import default_files  # noqa: E402
from kernelbench_scores import (STRICT_PRECISIONS, VERIFIED, budget_of, correct, level_file_counts,  # noqa: E402,F401
                                level_summary, merged_search_rows, not_run, row_level, speedup)
from search_store import (PHASES, cost_rank, phase_seconds, ranks, run_phase_seconds, sanitizer_entry,  # noqa: E402,F401
                          spearman, store_best)
from torch_baselines import L2Flusher, TimingCache  # noqa: E402

SEARCH_GRACE_S = 120  # a search is killed this long after its time budget (times --parallel: it waits its turns)


def search_limit(args):
    """Seconds after which a search is killed: its budget and the grace, the grace once per file under way,
    since with --parallel its evaluations wait for their turns on the GPU."""
    return args.search_seconds + SEARCH_GRACE_S * getattr(args, "parallel", 1)


# ---------------------------------------------------------------------------- the search

def search_rounds(candidates, per_round=16):
    """Rounds enough for the candidate budget (the built-in proposer's rounds are --ideas 4 x
    --per-idea 4), four times over for rounds that repeat candidates already tried."""
    return max(8, 4 * -(-candidates // per_round))


def search_command(args, path, db):
    """The `cusched search` command line of one file."""
    return [args.cusched, "search", "-p", path, "--proposer", "builtin",
            "--rounds", str(args.search_rounds or search_rounds(args.search_candidates)),
            "--budget-candidates", str(args.search_candidates),
            "--budget-minutes", "%.6g" % (args.search_seconds / 60.0),
            "--threads", str(args.search_threads), "--no-audit", "--stall-rounds", "0",
            "--sanitize-seconds", "%g" % args.sanitize_seconds, "--db", db, "--json"]


def run_killable(cmd, timeout):
    """Runs `cmd` in a process group of its own: (stdout, stderr, exit status), the status None where the
    whole group (the search and its GPU workers) was killed after `timeout` seconds."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return out, err, p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return out, err, None


def write_schedule(target, schedule):
    """Writes `schedule` to `target` (removing a file of an earlier run first); the path, or None for
    no schedule."""
    if os.path.exists(target):
        os.remove(target)  # a schedule of an earlier run is never timed in this one's name
    if schedule is None:
        return None
    with open(target, "w") as f:
        json.dump(schedule, f, indent=1)
    return target


def run_search(args, path, name, level):
    """Searches one file; returns (the row's `search` entry, the schedule file to time or None, the
    schedule file of the fastest f32 or 3xtf32 candidate where the fastest is of a lower precision (the
    kernel KernelBench's 1e-4 rule scores) or None, a note)."""
    db = os.path.join(args.work, name + ".db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    cmd = search_command(args, path, db)
    summary, note = {}, ""
    started = time.time()
    try:
        out, err, code = run_killable(cmd, search_limit(args))
        with open(os.path.join(args.work, name + ".search.log"), "w") as f:
            f.write(err)
        if code is None:
            note = "search killed after %d s" % search_limit(args)
        else:
            try:
                summary = json.loads(out)
            except ValueError:
                note = "search exited %d without JSON: %s" % (code, (err or out)[-300:])
            if summary.get("error"):
                note = "search: %s" % summary["error"].get("message", summary["error"])
    except OSError as e:
        note = "search could not run: %s" % e
    wall = time.time() - started
    best = strict_best = None
    if os.path.exists(db):
        try:
            best = store_best(db, summary.get("run"))
            strict_best = store_best(db, summary.get("run"), STRICT_PRECISIONS)
            if best:
                best["cost_rank"] = cost_rank(db, best["run"])
                best["phase_s"] = phase_seconds(db, best["run"])
        except sqlite3.Error as e:
            note = (note + "; " if note else "") + "store unreadable: %s" % e
    entry = search_entry(args, level, summary, best, wall)
    schedule = write_schedule(os.path.join(args.schedule_dir, name + ".json"), (best or {}).get("schedule"))
    if schedule is None and not note:
        note = "the search verified no candidate: the baseline is timed"
    separate = strict_best and strict_best["candidate"] not in (None, (best or {}).get("candidate"))
    strict_schedule = write_schedule(os.path.join(args.schedule_dir, name + ".strict.json"),
                                     strict_best["schedule"] if separate else None)
    return entry, schedule, strict_schedule, note


def search_entry(args, level, summary, best, wall, timed_nothing=False):
    """A row's `search` entry from the search's JSON summary and its store (timed_nothing: a file
    the run left out)."""
    best = best or {}
    evaluated = summary.get("evaluated", best.get("evaluated")) or 0
    return {
        "level": level,
        "candidates": args.search_candidates,
        "seconds": args.search_seconds,
        "threads": args.search_threads,
        "evaluated": evaluated,
        "verified": summary.get("verified", best.get("verified")) or 0,
        "wall_s": round(wall, 1),
        "candidates_per_minute": round(evaluated * 60.0 / wall, 2) if wall > 0 else None,
        "status": summary.get("status") or ("killed" if wall >= search_limit(args) else "failed"),
        "timed": "search" if best.get("schedule") is not None else "none" if timed_nothing else "baseline",
        "best_is_baseline": bool(best.get("best_is_baseline")),
        "problem_class": summary.get("problem_class"),
        "cost_rank": best.get("cost_rank"),
        "phase_s": best.get("phase_s"),
        "sanitizer": best.get("sanitizer"),
        "best_schedule": best.get("schedule"),
        "best_idea": best.get("idea"),
        "best_ms": best.get("best_ms"),
        "baseline_ms": best.get("baseline_ms"),
    }


# ---------------------------------------------------------------------------- against the module

def module_check_run(args, path, schedule, timed=None):
    """The `cusched run` half of bench/kernelbench_verify.py's check of one schedule, run in a file's worker
    thread: (job, disk budget, a done future holding the run's reply, reason and folder). `timed`: (the timed
    run's reply, the folder it saved its inputs and outputs to) where the timed run saved them, which the
    check then reads instead of running the schedule again at its reduced shape."""
    job = dict(kv.plan(path, int(args.max_gib * kv.GIB)), index=0, schedule=schedule or "baseline", time=False)
    budget = kv.DiskBudget(job["disk"])
    done = concurrent.futures.Future()
    if timed is not None and timed[1] and not job["reduced"]:
        budget.acquire(job["disk"], job["index"])
        done.set_result((timed[0], "" if timed[0].get("verdict") else timed[0].get("reason", ""), timed[1]))
    else:
        done.set_result(kv.run_cusched(args.cusched, job, args.work, args.timeout, budget))
    return job, budget, done


def module_check(args, prepared, modules, lock=None):
    """The module half of the check (module_check_run's result): the module runs on the saved inputs with the
    GPU to itself and is compared; its `pytorch_match` entry and the reason where it did not compare."""
    job, budget, done = prepared
    with gpu_turn(lock):
        outcome = kv.verify_one(job, done, Namespace(kernelbench=args.kernelbench, seed=args.seed, budget=budget),
                                modules)
    return kv.result_row(job["problem"]["name"], outcome)["pytorch_match"], outcome.get("reason")


def io_folder(args, path, name):
    """A fresh folder for the timed run's saved inputs and outputs where the module check runs at the bench
    size (the timed run's size), else None (the check runs at its reduced shape on its own)."""
    if kv.plan(path, int(args.max_gib * kv.GIB))["reduced"]:
        return None
    return tempfile.mkdtemp(prefix=name + ".", dir=args.work)


def admits_strict(schedule):
    """Whether a schedule file (None: the baseline) computes in f32 or 3xtf32, the precisions KernelBench's
    1e-4 rule admits: none of its tensor_core or precision steps asks for a lower one."""
    if not schedule:
        return True
    with open(schedule) as f:
        steps = json.load(f)
    for st in steps if isinstance(steps, list) else []:
        if st.get("op") == "tensor_core" and st.get("precision") not in STRICT_PRECISIONS:
            return False
        if st.get("op") == "precision" and st.get("operands", "f32") not in STRICT_PRECISIONS:
            return False
    return True


def strict_is_tighter(path):
    """Whether the problem file's strict tolerances are no looser than its normal ones (the defaults are
    1e-4 and 1e-2), so that a kernel verified at the strict one is verified at the normal one too."""
    with open(path) as f:
        t = json.load(f).get("tolerance") or {}
    return (t.get("strict_atol", 1e-4) <= t.get("atol", 1e-2)) and (t.get("strict_rtol", 1e-4) <= t.get("rtol", 1e-2))


def timed_and_strict(args, path, name, schedule, save_io=None):
    """A schedule's timed run and its verification at 1e-4 in as few `cusched run`s as the verdicts allow:
    (the timed run, the strict run or None, the tolerance the timed run verified at or None). A kernel in
    f32 or 3xtf32 is timed verifying at 1e-4, which implies 1e-2, and timed again at 1e-2 only where that
    fails; a lower-precision kernel, which the 1e-4 rule does not admit, is timed at 1e-2 and not verified
    at 1e-4 (its verified["1e-4"] is None). save_io: the folder every run writes its verification trials'
    inputs and outputs to (the last run's stay)."""
    if admits_strict(schedule):
        strict = kb.run_cusched(args, path, name, strict=True, schedule=schedule or "baseline", save_io=save_io)
        if strict.get("verdict") in VERIFIED and strict_is_tighter(path):
            return strict, None, 1e-4
        return kb.run_cusched(args, path, name, schedule=schedule or "baseline", save_io=save_io), strict, None
    return kb.run_cusched(args, path, name, schedule=schedule or "baseline", save_io=save_io), None, None


def strict_kernel_entry(run, strict, tolerance, match):
    """A row's `strict_kernel`: the timed run, verdicts, precision and module check of the fastest f32 or
    3xtf32 candidate, which the 1e-4 scores take where the row's kernel is of a lower precision."""
    row = kb.result_row(run, strict, [], tolerance)
    entry = {k: row[k] for k in ("cusched_ms", "verdict", "verified", "pct_of_floor", "precision", "math") if k in row}
    entry["schedule"] = "search"
    entry["pytorch_match"] = match
    return entry


def search_row(run, strict, timings, match, entry, note="", tolerance=None):
    """One record result: kernelbench_bench's row of the timed run with the module check and the search."""
    row = kb.result_row(run, strict, timings, tolerance)
    row["schedule"] = entry["timed"]
    row["pytorch_match"] = match
    row["matches_pytorch"] = None if match["1e-2"] is None else ("pass" if match["1e-2"] else "fail")
    row["search"] = entry
    notes = [n for n in (note, row.get("note")) if n]
    if notes:
        row["note"] = "; ".join(notes)[:300]
    return row


def not_run_row(name, level, args):
    """The row of a file that the --time-limit left out: a failure in the summary."""
    entry = search_entry(args, level, {"status": "not_run"}, None, 0.0, timed_nothing=True)
    match = {"status": "not_run", "1e-2": None, "1e-4": None, "max_abs_err": None, "max_rel_err": None,
             "sizes": {}, "reduced": False}
    row = search_row({"problem": name, "verdict": None}, None, [], match, entry, "not run: the --time-limit had passed")
    row["verified"] = {"1e-2": None, "1e-4": None}
    row.pop("precision", None)
    row.pop("math", None)
    return row


# ---------------------------------------------------------------------------- the summary

def skip_recorded(files, directory, budget):
    """The files whose problem has no row of `budget` (None: of any budget, --skip-recorded-any) whose
    kernel verified in the records of `directory` (--skip-recorded): a file whose latest row failed (a
    crash, a timeout, out of memory) runs again."""
    from record_cells import load_records
    done = {r["problem"] for r in merged_search_rows(load_records(directory), budget) if r.get("verdict") in VERIFIED}
    kept = []
    for f in files:
        with open(f) as fh:
            if json.load(fh)["name"] not in done:
                kept.append(f)
    print("%d of %d files have a verified row of %s in %s and are left out" % (
        len(files) - len(kept), len(files), "this budget" if budget else "some budget", directory), flush=True)
    return kept


def summary_lines(summary):
    out = []
    for e in summary["levels"]:
        for t in ("1e-2", "1e-4"):
            s = e[t]
            out.append("level %s at %s: %d of %d correct, fast_1 %d (%.0f%%), fast_2 %d (%.0f%%), geomean %s" % (
                e["level"], t, s["correct"], e["problems"], s["faster"], 100 * s["fast_1"], s["faster_2x"],
                100 * s["fast_2"], "%.2fx" % s["geomean_speedup"] if s["geomean_speedup"] else "-"))
    return out


# ---------------------------------------------------------------------------- running

class StepTimeout(Exception):
    pass


class time_limit:
    """Raises StepTimeout in the main thread once `seconds` pass inside the block (SIGALRM)."""

    def __init__(self, seconds):
        self.seconds = int(seconds)

    def __enter__(self):
        def expired(signum, frame):
            raise StepTimeout("over %d s" % self.seconds)
        self.previous = signal.signal(signal.SIGALRM, expired)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.previous)
        return False


def gpu_lock_base(args):
    """With --parallel above 1, the GPU lock's path (CUSCHED_GPU_LOCK, set for the `cusched` processes too:
    runtime/gpu_lock.h); None otherwise. The `cusched` processes then also get CUSCHED_GPU_SHARE, 1 / (P + 1)
    of the GPU's memory each (the trial caches they keep between turns), the rest left to this process's
    module checks and PyTorch timings."""
    if args.parallel == 1:
        return None
    os.environ.setdefault("CUSCHED_GPU_LOCK", os.path.join(os.path.abspath(args.work), "gpu.lock"))
    os.environ.setdefault("CUSCHED_GPU_SHARE", "%.4f" % (1.0 / (args.parallel + 1)))
    return os.environ["CUSCHED_GPU_LOCK"]


@contextlib.contextmanager
def gpu_turn(base, device=0):
    """Holds the GPU lock of `device` (the file "<base>.<device>", as `cusched` names it) for the block; nothing
    when `base` is None."""
    if base is None:
        yield
        return
    with open("%s.%d" % (base, device), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def progress(name, text):
    """One line of progress on stderr, with the UTC time: a run cut short shows the step it was in."""
    print("%s %s: %s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S"), name, text),
          file=sys.stderr, flush=True)


def parse_args(argv):
    p = kb.build_parser(__doc__.split("\n\n")[0])
    p.set_defaults(name="kernelbench-search", strict=True)
    p.add_argument("--search-candidates", type=int, default=40, help="candidates per search (default 40)")
    p.add_argument("--search-seconds", type=float, default=60, help="seconds per search (default 60)")
    p.add_argument("--search-threads", type=int, default=os.cpu_count() or 4,
                   help="CPU threads of each search (default: every core)")
    p.add_argument("--sanitize-seconds", type=float, default=30,
                   help="each compute-sanitizer tool's limit on the search's best (default 30; its evaluation holds "
                        "the GPU lock the other files wait for)")
    p.add_argument("--search-rounds", type=int, default=0,
                   help="rounds of each search (default: enough for the candidate budget four times over)")
    p.add_argument("--work", default=os.path.join("/tmp", "kernelbench-search"),
                   help="the searches' stores and logs, and the saved .npy files of the module checks")
    p.add_argument("--skip-recorded", default=None, metavar="DIR",
                   help="leave out the files whose problem has a row of this budget in the records of DIR (e.g. "
                        "bench/results): a run continues where earlier ones stopped")
    p.add_argument("--skip-recorded-any", action="store_true",
                   help="with --skip-recorded: leave out the files with a verified row of any budget (a broad pass "
                        "that puts a row on every file first)")
    p.add_argument("--parallel", type=int, default=1,
                   help="files whose searches and timed runs are under way at once (default 1); above 1 every "
                        "evaluation and PyTorch step takes turns on the GPU through CUSCHED_GPU_LOCK")
    p.add_argument("--max-gib", type=float, default=0.25,
                   help="working set above which the module check runs at a reduced shape (default 0.25: the "
                        "saved .npy files cost seconds per GB)")
    args = p.parse_args(argv)
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.name):
        p.error("--name must be lower-case letters, digits and '-'")
    if args.search_candidates < 1 or args.search_seconds <= 0 or not 1 <= args.search_threads <= 256:
        p.error("--search-candidates must be 1 or more, --search-seconds above 0, --search-threads 1 to 256")
    if not 1 <= args.parallel <= 16:
        p.error("--parallel must be 1 to 16")
    args.schedule_dir = args.schedule_dir or os.path.join(args.work, "schedules")
    return args


def budget_text(args):
    return ("Search budget per problem: %d candidates or %g s (`cusched search --proposer builtin --budget-candidates "
            "%d --budget-minutes %.6g --threads %d --no-audit --stall-rounds 0`, killed after %d s), %s." % (
                args.search_candidates, args.search_seconds, args.search_candidates, args.search_seconds / 60.0,
                args.search_threads, search_limit(args),
                "one search at a time" if args.parallel == 1 else
                "%d files under way at once, each evaluation and PyTorch step with the GPU to itself (CUSCHED_GPU_LOCK)"
                % args.parallel))


def make_record(rows, files, args, argv, started, commit, env, summary):
    lines = summary_lines(summary)
    return {
        "schema_version": 1, "date": started.strftime("%Y-%m-%d"), "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "name": args.name, "title": "KernelBench: the built-in search's kernels against the PyTorch modules",
        "kind": "benchmark", "commit": commit,
        "environment": env, "command": "python3 bench/kernelbench_search.py " + " ".join(argv),
        "prediction": args.prediction, "results": rows, "summary": summary,
        "notes": "%s %d of %d files searched. Each row times the search's best verified schedule (or the baseline "
                 "where the search verified none) at the file's bench size; verified by cusched against its float64 "
                 "reference at 1e-2 and 1e-4, and against the module (TF32 off) on its saved inputs at 1e-2 and "
                 "1e-4. PyTorch settings %s, the module on its own get_inputs(); torch.compile's caches are filled "
                 "ahead of each timing by %d background processes (--warm-jobs), which launch once per module.\n\n%s" % (
                     budget_text(args), sum(1 for r in rows if not not_run(r)),
                     len(files), ", ".join(args.settings), args.warm_jobs, "\n".join("- " + x for x in lines)),
    }


class Steps:
    """The wall seconds of a file's steps (a row's `steps_s`), each logged as it ends."""

    def __init__(self, name):
        self.name, self.seconds, self.mark = name, {}, time.time()

    def done(self, step):
        self.seconds[step] = round(time.time() - self.mark, 1)
        self.mark = time.time()
        progress(self.name, "%s done in %.1f s" % (step, self.seconds[step]))

    def restart(self):
        self.mark = time.time()


def searched_and_timed(args, f, name, level):
    """The steps of one file that run as `cusched` processes (1-3, and 6's timed runs): the search, the timed
    run of its best schedule and of the fastest f32 / 3xtf32 one. A dict for finish_file."""
    steps = Steps(name)
    entry, schedule, strict_schedule, note = run_search(args, f, name, level)
    steps.done("search")
    io = io_folder(args, f, name)
    run, strict, tolerance = timed_and_strict(args, f, name, schedule, io)
    steps.done("timed_run")
    entry["timed_run_phase_s"] = run_phase_seconds(run, strict)
    check = module_check_run(args, f, schedule, (run, io))
    steps.done("module_check_run")
    strict_timed = strict_check = None
    if strict_schedule:
        strict_io = io_folder(args, f, name)
        strict_timed = timed_and_strict(args, f, name, strict_schedule, strict_io)
        entry["strict_kernel_phase_s"] = run_phase_seconds(strict_timed[0], strict_timed[1])
        steps.done("strict_kernel")
        strict_check = module_check_run(args, f, strict_schedule, (strict_timed[0], strict_io))
        steps.done("strict_module_check_run")
    return dict(entry=entry, schedule=schedule, strict_schedule=strict_schedule, note=note, run=run, strict=strict,
                tolerance=tolerance, strict_timed=strict_timed, check=check, strict_check=strict_check, steps=steps)


def finish_file(args, f, problem, done, modules, torch, flusher, cache, lock):
    """The steps of one file that run in this process (4 and 5: the module checks and PyTorch's timings), each
    with the GPU to itself (`lock`), after searched_and_timed's: the file's record row."""
    name, entry, note, steps = problem["name"], done["entry"], done["note"], done["steps"]
    run, strict, tolerance = done["run"], done["strict"], done["tolerance"]
    steps.restart()
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False  # the module check's setting
    match, reason = module_check(args, done["check"], modules, lock)
    steps.done("module_check")
    if reason and match["status"] != "compared":
        note = (note + "; " if note else "") + "module check: " + reason
    strict_kernel = None
    if done["strict_timed"]:
        strict_match, strict_reason = module_check(args, done["strict_check"], modules, lock)
        strict_kernel = strict_kernel_entry(*done["strict_timed"], strict_match)
        if strict_reason and strict_match["status"] != "compared":
            note = (note + "; " if note else "") + "module check of the f32 / 3xtf32 kernel: " + strict_reason
        steps.done("strict_module_check")
    try:
        with time_limit(args.timeout), gpu_turn(lock):
            timings = kb.module_timings(torch, args, problem, flusher, cache)
    except Exception as e:  # the module failed to build or run, or ran out of time: the row says so
        timings = []
        note = (note + "; " if note else "") + "PyTorch: %s: %s" % (type(e).__name__, e)
    steps.done("pytorch")
    entry["steps_s"] = steps.seconds
    row = search_row(run, strict, timings, match, entry, note, tolerance)
    if strict_kernel:
        row["strict_kernel"] = strict_kernel
    print(json.dumps({"problem": name, "schedule": row["schedule"], "verdict": row["verdict"],
                      "cusched_ms": row["cusched_ms"]["median"], "module": [match["1e-2"], match["1e-4"]],
                      "speedup": speedup(row), "evaluated": entry["evaluated"], "search_s": entry["wall_s"]}),
          flush=True)
    return row


def main(argv):
    args = parse_args(argv)
    files = args.files or default_files()
    if args.skip_recorded:
        files = skip_recorded(files, args.skip_recorded,
                              None if args.skip_recorded_any else (args.search_candidates, args.search_seconds))
    problems = []
    for f in files:
        with open(f) as fh:
            problem = json.load(fh)
        problems.append((f, problem, str(problem.get("level") or row_level({"problem": problem["name"]}))))
    requested = {}
    for _, _, level in problems:
        requested[level] = requested.get(level, 0) + 1
    import torch
    os.makedirs(args.schedule_dir, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    deadline = time.time() + args.time_limit if args.time_limit else None
    flusher, cache = L2Flusher(torch), TimingCache(args.cache)
    commit = records.commit()
    env = kv.environment(torch.__version__, torch.cuda.get_device_name(0), torch.version.cuda)
    path = os.path.join(args.out_dir, "%s-%s.json" % (started.strftime("%Y-%m-%d"), args.name))
    rows, modules = [], {}
    kb.start_warming(torch, args, [(f, problem) for f, problem, _ in problems], cache)
    lock = gpu_lock_base(args)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.parallel) as pool:
        pending, index = [], 0
        while pending or index < len(problems):
            # Up to --parallel files have their searches and timed runs under way while this thread checks
            # and times the modules of the earliest; one file at a time without --parallel.
            while index < len(problems) and len(pending) < args.parallel:
                if deadline and time.time() > deadline:
                    rows += [not_run_row(p["name"], lv, args) for _, p, lv in problems[index:]]
                    index = len(problems)
                    break
                f, problem, level = problems[index]
                progress(problem["name"], "started (file %d of %d)" % (index + 1, len(problems)))
                pending.append((problems[index], pool.submit(searched_and_timed, args, f, problem["name"], level)))
                index += 1
            if not pending:
                break
            (f, problem, level), future = pending.pop(0)
            rows.append(finish_file(args, f, problem, future.result(), modules, torch, flusher, cache, lock))
            summary = level_summary(rows, requested)
            records.write_record(make_record(rows, files, args, argv, started, commit, env, summary), args.out_dir)
    summary = level_summary(rows, requested)
    records.write_record(make_record(rows, files, args, argv, started, commit, env, summary), args.out_dir)
    print("\n".join(kb.summary_lines(rows)))
    print("\n".join(summary_lines(summary)))
    print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
