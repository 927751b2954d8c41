#!/usr/bin/env python3
"""Writes the record (bench/record.schema.json, kind tests) of a run of bench/check_cheats.sh.

usage: cheat_record.py --rows ROWS.tsv --gpu-log LOG --gpu-status N --check-seconds S
                       --total-seconds S --audit-in-build 0|1 --sanitize-bests 0|1
                       --audit-only 0|1 --name NAME [--prediction TEXT] [--out-dir DIR]

ROWS.tsv: one line per `cusched check` run: kernel, class, mode (audit / no_audit), verdict,
result (pass / fail / skipped). LOG: gpu_cheat_tests' output, whose "| ..." lines are the
corpus as search candidates and compute-sanitizer on every best. The record keeps the rows
as `checks`, the test lines as `gpu_tests`, and both as Markdown tables in its notes; it is
written to OUT_DIR/DATE-NAME.json and its path printed.
"""
import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_record  # noqa: E402


def read_rows(path):
    keys = ["kernel", "class", "mode", "verdict", "result"]
    with open(path) as f:
        return [dict(zip(keys, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def read_test_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = [l.strip() for l in f if l.startswith("| ") or l.startswith("[  PASSED") or l.startswith("[  FAILED")]
    return sorted(set(l for l in lines if l.startswith("| "))) + [l for l in lines if not l.startswith("| ")]


def notes(rows, tests, args):
    count = lambda r: sum(1 for x in rows if x["result"] == r)
    out = ["`check` runs: %d pass, %d fail, %d left to the CPU audit (%d s); gpu_cheat_tests exit code %d; "
           "%d s in all." % (count("pass"), count("fail"), count("skipped"), args.check_seconds, args.gpu_status,
                             args.total_seconds)]
    if args.audit_only:
        out.append("The audit and the precision scan only (a build with the audit, no GPU): a cheat that only they "
                   "judge passes when they reject it; a kernel that a runtime verdict may judge also passes when "
                   "they let it through to verification (verdict none).")
    elif not args.audit_in_build:
        out.append("This build has no Clang audit: rows of kernels that only the audit rejects are left to the "
                   "record of AUDIT_ONLY=1 on a machine with the audit, and audit rows of the others accept "
                   "the runtime verdicts.")
    out += ["", "| kernel | class | mode | verdict | result |", "| --- | --- | --- | --- | --- |"]
    out += ["| %s | %s | %s | %s | %s |" % (r["kernel"], r["class"], r["mode"], r["verdict"], r["result"]) for r in rows]
    table = [l for l in tests if l.startswith("| ")]
    if table:
        out += ["", "gpu_cheat_tests (the corpus as search candidates; compute-sanitizer on every best):", "",
                "| kernel or problem | class | check | verdict |", "| --- | --- | --- | --- |"] + table
    out += [""] + [l for l in tests if not l.startswith("| ")]
    return "\n".join(out).rstrip("\n")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", required=True)
    p.add_argument("--gpu-log", required=True)
    p.add_argument("--gpu-status", type=int, required=True)
    p.add_argument("--check-seconds", type=int, required=True)
    p.add_argument("--total-seconds", type=int, required=True)
    p.add_argument("--audit-in-build", type=int, choices=[0, 1], required=True)
    p.add_argument("--sanitize-bests", type=int, choices=[0, 1], default=0)
    p.add_argument("--audit-only", type=int, choices=[0, 1], default=0)
    p.add_argument("--name", required=True)
    p.add_argument("--prediction", default=os.environ.get("PREDICTION") or None)
    p.add_argument("--out-dir", default=os.path.join(make_record.ROOT, "bench", "results"))
    args = p.parse_args(argv)
    rows = read_rows(args.rows)
    tests = read_test_lines(args.gpu_log)
    now = datetime.datetime.now(datetime.timezone.utc)
    env = make_record.environment([], [])
    if args.audit_only and env["gpu"] == "unknown":
        env["gpu"] = "none (audit and precision scan on the CPU)"
    command = (("AUDIT_ONLY=1 " if args.audit_only else "") + ("SANITIZE_BESTS=1 " if args.sanitize_bests else "")
               + "bash bench/check_cheats.sh")
    record = {
        "schema_version": 1,
        "date": now.strftime("%Y-%m-%d"),
        "started": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "name": args.name,
        "title": "The cheating-kernel corpus through check" + ("'s audit" if args.audit_only else
                                                               " and as search candidates"),
        "kind": "tests",
        "commit": make_record.commit(),
        "environment": env,
        "command": command,
        "prediction": args.prediction,
        "results": [],
        "checks": rows,
        "gpu_tests": tests,
        "notes": notes(rows, tests, args),
    }
    print(make_record.write_record(record, args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
