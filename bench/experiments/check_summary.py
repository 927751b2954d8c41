#!/usr/bin/env python3
"""One line for a `cusched check` (or `cusched run --json`) outcome: name, verdict,
median ms and reason; the tail of the error file when the outcome is unreadable.
Usage: check_summary.py NAME OUTCOME.json [STDERR_FILE]"""
import json
import sys


def find(o, key):
    if isinstance(o, dict):
        if key in o:
            return o[key]
        for v in o.values():
            r = find(v, key)
            if r is not None:
                return r
    return None


name, path = sys.argv[1], sys.argv[2]
try:
    j = json.load(open(path))
except (OSError, ValueError):
    err = open(sys.argv[3]).read()[-400:].replace("\n", " ") if len(sys.argv) > 3 else ""
    print(f"{name:42s} unreadable output: {err}")
    sys.exit()
ms = find(j, "median_ms")
print(f"{name:42s} {find(j, 'verdict')!s:12s} {ms if ms is None else round(ms, 4)!s:>8s} ms  {str(find(j, 'reason') or '')[:110]}")
