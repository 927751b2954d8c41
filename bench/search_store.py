"""A search store (the SQLite database of `cusched search`) read for the KernelBench search benchmark
(bench/kernelbench_search.py): a run's best verified candidate, the cost model's rank correlation with
the GPU over its candidates, and where its evaluations (and other `cusched run`s) spent their time."""
import json
import sqlite3
import statistics


def store_best(db, run=None, precisions=None):
    """The run's best verified candidate in a search store (the latest run when `run` is None), as the
    store's leaderboard ranks them (GPU median, then id), among the candidates of `precisions` when given:
    {run, candidate, schedule, precision, best_ms, baseline_ms, best_is_baseline, evaluated, verified};
    candidate and schedule are None where nothing verified."""
    con = sqlite3.connect(db)
    try:
        if run is None:
            run = con.execute("SELECT max(id) FROM runs").fetchone()[0]
            if run is None:
                return None
        evaluated, verified = con.execute(
            "SELECT count(*), coalesce(sum(e.verified), 0) FROM evaluations e JOIN candidates c ON c.id = e.candidate "
            "WHERE c.run = ?", (run,)).fetchone()
        first = con.execute("SELECT min(id) FROM candidates WHERE run = ?", (run,)).fetchone()[0]
        base = con.execute("SELECT median_ms FROM evaluations WHERE candidate = ? AND verified = 1",
                           (first,)).fetchone() if first is not None else None
        among = " AND e.precision IN (%s)" % ", ".join("?" * len(precisions)) if precisions else ""
        best = con.execute(
            "SELECT c.id, c.schedule, e.median_ms, e.precision, (SELECT i.text FROM ideas i WHERE i.id = c.idea) "
            "FROM candidates c JOIN evaluations e "
            "ON e.candidate = c.id WHERE c.run = ? AND e.verified = 1 AND e.median_ms IS NOT NULL "
            "AND c.schedule_hash NOT LIKE 'kernel-%'" + among + " ORDER BY e.median_ms, c.id LIMIT 1",
            (run,) + tuple(precisions or ())).fetchone()
        sanitizer = None
        if best:
            result = con.execute("SELECT result FROM evaluations WHERE candidate = ?", (best[0],)).fetchone()
            sanitizer = sanitizer_entry(json.loads(result[0]) if result and result[0] else {})
    finally:
        con.close()
    return {"run": run, "candidate": best[0] if best else None, "schedule": json.loads(best[1]) if best else None,
            "precision": best[3] if best else None, "sanitizer": sanitizer, "idea": best[4] if best else None,
            "best_ms": best[2] if best else None, "baseline_ms": base[0] if base else None,
            "best_is_baseline": bool(best) and best[0] == first, "evaluated": evaluated, "verified": verified}


def ranks(values):
    """The rank of each value (1 = smallest), ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return out


def spearman(xs, ys):
    """Spearman's rank correlation of two equally long lists (the Pearson correlation of their ranks);
    None under 3 pairs or without spread."""
    if len(xs) < 3:
        return None
    try:
        return max(-1.0, min(1.0, statistics.correlation(ranks(xs), ranks(ys))))
    except statistics.StatisticsError:  # a list without spread
        return None


def cost_rank(db, run):
    """The cost model against the GPU over a run's verified, timed candidates: {candidates, spearman}."""
    con = sqlite3.connect(db)
    try:
        pairs = con.execute(
            "SELECT e.cost_estimate, e.median_ms FROM evaluations e JOIN candidates c ON c.id = e.candidate "
            "WHERE c.run = ? AND e.verified = 1 AND e.median_ms IS NOT NULL AND e.cost_estimate > 0",
            (run,)).fetchall()
    finally:
        con.close()
    rho = spearman([p[0] for p in pairs], [p[1] for p in pairs])
    return {"candidates": len(pairs), "spearman": round(rho, 4) if rho is not None else None}


PHASES = ("compile", "generate", "upload", "candidate", "reference", "download", "check", "timing", "gpu_wait")


def summed_phases(results):
    """Each evaluation phase (PHASES) summed over GPU results ({"gpu": {"phase_ms": ...}}, None allowed), in
    seconds; None where no result has them."""
    total, seen = {p: 0.0 for p in PHASES}, False
    for result in results:
        phases = (((result or {}).get("gpu") or {}).get("phase_ms") or {}) if isinstance(result, dict) else {}
        for p in PHASES:
            if isinstance(phases.get(p), (int, float)):
                total[p] += phases[p] / 1000.0
                seen = True
    return {p: round(v, 2) for p, v in total.items()} if seen else None


def phase_seconds(db, run):
    """Where a run's GPU evaluations spent their time: each phase of the evaluation (runtime/evaluation.h
    PhaseTimes) summed over the run's candidates, in seconds; None where no candidate was evaluated on a
    GPU."""
    con = sqlite3.connect(db)
    try:
        texts = con.execute("SELECT e.result FROM evaluations e JOIN candidates c ON c.id = e.candidate "
                            "WHERE c.run = ?", (run,)).fetchall()
    finally:
        con.close()
    results = []
    for (text,) in texts:
        try:
            results.append(json.loads(text or "{}"))
        except ValueError:
            continue
    return summed_phases(results)


def run_phase_seconds(*runs):
    """Where `cusched run`s spent their time: each evaluation phase (PHASES) summed over the runs' GPU
    results (their JSON replies), in seconds; None where no run has them."""
    return summed_phases(runs)


def sanitizer_entry(result):
    """The search's compute-sanitizer verdict on its best, from the evaluation's stored result:
    {clean, errors per tool}, None where it did not run."""
    report = result.get("sanitizer") if isinstance(result, dict) else None
    if not isinstance(report, dict):
        return None
    if report.get("run") is False:
        return {"clean": False, "run": False, "errors": {}, "problem": str(report.get("problem") or "")[:300]}
    errors = {}
    for r in report.get("runs") or []:
        if isinstance(r, dict) and r.get("tool"):
            errors[str(r["tool"])] = max(0, int(r.get("errors") or 0))
    return {"clean": bool(report.get("clean")), "errors": errors}
