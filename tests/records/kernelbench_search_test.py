"""The parts of bench/kernelbench_search.py that need no GPU and no PyTorch: the search command line,
the best schedule read from a search store, a search run through a stand-in cusched (its schedule
file, its row entry, the fallback to the baseline, a search killed past its time), the module check
of the timed schedule, the rows and the KernelBench summary per level (worked by hand below), the
record's schema and its tables."""
import contextlib
import io
import json
import os
import stat
import sys
import tempfile
import textwrap
import time
import unittest
from argparse import Namespace

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_search as kbs  # noqa: E402
import kernelbench_tables  # noqa: E402
import make_tables  # noqa: E402
from record_schema import schema_errors  # noqa: E402

RELU = os.path.join(ROOT, "problems", "kernelbench", "level1", "19_ReLU.json")

# A stand-in for cusched: `search` writes a store with three candidates (the baseline at 2.0 ms in
# f32, a better schedule at 1.5 ms in FAKE_BEST_PRECISION, default tf32, one that failed) and prints
# the summary; FAKE_MODE=none verifies nothing, FAKE_MODE=hang writes the store and then outlives its
# time; `run` prints FAKE_RUN (FAKE_STRICT_RUN with --strict, where set), writes its arguments to
# FAKE_ARGS and appends them to FAKE_ARGS.all.
FAKE = textwrap.dedent('''\
    #!%s
    import json, os, sqlite3, sys, time
    argv = sys.argv[1:]
    if argv[0] == "run":
        open(os.environ["FAKE_ARGS"], "w").write(json.dumps(argv))
        open(os.environ["FAKE_ARGS"] + ".all", "a").write(json.dumps(argv) + "\\n")
        strict_run = os.environ.get("FAKE_STRICT_RUN")
        print(strict_run if strict_run and "--strict" in argv else os.environ.get("FAKE_RUN", '{"verdict": "ok"}'))
        sys.exit(0)
    db = argv[argv.index("--db") + 1]
    mode = os.environ.get("FAKE_MODE", "")
    con = sqlite3.connect(db)
    con.executescript("""
      CREATE TABLE runs (id INTEGER PRIMARY KEY, problem TEXT);
      CREATE TABLE candidates (id INTEGER PRIMARY KEY, run INTEGER, schedule TEXT, schedule_hash TEXT, idea INTEGER);
      CREATE TABLE ideas (id INTEGER PRIMARY KEY, text TEXT);
      INSERT INTO ideas VALUES (1, 'the baseline'), (2, 'tiles of 256');
      CREATE TABLE evaluations (id INTEGER PRIMARY KEY, candidate INTEGER, verified INTEGER, median_ms REAL,
                                precision TEXT, cost_estimate REAL, result TEXT);
      INSERT INTO runs VALUES (1, 'kb1_19_ReLU');
      INSERT INTO candidates VALUES (1, 1, '[{"op": "baseline"}]', 'a', 1), (2, 1, '[{"op": "tile", "size": 256}]', 'b', 2),
                                    (3, 1, '[{"op": "bad"}]', 'c', 2);
    """)
    ok = 0 if mode == "none" else 1
    sanitizer = json.dumps({"sanitizer": {"clean": False, "runs": [{"tool": "memcheck", "errors": 0},
                                                                  {"tool": "racecheck", "errors": 3}]},
                            "gpu": {"phase_ms": {"compile": 1500.0, "timing": 250.0}}})
    best_precision = os.environ.get("FAKE_BEST_PRECISION", "tf32")
    con.executemany("INSERT INTO evaluations(candidate, verified, median_ms, precision, cost_estimate, result) "
                    "VALUES (?, ?, ?, ?, ?, ?)", [(1, ok, 2.0, "f32", 3.0, "{}"), (2, ok, 1.5, best_precision, 1.0, sanitizer),
                                                  (3, 0, None, "f32", 0.5, None)])
    con.commit()
    if mode == "hang":
        time.sleep(30)
    print(json.dumps({"ok": bool(ok), "store": db, "run": 1, "status": "budget_spent", "evaluated": 3,
                      "problem_class": "pointwise",
                      "verified": 2 * ok, "best_candidate": 2 if ok else None}, indent=2))
    sys.exit(5)
''') % sys.executable


def search_args(work, cusched="cusched", **kw):
    a = Namespace(cusched=cusched, search_candidates=40, search_seconds=60.0, search_threads=16, search_rounds=0,
                  work=work, schedule_dir=os.path.join(work, "schedules"), max_gib=6.0, timeout=60,
                  kernelbench=work, seed=42, settings=["default"], prediction=None, name="kernelbench-search",
                  warm_jobs=4, parallel=1, sanitize_seconds=30.0)
    for k, v in kw.items():
        setattr(a, k, v)
    return a


