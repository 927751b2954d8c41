#!/usr/bin/env python3
"""Summarises variant stores (bench/experiments/run_variants.sh) as runs.jsonl rows for
bench/make_record.py --runs: per problem, the fastest verified variant with its file name.

usage: variants_summary.py problem=store.db ... > best_runs.jsonl
"""
import json
import sqlite3
import sys

for arg in sys.argv[1:]:
    problem, path = arg.split("=", 1)
    try:
        db = sqlite3.connect(path)
        row = db.execute(
            "select i.text, e.median_ms, e.pct_of_floor, e.precision from candidates c join evaluations e on e.candidate = c.id "
            "left join ideas i on i.id = c.idea where e.verdict = 'ok' and e.median_ms is not null order by e.median_ms limit 1").fetchone()
    except sqlite3.Error:
        row = None
    if row:
        idea, ms, pct, precision = row
        idea = idea.rsplit("/", 1)[-1] if idea.startswith("schedule from ") else "baseline"
        print(json.dumps({"problem": problem, "verdict": "ok", "precision": precision, "variant": idea,
                          "gpu": {"median_ms": ms, "pct_of_floor": pct}}))
