"""The search half of bench/kernelbench_search.py, without a GPU or PyTorch: the search command line,
the best schedule read from a search store, a search run through a stand-in cusched (its schedule
file, its row entry, the fallback to the baseline, a search killed past its time), the module check
of the timed schedule, steps bounded in time and the phases of several runs. The rows, the summary
and the tables: kernelbench_scores_test.py."""
import io
import json
import os
import stat
import sys
import tempfile
import textwrap
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernelbench_search as kbs  # noqa: E402
from kernelbench_rows import search_args  # noqa: E402
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
        self.assertEqual(set(done["steps"].seconds), {"search", "timed_run", "module_check_run", "strict_kernel",
                                                      "strict_module_check_run"})
        # the module checks' runs at the reduced shape happen here, in the file's worker, not in the main thread
        self.assertTrue(done["check"][2].done() and done["strict_check"][2].done())
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
        match, reason = kbs.module_check(self.args, kbs.module_check_run(self.args, RELU, "/w/schedules/kb1_19_ReLU.json"), {})
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
        match, reason = kbs.module_check(self.args, kbs.module_check_run(
            self.args, RELU, s, (dict(run, verdict="wrong_output", reason="bad"), io)), {})
        self.assertEqual(len(self.runs()), 1)  # no second cusched run
        self.assertEqual(match["status"], "cusched_failed")
        self.assertIn("bad", reason)
        self.assertFalse(os.path.exists(io))  # the check removes the saved files

    def test_a_reduced_check_runs_on_its_own(self):
        self.args.max_gib = 1e-12
        self.assertIsNone(kbs.io_folder(self.args, RELU, "kb1_19_ReLU"))
        os.environ["FAKE_RUN"] = json.dumps({"verdict": "wrong_output", "reason": "outside"})
        kbs.module_check(self.args, kbs.module_check_run(self.args, RELU, "/w/s.json", ({"verdict": "ok"}, None)), {})
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


if __name__ == "__main__":
    unittest.main()
