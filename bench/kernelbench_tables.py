"""The KernelBench parts of bench/RESULTS.md and the README: the scores per level over the search records
(bench/kernelbench_search.py), a search record's rows, the cost model's ranking per problem class, the
problems behind PyTorch, and the problem files' checks against their PyTorch modules."""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernelbench_scores as scores  # noqa: E402
from record_cells import (fmt_ms, gpu_name, is_kernelbench, precision_text, pytorch_entry,  # noqa: E402
                          pytorch_match_cells, timed)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cusched_kernel(result, width=110):
    """What a row's timed kernel is: the search's idea for its best candidate, "baseline" where the search
    timed the baseline, "-" where the row says neither."""
    search = result.get("search") or {}
    if search.get("timed") == "baseline" or search.get("best_is_baseline"):
        return "baseline"
    idea = (search.get("best_idea") or "").replace("|", "/").replace("\n", " ").strip()
    if not idea:
        return "-"
    return idea if len(idea) <= width else idea[:width - 3].rstrip() + "..."


def behind_table(rows):
    """The rows slower than the faster of PyTorch eager and torch.compile, with what that side runs: the
    longest GPU kernel it launches (records from the timings that profiled it), what cusched's timed kernel
    is (the search's idea for it, or the baseline), its longest kernel where it launches several (rows timed
    with --per-launch) and each side's share of the floor."""
    behind = [r for r in rows if r["speedup"] is not None and r["speedup"] < 1]
    if not behind:
        return []
    out = ["Behind PyTorch: what the faster PyTorch side runs (its longest GPU kernel and that kernel's share "
           "of its time, where the timing profiled it), what cusched's kernel is (the idea of the search's best "
           "candidate, or the baseline; in records of commits before 0f9da20 a first-round sketch carries the text "
           "of its group's first sketch, which may be another tile), its longest kernel where it launches several (each timed alone; \"-\": "
           "one kernel, or a row timed without) and the share of the floor each side reaches.", "",
           "| problem | speedup | PyTorch's faster side | its longest kernel | cusched's kernel | cusched's longest "
           "kernel | PyTorch % of floor | cusched % of floor | cusched precision |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in behind:
        res = r["result"]
        side = "eager" if r["eager"] is not None and (r["compile"] is None or r["eager"] <= r["compile"]) else "compile"
        faster_ms = r["eager"] if side == "eager" else r["compile"]
        entry = pytorch_entry(res) or {}
        kernels = entry.get(side + "_kernels") or []
        kernel = ("`%s` (%.0f%%)" % (kernels[0]["name"][:90].replace("|", "/"), 100 * kernels[0]["share"])
                  if kernels else "not profiled")
        pct = res.get("pct_of_floor")
        theirs = "%.1f" % (pct * r["ms"] / faster_ms) if pct and faster_ms else "-"
        ours = res.get("cusched_kernels") or []
        longest = "`%s` (%.0f%%)" % (ours[0]["name"], 100 * ours[0]["share"]) if ours else "-"
        out.append("| %s | %.2fx | %s | %s | %s | %s | %s | %s | %s |" % (
            r["problem"], r["speedup"], "torch.compile" if side == "compile" else "eager", kernel,
            cusched_kernel(res), longest, theirs, "%.1f" % pct if pct else "-", precision_text(res)))
    return out


def kernelbench_summary_table(summary):
    """A record's KernelBench scores (bench/kernelbench_search.py): one row per level and tolerance."""
    out = ["| level | tolerance | problems (run) | correct: fast_0 | fast_1 | fast_2 | geomean speedup of correct | "
           "precision of correct |", "|" + "---|" * 8]
    share = lambda n, total: "%d (%.0f%%)" % (n, 100.0 * n / total) if total else "%d" % n
    for e in summary["levels"]:
        for t, text in (("1e-2", "1e-2"), ("1e-4", "1e-4, f32 / 3xtf32")):
            s = e[t]
            precision = ", ".join("%s %d" % kv for kv in e["precision"].items()) if t == "1e-2" else ""
            out.append("| %s | %s | %d (%d) | %s | %s | %s | %s | %s |" % (
                e["level"], text, e["problems"], e["run"], share(s["correct"], e["problems"]),
                share(s["faster"], e["problems"]), share(s["faster_2x"], e["problems"]),
                ("%.2fx" % s["geomean_speedup"]) if s["geomean_speedup"] else "-", precision or "-"))
    out += ["", "Correct: the timed kernel verified and matched the PyTorch module at the tolerance (at 1e-4 only "
            "f32 and 3xtf32 kernels count); fast_1, fast_2: correct and faster than %s, by over 1x and 2x; "
            "each over all the level's problems asked for, failures and files not run included." %
            summary["speedup_over"]]
    return out


def budget_text(budget):
    return "%s candidates or %s s" % budget


def merged_summary_section(records, budget, rows):
    """The heading line and score table of `rows`, the latest rows of `budget` (None: of any budget)."""
    searches = [r for r in records if r.get("summary")]
    used = [r for r in searches if any(row in rows for row in r["results"])]
    sources = ", ".join("%s `%s` (%s)" % (r["date"], r["name"], gpu_name(r)) for r in used)
    if budget is None:
        counts = collections.Counter(scores.budget_of(row) for row in rows)
        head = "Each problem's latest row of any budget (%s). Rows from %d record(s): %s." % (
            ", ".join("%d at %s" % (n, budget_text(b)) for b, n in counts.most_common()), len(used), sources)
    else:
        head = "Budget per problem: %s. Rows from %d record(s): %s." % (budget_text(budget), len(used), sources)
    return [head, ""] + kernelbench_summary_table(scores.level_summary(rows, scores.level_file_counts(ROOT)))


def kernelbench_merged_summary(records, with_cost_rank=True):
    """The KernelBench scores of every level over the latest row of each problem in the search records,
    of any budget, then (with_cost_rank: the long form in bench/RESULTS.md) the same for each budget,
    latest first (bench/kernelbench_search.py, --skip-recorded), and the cost model's rank correlation
    per problem class."""
    searches = [r for r in records if r.get("summary")]
    budgets = [scores.budget_of(row) for r in searches for row in r["results"] if not scores.not_run(row)]
    if not budgets:
        return ["No search record yet."]
    rows = scores.merged_search_rows(records)
    out = merged_summary_section(records, None, rows)
    if not with_cost_rank:
        return out
    for budget in dict.fromkeys(reversed(budgets)):  # latest first
        out += [""] + merged_summary_section(records, budget, scores.merged_search_rows(records, budget))
    return out + [""] + cost_rank_table(rows)


def cost_rank_table(rows):
    """The cost model's ranking of each search's verified candidates against their GPU medians (Spearman's
    rank correlation, the rows' search.cost_rank), per problem class."""
    by_class = {}
    for row in rows:
        search = row.get("search") or {}
        rho = (search.get("cost_rank") or {}).get("spearman")
        if rho is not None:
            by_class.setdefault(search.get("problem_class") or "-", []).append(rho)
    if not by_class:
        return ["No search row has the cost model's ranking against the GPU yet (3 timed candidates or more)."]
    out = ["The cost model's ranking of each search's verified candidates against their GPU medians "
           "(Spearman's rank correlation; 1: the same order):", "",
           "| problem class | problems | mean | lowest | below 0.5 |", "|---|---|---|---|---|"]
    for cls in sorted(by_class):
        v = by_class[cls]
        out.append("| %s | %d | %.2f | %.2f | %d |" % (cls, len(v), sum(v) / len(v), min(v),
                                                     sum(1 for x in v if x < 0.5)))
    return out


def sanitizer_cell(s):
    """compute-sanitizer's verdict on a search's best: clean, the tools with errors, or - (not run)."""
    if not s:
        return "-"
    if s["clean"]:
        return "clean"
    if s.get("run") is False:
        return "not run"
    errors = ", ".join("%s %d" % (tool, n) for tool, n in sorted(s["errors"].items()) if n)
    return "findings: " + errors if errors else "not clean"


def strict_kernel_cell(res):
    """The kernel a search row is scored by at 1e-4: its own, or its f32 / 3xtf32 stand-in with the
    time, precision and module checks."""
    k = res.get("strict_kernel")
    if not k:
        return "the same"
    yes = {True: "yes", False: "no", None: "-"}
    m = k.get("pytorch_match") or {}
    return "%s ms %s, module %s / %s" % (fmt_ms((k.get("cusched_ms") or {}).get("median")), k.get("precision", "-"),
                                         yes[m.get("1e-2")], yes[m.get("1e-4")])


def phases_cell(phases):
    """A search's GPU evaluation time: the total and its three largest phases, in seconds."""
    if not phases:
        return "-"
    top = sorted(phases.items(), key=lambda kv: -kv[1])[:3]
    return "%.1f: %s" % (sum(phases.values()), ", ".join("%s %.1f" % kv for kv in top if kv[1] > 0))


def file_seconds_cell(steps):
    """A file's wall seconds in the benchmark (its `steps_s` summed): the total, and the search's part and the
    rest's (timed runs, module checks, PyTorch); "-" for rows made before the steps were kept."""
    if not steps:
        return "-"
    search = steps.get("search", 0.0)
    return "%.0f (%.0f + %.0f)" % (sum(steps.values()), search, sum(steps.values()) - search)


def search_table(record):
    """The per-problem rows of a KernelBench search record (bench/kernelbench_search.py)."""
    head = ["problem", "timed", "cusched ms", "eager ms", "compile ms", "speedup vs faster", "module 1e-2 / 1e-4",
            "cusched 1e-2 / 1e-4", "precision", "kernel at 1e-4", "% of floor", "budget", "candidates (per min)",
            "sanitizer", "GPU evaluation s (largest phases)", "file s (search + rest)"]
    has_note = any(res.get("note") for res in record["results"])
    if has_note:
        head.append("note")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    yes = {True: "yes", False: "no", None: "-"}
    for res in record["results"]:
        search, match = res.get("search") or {}, res.get("pytorch_match") or {}
        t = pytorch_entry(res) or {}
        ms = res["cusched_ms"]["median"]
        faster = min([x for x in (t.get("eager_ms"), t.get("compile_ms")) if x is not None], default=None)
        pct = res.get("pct_of_floor")
        per_minute = search.get("candidates_per_minute")
        cells = [res.get("label", res["problem"]), search.get("timed", res.get("schedule", "-")), fmt_ms(ms),
                 fmt_ms(t.get("eager_ms")), fmt_ms(t.get("compile_ms")),
                 ("%.2fx" % (faster / ms)) if faster and timed(res) else "-",
                 "%s / %s%s" % (yes[match.get("1e-2")], yes[match.get("1e-4")],
                                " (reduced)" if match.get("reduced") else ""),
                 "%s / %s" % (yes[res["verified"]["1e-2"]], yes[res["verified"]["1e-4"]]),
                 precision_text(res) if ms else "-", strict_kernel_cell(res), ("%.1f" % pct) if pct is not None else "-",
                 "%s / %g s" % (search.get("candidates", "-"), search.get("seconds", 0)) if search else "-",
                 "%s (%s)" % (search.get("evaluated", "-"), "%.1f" % per_minute if per_minute is not None else "-"),
                 sanitizer_cell(search.get("sanitizer")), phases_cell(search.get("phase_s")),
                 file_seconds_cell(search.get("steps_s"))]
        if has_note:
            cells.append(res.get("note", ""))
        out.append("| " + " | ".join(cells) + " |")
    return out


def pytorch_match_summary(record):
    """One sentence counting a record's problems that match their PyTorch modules."""
    checked = [res["pytorch_match"] for res in record["results"] if res.get("pytorch_match")]
    if not checked:
        return None
    loose = sum(1 for m in checked if m["1e-2"])
    strict = sum(1 for m in checked if m["1e-4"])
    reduced = sum(1 for m in checked if m.get("reduced"))
    return ("%d problem files checked against their PyTorch modules: %d match at 1e-2, %d at 1e-4; "
            "%d ran at a reduced shape." % (len(checked), loose, strict, reduced))


def module_check_rows(records):
    """For each KernelBench problem, the row of its latest check of the problem file against its PyTorch
    module (the `pytorch_match` of rows that are not a search's kernel) with the record: {problem: (row,
    record)}; a check that did not compare (not run, a timeout) gives way to an earlier one that did."""
    latest = {}
    for r in records:
        for res in r["results"]:
            m = res.get("pytorch_match")
            if not m or res.get("search") or not is_kernelbench(res.get("problem", "")):
                continue
            before = latest.get(res["problem"])
            if m.get("status") == "compared" or not before or before[0]["pytorch_match"].get("status") != "compared":
                latest[res["problem"]] = (res, r)
    return latest


def kernelbench_order(name):
    """KernelBench's order of its problems: by level, then by the file's number."""
    m = re.match(r"kb(\d+)_(\d+)_", name)
    return (int(m.group(1)), int(m.group(2)), name) if m else (0, 0, name)


def module_check_table(records):
    """The KernelBench problem files against their modules: a count per level, then a row per file."""
    rows = module_check_rows(records)
    if not rows:
        return ["No problem file has been checked against its module yet."]
    out = ["| level | files checked | match at 1e-2 | match at 1e-4 | ran at a reduced shape | checked on |",
           "|---|---|---|---|---|---|"]
    for level in ("kb1_", "kb2_"):
        ms = [(res["pytorch_match"], r) for name, (res, r) in rows.items() if name.startswith(level)]
        gpus = collections.Counter(gpu_name(r) for _, r in ms)
        out.append("| %s | %d | %d | %d | %d | %s |" % (
            level[2], len(ms), sum(1 for m, _ in ms if m["1e-2"]), sum(1 for m, _ in ms if m["1e-4"]),
            sum(1 for m, _ in ms if m.get("reduced")), ", ".join("%s %d" % (g, n) for g, n in sorted(gpus.items()))))
    out += ["", "| problem | status | matches (1e-2 / 1e-4) | max abs / rel err | shape | GPU | commit | record |",
            "|---|---|---|---|---|---|---|---|"]
    for name in sorted(rows, key=kernelbench_order):
        res, r = rows[name]
        cells = [name] + pytorch_match_cells(res["pytorch_match"]) + [gpu_name(r), r.get("commit") or "-",
                                                                      "`%s`" % r["name"]]
        if res.get("note") and res["pytorch_match"].get("status") != "compared":
            cells[1] += ": " + res["note"][:120].replace("|", "/")
        out.append("| " + " | ".join(cells) + " |")
    return out
