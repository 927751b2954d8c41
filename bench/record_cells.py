"""The records in bench/results/ as the table writers read them (bench/make_tables.py,
bench/kernelbench_tables.py): loading and checking them, and the cells their fields become."""
import glob
import json
import os
import re

VERIFIED = ("ok", "under_floor")


class RecordError(Exception):
    pass


def load_records(directory):
    records = []
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        try:
            with open(path) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            raise RecordError(f"{path}: cannot be read as JSON ({e}); fix or remove the file.")
        for key in ("date", "name", "title", "command", "results", "notes"):
            if key not in r:
                raise RecordError(f"{path}: the record has no '{key}'; bench/record.schema.json lists the fields.")
        expected = f"{r['date']}-{r['name']}.json"
        if os.path.basename(path) != expected:
            raise RecordError(f"{path}: a record is named DATE-NAME.json after its fields; rename it to {expected}.")
        records.append(r)
    # Chronological: by date, then start time, then the order given within the date.
    records.sort(key=lambda r: (r["date"], r.get("started", ""), r.get("sequence", 0), r["name"]))
    return records


def fmt_ms(x):
    return "%.4f" % x if isinstance(x, (int, float)) else "-"


def precision_text(res):
    p = res.get("precision", "-")
    return p + ("+fast math" if res.get("math") == "fast" else "")


def pytorch_entry(res, settings=None):
    """The result's PyTorch numbers under `settings` (default: PyTorch's defaults, else the first)."""
    entries = res.get("pytorch") or []
    if settings:
        return next((e for e in entries if e["settings"] == settings), None)
    return next((e for e in entries if e["settings"] == "default"), entries[0] if entries else None)


def timed(res):
    return res.get("verdict") in VERIFIED and isinstance((res.get("cusched_ms") or {}).get("median"), (int, float))


def is_kernelbench(problem):
    """A KernelBench problem file's problem (problems/kernelbench/: kb1_..., kb2_...)."""
    return problem.startswith(("kb1_", "kb2_"))


def gpu_name(r):
    """The record's GPU in short: its model (H200, H100, ...) where the name has one."""
    name = (r.get("environment") or {}).get("gpu") or "?"
    m = re.search(r"\b([A-Z]\d{2,4}[A-Za-z]?)\b", name)
    return m.group(1) if m else name


def pytorch_match_cells(m):
    """The columns of a result's check against the PyTorch module its problem reproduces."""
    if not m:
        return ["-"] * 4
    yes = {True: "yes", False: "no", None: "-"}
    err = lambda x: ("%.2g" % x) if isinstance(x, (int, float)) else "-"
    sizes = ", ".join("%s=%d" % kv for kv in sorted(m.get("sizes", {}).items()))
    return [m["status"], "%s / %s" % (yes[m["1e-2"]], yes[m["1e-4"]]),
            "%s / %s" % (err(m["max_abs_err"]), err(m["max_rel_err"])), ("reduced: " if m.get("reduced") else "") + sizes]