class FakeCusched(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.work = self.dir.name
        self.cusched = os.path.join(self.work, "cusched")
        with open(self.cusched, "w") as f:
            f.write(FAKE)
        os.chmod(self.cusched, os.stat(self.cusched).st_mode | stat.S_IEXEC)
        os.makedirs(os.path.join(self.work, "schedules"))
        self.args = search_args(self.work, self.cusched)
        os.environ["FAKE_ARGS"] = os.path.join(self.work, "args.json")
        for k in ("FAKE_MODE", "FAKE_RUN", "FAKE_STRICT_RUN", "FAKE_BEST_PRECISION"):
            os.environ.pop(k, None)

    def runs(self):
        """The argument lists of every `cusched run` so far."""
        path = os.environ["FAKE_ARGS"] + ".all"
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [json.loads(line) for line in f]

    def tearDown(self):
        for k in ("FAKE_MODE", "FAKE_RUN", "FAKE_STRICT_RUN", "FAKE_ARGS", "FAKE_BEST_PRECISION"):
            os.environ.pop(k, None)
        self.dir.cleanup()


class TakingTurns(FakeCusched):
    def test_one_file_at_a_time_takes_no_lock_and_several_share_one(self):
        os.environ.pop("CUSCHED_GPU_LOCK", None)
        os.environ.pop("CUSCHED_GPU_SHARE", None)
        self.assertIsNone(kbs.gpu_lock_base(search_args(self.work, parallel=1)))
        self.assertNotIn("CUSCHED_GPU_LOCK", os.environ)
        self.assertNotIn("CUSCHED_GPU_SHARE", os.environ)
        try:
            base = kbs.gpu_lock_base(search_args(self.work, parallel=3))
            self.assertEqual(base, os.path.join(self.work, "gpu.lock"))
            self.assertEqual(os.environ["CUSCHED_GPU_LOCK"], base, "the cusched processes inherit it")
            # Each of the three keeps at most a quarter of the GPU's memory, a quarter left to this process.
            self.assertEqual(os.environ["CUSCHED_GPU_SHARE"], "0.2500")
        finally:
            os.environ.pop("CUSCHED_GPU_LOCK", None)
            os.environ.pop("CUSCHED_GPU_SHARE", None)

    def test_a_turn_waits_for_another_process_holding_the_devices_file(self):
        import subprocess
        base = os.path.join(self.work, "gpu.lock")
        holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""\
            import fcntl, sys, time
            f = open(sys.argv[1] + ".0", "a")
            fcntl.flock(f, fcntl.LOCK_EX)
            print("held", flush=True)
            time.sleep(0.6)
            """), base], stdout=subprocess.PIPE, text=True)
        self.assertEqual(holder.stdout.readline().strip(), "held")
        started = time.time()
        with kbs.gpu_turn(base):
            waited = time.time() - started
        holder.wait()
        holder.stdout.close()
        self.assertGreater(waited, 0.3)
        started = time.time()
        with kbs.gpu_turn(base, device=1):  # another device's file is free
            self.assertLess(time.time() - started, 0.3)
        with kbs.gpu_turn(None):  # no lock at all
            pass

    def test_turns_of_threads_do_not_overlap(self):
        import threading
        base = os.path.join(self.work, "gpu.lock")
        spans = []

        def turn():
            with kbs.gpu_turn(base):
                begin = time.time()
                time.sleep(0.05)
                spans.append((begin, time.time()))

        threads = [threading.Thread(target=turn) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        spans.sort()
        self.assertEqual(len(spans), 4)
        for (_, end), (begin, _) in zip(spans, spans[1:]):
            self.assertLessEqual(end, begin + 1e-3)

    def test_a_files_cusched_steps_run_apart_from_its_module_steps(self):
        self.args.schedule = "baseline"
        done = kbs.searched_and_timed(self.args, RELU, "kb1_19_ReLU", "1")
        self.assertEqual(done["schedule"], os.path.join(self.work, "schedules", "kb1_19_ReLU.json"))
        self.assertEqual(set(done["steps"].seconds), {"search", "timed_run", "strict_kernel"})
        # the tf32 best is timed, then the fastest f32 candidate for the 1e-4 scores
        timed = [r[r.index("-s") + 1] for r in self.runs()]
        self.assertEqual(timed[0], done["schedule"])
        self.assertEqual(timed[-1], done["strict_schedule"])
        self.assertIsNotNone(done["strict_timed"])
        self.assertIn("timed_run_phase_s", done["entry"])


class SearchCommand(unittest.TestCase):
    def test_the_command_line_carries_the_budget_and_enough_rounds(self):
        cmd = kbs.search_command(search_args("/w"), "p.json", "/w/kb1_19_ReLU.db")
        self.assertEqual(cmd, ["cusched", "search", "-p", "p.json", "--proposer", "builtin", "--rounds", "12",
                               "--budget-candidates", "40", "--budget-minutes", "1", "--threads", "16", "--no-audit",
                               "--stall-rounds", "0", "--sanitize-seconds", "30", "--db", "/w/kb1_19_ReLU.db",
                               "--json"])
        cmd = kbs.search_command(search_args("/w", search_seconds=45.0, search_rounds=3), "p.json", "d.db")
        self.assertEqual(cmd[cmd.index("--budget-minutes") + 1], "0.75")
        self.assertEqual(cmd[cmd.index("--rounds") + 1], "3")

    def test_rounds_cover_the_candidate_budget_four_times(self):
        self.assertEqual(kbs.search_rounds(1), 8)
        self.assertEqual(kbs.search_rounds(300), 4 * 19)

    def test_the_defaults(self):
        a = kbs.parse_args(["--kernelbench", "kb", "--work", "/tmp/w"])
        self.assertEqual((a.search_candidates, a.search_seconds, a.name, a.strict),
                         (40, 60, "kernelbench-search", True))
        self.assertEqual(a.schedule_dir, "/tmp/w/schedules")
        self.assertGreaterEqual(a.search_threads, 1)
        files = kbs.default_files()
        self.assertEqual({os.path.basename(os.path.dirname(f)) for f in files}, {"level1", "level2"})
        self.assertTrue(files[0].endswith("level1/1_Square_matrix_multiplication_.json"))


class Search(FakeCusched):
    def test_the_best_verified_schedule_is_written_and_the_row_entry_counts_the_search(self):
        entry, schedule, strict_schedule, note = kbs.run_search(self.args, RELU, "kb1_19_ReLU", "1")
        self.assertEqual(schedule, os.path.join(self.work, "schedules", "kb1_19_ReLU.json"))
        with open(schedule) as f:
            self.assertEqual(json.load(f), [{"op": "tile", "size": 256}])
        self.assertEqual(note, "")
        self.assertEqual((entry["evaluated"], entry["verified"], entry["status"], entry["timed"]),
                         (3, 2, "budget_spent", "search"))
        self.assertEqual((entry["best_ms"], entry["baseline_ms"], entry["best_is_baseline"]), (1.5, 2.0, False))
        # the row keeps the schedule it times and the idea it came from
        self.assertEqual((entry["best_schedule"], entry["best_idea"]), ([{"op": "tile", "size": 256}], "tiles of 256"))
        # compute-sanitizer's verdict on the best, as the search stored it with the evaluation
        self.assertEqual(entry["sanitizer"], {"clean": False, "errors": {"memcheck": 0, "racecheck": 3}})
        # two verified, timed candidates: too few for a rank correlation
        self.assertEqual((entry["problem_class"], entry["cost_rank"]), ("pointwise", {"candidates": 2, "spearman": None}))
        # the GPU evaluations' phases, summed over the candidates (one carries them here)
        self.assertEqual((entry["phase_s"]["compile"], entry["phase_s"]["timing"], entry["phase_s"]["reference"]),
                         (1.5, 0.25, 0.0))
        self.assertEqual((entry["candidates"], entry["seconds"], entry["level"]), (40, 60.0, "1"))
        self.assertGreater(entry["candidates_per_minute"], 0)
        self.assertEqual(schema_errors(entry, "search"), [])

    def test_a_best_below_f32_precision_brings_the_fastest_f32_or_3xtf32_schedule_for_1e4(self):
        _, _, strict_schedule, _ = kbs.run_search(self.args, RELU, "kb1_19_ReLU", "1")
        self.assertEqual(strict_schedule, os.path.join(self.work, "schedules", "kb1_19_ReLU.strict.json"))
        with open(strict_schedule) as f:
            self.assertEqual(json.load(f), [{"op": "baseline"}])  # the f32 baseline, 2.0 ms
        os.environ["FAKE_BEST_PRECISION"] = "3xtf32"
        _, schedule, strict_schedule, _ = kbs.run_search(self.args, RELU, "kb1_19_ReLU", "1")
        self.assertIsNone(strict_schedule, "the best itself counts at 1e-4")
        self.assertFalse(os.path.exists(os.path.join(self.work, "schedules", "kb1_19_ReLU.strict.json")))
        self.assertIsNotNone(schedule)

    def test_a_search_that_verifies_nothing_times_the_baseline_and_removes_an_old_schedule(self):
        old = os.path.join(self.work, "schedules", "kb1_19_ReLU.json")
        with open(old, "w") as f:
            f.write("[]")
        os.environ["FAKE_MODE"] = "none"
        entry, schedule, strict_schedule, note = kbs.run_search(self.args, RELU, "kb1_19_ReLU", "1")
        self.assertIsNone(schedule)
        self.assertIsNone(strict_schedule)
        self.assertFalse(os.path.exists(old))
        self.assertEqual(entry["timed"], "baseline")
        self.assertIn("baseline is timed", note)

    def test_a_search_killed_past_its_time_still_gives_the_best_in_its_store(self):
        os.environ["FAKE_MODE"] = "hang"
        grace = kbs.SEARCH_GRACE_S
        kbs.SEARCH_GRACE_S = 2
        try:
            entry, schedule, _, note = kbs.run_search(search_args(self.work, self.cusched, search_seconds=0.5),
                                                      RELU, "kb1_19_ReLU", "1")
        finally:
            kbs.SEARCH_GRACE_S = grace
        self.assertIn("killed", note)
        self.assertEqual((entry["status"], entry["timed"], entry["evaluated"]), ("killed", "search", 3))
        self.assertIsNotNone(schedule)

    def test_the_strict_run_verifies_the_given_schedule_untimed(self):
        import kernelbench_bench as kb
        self.args.schedule = "baseline"
        out = kb.run_cusched(self.args, RELU, "kb1_19_ReLU", strict=True, schedule="/w/s.json", timed=False)
        with open(os.environ["FAKE_ARGS"]) as f:
            argv = json.load(f)
        self.assertEqual(argv[argv.index("-s") + 1], "/w/s.json")
        self.assertTrue({"--strict", "--no-time", "--no-audit", "--json"} <= set(argv))
        self.assertEqual((out["verdict"], out["problem"]), ("ok", "kb1_19_ReLU"))
        kb.run_cusched(self.args, RELU, "kb1_19_ReLU", schedule="/w/s.json")
        with open(os.environ["FAKE_ARGS"]) as f:
            self.assertNotIn("--no-time", json.load(f))

    def schedule_file(self, steps):
        self.args.schedule = "baseline"
        path = os.path.join(self.work, "s%d.json" % len(os.listdir(self.work)))
        with open(path, "w") as f:
            json.dump(steps, f)
        return path

    def test_an_f32_kernel_is_timed_verifying_at_1e4_in_one_run(self):
        s = self.schedule_file([{"op": "tensor_core", "stage": "C", "shape": "m64nNk8", "precision": "3xtf32"}])
        run, strict, tolerance = kbs.timed_and_strict(self.args, RELU, "kb1_19_ReLU", s)
        argvs = self.runs()
        self.assertEqual(len(argvs), 1)
        self.assertIn("--strict", argvs[0])
        self.assertNotIn("--no-time", argvs[0])
        self.assertEqual((strict, tolerance), (None, 1e-4))
        row = kbs.search_row(run, strict, [], {"1e-2": True, "1e-4": True}, {"timed": "search"}, "", tolerance)
        self.assertEqual(row["verified"], {"1e-2": True, "1e-4": True})

    def test_an_f32_kernel_that_fails_at_1e4_is_timed_again_at_1e2(self):
        os.environ["FAKE_STRICT_RUN"] = json.dumps({"verdict": "wrong_output", "reason": "outside 1e-4"})
        self.args.schedule = "baseline"
        run, strict, tolerance = kbs.timed_and_strict(self.args, RELU, "kb1_19_ReLU", None)
        argvs = self.runs()
        self.assertEqual(["--strict" in a for a in argvs], [True, False])
        self.assertEqual((run["verdict"], strict["verdict"], tolerance), ("ok", "wrong_output", None))
        row = kbs.search_row(run, strict, [], {"1e-2": True, "1e-4": False}, {"timed": "baseline"}, "", tolerance)
        self.assertEqual(row["verified"], {"1e-2": True, "1e-4": False})

    def test_a_tf32_kernel_is_timed_at_1e2_and_not_verified_at_1e4(self):
        s = self.schedule_file([{"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"}])
        self.assertFalse(kbs.admits_strict(s))
        self.assertFalse(kbs.admits_strict(self.schedule_file([{"op": "precision", "stage": "C", "operands": "bf16"}])))
        run, strict, tolerance = kbs.timed_and_strict(self.args, RELU, "kb1_19_ReLU", s)
        argvs = self.runs()
        self.assertEqual(len(argvs), 1)
        self.assertNotIn("--strict", argvs[0])
        row = kbs.search_row(run, strict, [], {"1e-2": True, "1e-4": False}, {"timed": "search"}, "", tolerance)
        self.assertEqual(row["verified"], {"1e-2": True, "1e-4": None})

    def test_the_module_check_runs_the_timed_schedule_with_save_io(self):
        os.environ["FAKE_RUN"] = json.dumps({"verdict": "wrong_output", "reason": "Output 'Y' is outside atol"})
        match, reason = kbs.module_check(self.args, RELU, "/w/schedules/kb1_19_ReLU.json", {})
        with open(os.environ["FAKE_ARGS"]) as f:
            argv = json.load(f)
        self.assertEqual(argv[argv.index("-s") + 1], "/w/schedules/kb1_19_ReLU.json")
        self.assertIn("--save-io", argv)
        self.assertIn("--no-time", argv)
        self.assertEqual((match["status"], match["1e-2"], match["1e-4"]), ("cusched_failed", None, None))
        self.assertIn("outside atol", reason)


    def test_the_module_check_reads_the_timed_runs_saved_io_without_a_run_of_its_own(self):
        s = self.schedule_file([{"op": "tensor_core", "stage": "C", "shape": "m64nNk8", "precision": "3xtf32"}])
        self.args.max_gib = 1e6  # the bench size's working set fits: the check reads the timed run's files
        io = kbs.io_folder(self.args, RELU, "kb1_19_ReLU")
        self.assertTrue(io and os.path.isdir(io))
        run, _, _ = kbs.timed_and_strict(self.args, RELU, "kb1_19_ReLU", s, io)
        argvs = self.runs()
        self.assertEqual(len(argvs), 1)
        self.assertEqual(argvs[0][argvs[0].index("--save-io") + 1], io)
        match, reason = kbs.module_check(self.args, RELU, s, {}, (dict(run, verdict="wrong_output", reason="bad"), io))
        self.assertEqual(len(self.runs()), 1)  # no second cusched run
        self.assertEqual(match["status"], "cusched_failed")
        self.assertIn("bad", reason)
        self.assertFalse(os.path.exists(io))  # the check removes the saved files

    def test_a_reduced_check_runs_on_its_own(self):
        self.args.max_gib = 1e-12
        self.assertIsNone(kbs.io_folder(self.args, RELU, "kb1_19_ReLU"))
        os.environ["FAKE_RUN"] = json.dumps({"verdict": "wrong_output", "reason": "outside"})
        kbs.module_check(self.args, RELU, "/w/s.json", {}, ({"verdict": "ok"}, None))
        self.assertEqual(len(self.runs()), 1)


class TimeLimit(unittest.TestCase):
    def test_a_step_past_its_limit_raises_and_the_alarm_is_cleared(self):
        import signal
        with self.assertRaises(kbs.StepTimeout):
            with kbs.time_limit(1):
                time.sleep(3)
        self.assertEqual(signal.alarm(0), 0)  # no alarm left pending
        with kbs.time_limit(5):
            pass
        self.assertEqual(signal.alarm(0), 0)


def timing(eager, compile_ms):
    return [{"problem": "p", "settings": "default", "cudnn_allow_tf32": True, "matmul_allow_tf32": False,
             "torch": "2.11", "eager_ms": eager, "compile_ms": compile_ms}] if eager or compile_ms else []


def row(name, level, verdict, ms, m2, m4, precision="f32", eager=None, compile_ms=None, strict="ok"):
    """A row as kernelbench_search makes it: the timed run, its strict run, the module check, the search."""
    run = {"problem": name, "verdict": verdict, "precision": precision,
           "gpu": {"median_ms": ms, "min_ms": ms, "max_ms": ms, "pct_of_floor": 50.0} if ms else {}}
    status = "compared" if m2 is not None else "cusched_failed"
    match = {"status": status, "1e-2": m2, "1e-4": m4, "max_abs_err": None, "max_rel_err": None,
             "sizes": {"N": 8}, "reduced": False}
    entry = kbs.search_entry(search_args("/w"), level, {"status": "budget_spent", "evaluated": 40, "verified": 30},
                             {"schedule": [], "best_ms": ms, "baseline_ms": 2.0, "best_is_baseline": False}, 60.0)
    return kbs.search_row(run, {"verdict": strict}, timing(eager, compile_ms), match, entry)


def hand_rows():
    """Level 1 (five files asked for, four run):
       A f32, module 1e-2 and 1e-4, 1.0 ms against eager 3.0 / compile 2.0: speedup 2.0 (not above 2)
       B tf32, module 1e-2 and 1e-4, 0.25 ms against 1.0 / 1.5: speedup 4.0, not counted at 1e-4 (tf32)
       C f32, module 1e-2 only, 1.0 ms against eager 0.5: speedup 0.5
       D wrong_output: a failure; E: not run (the time limit).
       Level 2 (two files): F 3xtf32, module 1e-2 and 1e-4, 2.0 ms against 3.0 / 4.0: speedup 1.5;
       G f32, correct but PyTorch has no time: correct, not fast, out of the geometric mean."""
    return [row("kb1_1_A", "1", "ok", 1.0, True, True, eager=3.0, compile_ms=2.0),
            row("kb1_2_B", "1", "ok", 0.25, True, True, precision="tf32", eager=1.0, compile_ms=1.5,
                strict="wrong_output"),
            row("kb1_3_C", "1", "ok", 1.0, True, False, eager=0.5),
            row("kb1_4_D", "1", "wrong_output", None, None, None, eager=1.0, compile_ms=1.0),
            kbs.not_run_row("kb1_5_E", "1", search_args("/w")),
            row("kb2_1_F", "2", "ok", 2.0, True, True, precision="3xtf32", eager=3.0, compile_ms=4.0),
            row("kb2_2_G", "2", "ok", 1.0, True, True)]


class Rows(unittest.TestCase):
    def test_a_row_carries_both_verdicts_the_module_check_and_the_search(self):
        a, b = hand_rows()[:2]
        self.assertEqual(a["schedule"], "search")
        self.assertEqual(a["verified"], {"1e-2": True, "1e-4": True})
        self.assertEqual(b["verified"], {"1e-2": True, "1e-4": False})
        self.assertEqual((a["pytorch_match"]["1e-2"], a["pytorch_match"]["1e-4"], a["matches_pytorch"]),
                         (True, True, "pass"))
        self.assertEqual(a["search"]["candidates_per_minute"], 40.0)
        self.assertEqual(b["precision"], "tf32")
        self.assertAlmostEqual(kbs.speedup(a), 2.0)
        self.assertAlmostEqual(kbs.speedup(b), 4.0)

    def test_a_file_not_run_is_a_row_that_says_so(self):
        e = hand_rows()[4]
        self.assertEqual((e["search"]["status"], e["search"]["timed"], e["pytorch_match"]["status"]),
                         ("not_run", "none", "not_run"))
        self.assertEqual(e["verified"], {"1e-2": None, "1e-4": None})
        self.assertNotIn("precision", e)
        self.assertIn("time-limit", e["note"])

    def test_rows_validate_against_the_record_schema(self):
        for r in hand_rows():
            self.assertEqual(schema_errors(r, "result"), [], r["problem"])


class RunPhases(unittest.TestCase):
    def test_the_phases_of_several_runs_add_up_and_runs_without_a_gpu_result_give_none(self):
        timed = {"gpu": {"phase_ms": {"compile": 1500.0, "reference": 4000.0, "timing": 250.0}}}
        strict = {"gpu": {"phase_ms": {"reference": 1000.0}}}
        phases = kbs.run_phase_seconds(timed, None, strict)
        self.assertEqual(phases["reference"], 5.0)
        self.assertEqual(phases["compile"], 1.5)
        self.assertEqual(phases["timing"], 0.25)
        self.assertEqual(set(phases), set(kbs.PHASES))
        self.assertIsNone(kbs.run_phase_seconds({"verdict": "lowering_error"}, None))


class CostRank(unittest.TestCase):
    def test_spearman_is_one_for_the_same_order_minus_one_for_the_reverse_and_shares_tied_ranks(self):
        self.assertEqual(kbs.spearman([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]), 1.0)
        self.assertEqual(kbs.spearman([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]), -1.0)
        self.assertEqual(kbs.ranks([5.0, 1.0, 5.0, 2.0]), [3.5, 1.0, 3.5, 2.0])
        self.assertAlmostEqual(kbs.spearman([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0]), 0.8)
        self.assertIsNone(kbs.spearman([1.0, 2.0], [2.0, 1.0]))
        self.assertIsNone(kbs.spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]), "no spread")

    def test_the_table_groups_the_searches_by_problem_class(self):
        def row(cls, rho):
            return {"search": {"problem_class": cls, "cost_rank": {"candidates": 5, "spearman": rho}}}
        table = kernelbench_tables.cost_rank_table([row("matmul", 0.9), row("matmul", 0.3), row("pointwise", 1.0),
                                             {"search": {"problem_class": "reduction", "cost_rank": None}}])
        self.assertIn("| matmul | 2 | 0.60 | 0.30 | 1 |", table)
        self.assertIn("| pointwise | 1 | 1.00 | 1.00 | 0 |", table)
        self.assertFalse(any("| reduction |" in line for line in table))


class Summary(unittest.TestCase):
    def summary(self):
        return kbs.level_summary(hand_rows(), {"1": 5, "2": 2})

    def test_level_1_counts_failures_and_files_not_run_as_not_fast(self):
        one = self.summary()["levels"][0]
        self.assertEqual((one["level"], one["problems"], one["run"], one["search_schedules"]), ("1", 5, 4, 4))
        loose = one["1e-2"]
        self.assertEqual((loose["correct"], loose["faster"], loose["faster_2x"]), (3, 2, 1))  # A, B, C; A, B; B
        self.assertEqual((loose["fast_0"], loose["fast_1"], loose["fast_2"]), (0.6, 0.4, 0.2))
        self.assertAlmostEqual(loose["geomean_speedup"], (2.0 * 4.0 * 0.5) ** (1 / 3), places=4)  # 1.5874
        self.assertEqual(one["precision"], {"f32": 2, "tf32": 1})

    def test_at_1e4_only_f32_and_3xtf32_rows_that_matched_count(self):
        strict = self.summary()["levels"][0]["1e-4"]
        self.assertEqual((strict["correct"], strict["faster"], strict["faster_2x"]), (1, 1, 0))  # A only
        self.assertEqual((strict["fast_0"], strict["fast_1"], strict["fast_2"]), (0.2, 0.2, 0.0))
        self.assertEqual(strict["geomean_speedup"], 2.0)

    def test_at_1e4_a_rows_strict_kernel_stands_in_for_its_lower_precision_kernel(self):
        b = hand_rows()[1]  # tf32, 0.25 ms against 1.0 / 1.5
        b["strict_kernel"] = {"schedule": "search", "cusched_ms": {"median": 0.5, "min": 0.5, "max": 0.5},
                              "verdict": "ok", "verified": {"1e-2": True, "1e-4": True}, "pct_of_floor": 40.0,
                              "precision": "3xtf32", "math": "exact",
                              "pytorch_match": dict(b["pytorch_match"], **{"1e-4": True})}
        s = kbs.level_summary([b], {"1": 1})["levels"][0]
        self.assertEqual((s["1e-2"]["correct"], s["1e-2"]["geomean_speedup"]), (1, 4.0))  # the tf32 kernel
        self.assertEqual((s["1e-4"]["correct"], s["1e-4"]["faster_2x"], s["1e-4"]["geomean_speedup"]),
                         (1, 0, 2.0))  # the 3xtf32 kernel: 1.0 / 0.5
        self.assertEqual(s["precision"], {"tf32": 1})
        self.assertEqual(schema_errors(b, "result"), [])
        b["strict_kernel"]["pytorch_match"]["1e-4"] = False
        self.assertEqual(kbs.level_summary([b], {"1": 1})["levels"][0]["1e-4"]["correct"], 0)

    def test_a_correct_problem_without_a_pytorch_time_is_correct_but_not_fast(self):
        two = self.summary()["levels"][1]
        for t in ("1e-2", "1e-4"):
            self.assertEqual((two[t]["correct"], two[t]["faster"], two[t]["fast_0"], two[t]["fast_1"]),
                             (2, 1, 1.0, 0.5))
            self.assertEqual(two[t]["geomean_speedup"], 1.5)
        self.assertEqual(two["precision"], {"3xtf32": 1, "f32": 1})

    def test_a_level_asked_for_but_not_reached_scores_zero(self):
        s = kbs.level_summary(hand_rows()[:1], {"1": 1, "2": 3})
        self.assertEqual([(e["level"], e["problems"], e["run"], e["1e-2"]["correct"], e["1e-2"]["fast_0"])
                          for e in s["levels"]], [("1", 1, 1, 1, 1.0), ("2", 3, 0, 0, 0.0)])
        self.assertIsNone(s["levels"][1]["1e-2"]["geomean_speedup"])


class Accumulation(unittest.TestCase):
    """Runs that continue one another: the latest row of each problem of one budget is what counts."""

    def records(self):
        first = {"date": "2026-12-04", "results": hand_rows()[:4], "summary": {"levels": []}}
        later = [row("kb1_3_C", "1", "ok", 0.25, True, True, eager=0.5), kbs.not_run_row("kb1_1_A", "1",
                                                                                       search_args("/w"))]
        other_budget = row("kb1_4_D", "1", "ok", 0.1, True, True, eager=1.0)
        other_budget["search"]["candidates"] = 400
        second = {"date": "2026-12-05", "results": later + [other_budget], "summary": {"levels": []}}
        return [first, second]

    def test_the_latest_row_of_a_problem_counts_and_rows_not_run_or_of_another_budget_do_not(self):
        rows = {r["problem"]: r for r in kbs.merged_search_rows(self.records(), (40, 60.0))}
        self.assertEqual(sorted(rows), ["kb1_1_A", "kb1_2_B", "kb1_3_C", "kb1_4_D"])
        self.assertEqual(rows["kb1_3_C"]["cusched_ms"]["median"], 0.25)  # the later run's
        self.assertEqual(rows["kb1_1_A"]["cusched_ms"]["median"], 1.0)  # not replaced by a row not run
        self.assertEqual(rows["kb1_4_D"]["verdict"], "wrong_output")  # the 400-candidate row is another budget

    def test_without_a_budget_the_latest_row_of_any_budget_counts_and_the_summary_counts_the_budgets(self):
        records = self.records()
        for i, r in enumerate(records):
            r.update(name="kernelbench-%d-search" % i, environment={"gpu": "NVIDIA H100 80GB HBM3"})
        rows = {r["problem"]: r for r in kbs.merged_search_rows(records)}
        self.assertEqual(rows["kb1_4_D"]["verdict"], "ok")  # the 400-candidate row, the latest of kb1_4_D
        self.assertEqual(rows["kb1_1_A"]["cusched_ms"]["median"], 1.0)
        head = kernelbench_tables.kernelbench_merged_summary(records, False)[0]
        self.assertTrue(head.startswith("Each problem's latest row of any budget (3 at 40 candidates or 60.0 s, "
                                        "1 at 400 candidates or 60.0 s). Rows from 2 record(s)"), head)
        long_form = "\n".join(kernelbench_tables.kernelbench_merged_summary(records, True))
        self.assertIn("Budget per problem: 400 candidates or 60.0 s. Rows from 1 record(s)", long_form)
        self.assertLess(long_form.index("problem: 400 candidates"), long_form.index("problem: 40 candidates"))

    def test_every_file_of_a_level_is_scored_and_the_counts_come_from_the_tree(self):
        counts = kbs.level_file_counts()
        self.assertEqual(counts, {"1": 100, "2": 100})
        merged = kbs.level_summary(kbs.merged_search_rows(self.records(), (40, 60.0)), counts)
        one = merged["levels"][0]
        self.assertEqual((one["problems"], one["run"], one["1e-2"]["correct"]), (100, 4, 3))

    def test_skip_recorded_leaves_out_the_files_with_a_verified_row_of_the_budget(self):
        with tempfile.TemporaryDirectory() as d:
            rec = {"date": "2026-12-04", "name": "kernelbench-search", "title": "t", "command": "c", "notes": "",
                   "results": [row("kb1_19_ReLU", "1", "ok", 1.0, True, True, eager=2.0),
                               row("kb1_21_Sigmoid", "1", "internal_error", None, False, False, eager=2.0)],
                   "summary": {"levels": []}}
            with open(os.path.join(d, "2026-12-04-kernelbench-search.json"), "w") as f:
                json.dump(rec, f)
            files = [os.path.join(ROOT, "problems", "kernelbench", "level1", n) for n in
                     ("19_ReLU.json", "20_LeakyReLU.json", "21_Sigmoid.json")]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                # ReLU's row verified; Sigmoid's failed and runs again, LeakyReLU has none.
                self.assertEqual(kbs.skip_recorded(files, d, (40, 60.0)), files[1:])
                self.assertEqual(kbs.skip_recorded(files, d, (80, 60.0)), files)
                self.assertEqual(kbs.skip_recorded(files, d, None), files[1:])  # --skip-recorded-any
            self.assertIn("1 of 3 files have a verified row of this budget", out.getvalue())
            self.assertIn("1 of 3 files have a verified row of some budget", out.getvalue())


class Record(unittest.TestCase):
    def record(self):
        rows = hand_rows()
        env = {"gpu": "NVIDIA H200", "gpu_count": 1, "driver": None, "cuda": None, "pytorch": "2.11"}
        import datetime
        started = datetime.datetime(2026, 12, 4, 10, 0, tzinfo=datetime.timezone.utc)
        files = ["a"] * 7
        return kbs.make_record(rows, files, search_args("/w"), ["--search-candidates", "40"], started, "abc1234", env,
                               kbs.level_summary(rows, {"1": 5, "2": 2}))

    def test_the_record_validates_and_states_the_budget(self):
        r = self.record()
        self.assertEqual(schema_errors(r), [])
        self.assertIn("40 candidates or 60 s", r["notes"])
        self.assertIn("6 of 7 files searched", r["notes"])
        self.assertEqual(r["command"], "python3 bench/kernelbench_search.py --search-candidates 40")

    def test_the_schema_refuses_a_summary_fraction_above_one(self):
        r = self.record()
        r["summary"]["levels"][0]["1e-2"]["fast_0"] = 1.5
        self.assertNotEqual(schema_errors(r), [])

    def test_the_tables_render_the_summary_and_the_rows(self):
        r = self.record()
        summary = kernelbench_tables.kernelbench_summary_table(r["summary"])
        self.assertIn("| 1 | 1e-2 | 5 (4) | 3 (60%) | 2 (40%) | 1 (20%) | 1.59x | f32 2, tf32 1 |", summary)
        self.assertIn("| 1 | 1e-4, f32 / 3xtf32 | 5 (4) | 1 (20%) | 1 (20%) | 0 (0%) | 2.00x | - |", summary)
        rows = kernelbench_tables.search_table(r)
        self.assertTrue(rows[2].startswith("| kb1_1_A | search | 1.0000 | 3.0000 | 2.0000 | 2.00x | yes / yes | "
                                           "yes / yes | f32 | the same | 50.0 | 40 / 60 s | 40 (40.0) | - |"), rows[2])
        b = hand_rows()[1]
        b["strict_kernel"] = {"schedule": "search", "cusched_ms": {"median": 0.5, "min": 0.5, "max": 0.5},
                              "verdict": "ok", "verified": {"1e-2": True, "1e-4": True}, "precision": "3xtf32",
                              "pytorch_match": dict(b["pytorch_match"])}
        self.assertEqual(kernelbench_tables.strict_kernel_cell(b), "0.5000 ms 3xtf32, module yes / yes")
        self.assertEqual(kernelbench_tables.phases_cell({"compile": 1.5, "timing": 6.0, "reference": 0.5, "check": 0.25}),
                         "8.2: timing 6.0, compile 1.5, reference 0.5")
        self.assertEqual(kernelbench_tables.phases_cell(None), "-")
        self.assertEqual(kernelbench_tables.file_seconds_cell(
            {"search": 30.2, "timed_run": 2.1, "module_check": 10.4, "pytorch": 0.9}), "44 (30 + 13)")
        self.assertEqual(kernelbench_tables.file_seconds_cell(None), "-")
        self.assertEqual(kernelbench_tables.sanitizer_cell({"clean": True, "errors": {"memcheck": 0}}), "clean")
        self.assertEqual(kernelbench_tables.sanitizer_cell({"clean": False, "errors": {"memcheck": 0, "racecheck": 3}}),
                         "findings: racecheck 3")
        self.assertIn("| kb1_5_E | none | - |", rows[6])
        text = make_tables.results_md([r])
        self.assertIn("fast_1, fast_2", text)
        self.assertIn("| kb2_1_F | search |", text)


if __name__ == "__main__":
    unittest.main()
