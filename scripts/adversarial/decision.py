"""The decision for a problem: the candidate adversarial distributions for its targets,
measured by evaluating the stages, the first that meets every goal, and the sentence for
the file's notes that says what the adversarial trial exposes."""
import itertools
import math
import os

from .evaluation import GLOBALS, compile_expr, int_value
from .targets import find_targets, normalised_expr, sources

LOGIT_GOAL = 100.0      # exp overflows f32 above 88.7
LOGIT_LIMIT = 5000.0    # keep f32 logits precise (their rounding is below 1e-3)
# |mean| / std of the normalised values, median over the groups: E[x^2] - E[x]^2 in f32 errs
# by about 6e-8 ratio^2 of the variance, an honest f32 normalisation by about 6e-8 ratio
# times its rounding steps. The largest shift whose ratio stays within the bounds is taken.
RATIO_GOAL = 400.0
RATIO_LIMIT = 2500.0
SEEDS = (11, 12)

SOFTMAX_DIST = {"kind": "normal", "a": 120.0, "b": 4.0}
NORM_SHIFTS = (1000.0, 300.0, 100.0, 30.0, 10.0, 3.0)
NORM_SPREAD = 0.5


def measure(p, target, overrides, seed):
    vals = p.evaluate(overrides, seed)
    sizes = p.sizes()
    if target.kind == "softmax":
        name, doms, _ = p.stage_by_name[target.stage]
        local = {var: f"p_{k}" for k, (var, _) in enumerate(doms)}
        env = dict(GLOBALS)
        env.update({"T_" + k: v for k, v in vals.items()})
        fn = eval(f"lambda {', '.join(local[v] for v, _ in doms)}: {compile_expr(target.expr, sizes, local)}", env)
        shape = [int_value(ext, sizes) for _, ext in doms]
        row_max = [fn(*q) for q in itertools.product(*(range(n) for n in shape))]
        return vals, {"logits_min": min(row_max), "logits_max": max(row_max)}
    if target.kind == "norm":
        s_name, v_name = target.mean_stage, target.var_stage
        count = math.prod(int_value(ext, sizes) for _, ext in p.stage_by_name[s_name][2][2])
        ratios = []
        for s, v in zip(vals[s_name].data, vals[v_name].data):
            mean, var = s / count, v if getattr(target, "variance", False) else v / count
            ratios.append(abs(mean) / math.sqrt(var) if var > 0 else math.inf)
        ratios.sort()
        return vals, {"ratio_median": ratios[len(ratios) // 2], "ratio_min": ratios[0]}
    if target.kind == "rms":
        count = math.prod(int_value(ext, sizes) for _, ext in target.count)
        ms = sorted(v / count for v in vals[target.stage].data)
        return vals, {"mean_square_median": ms[len(ms) // 2]}
    if target.kind == "sum":
        spreads = [spread(vals[o].data) for o in p.outputs]
        return vals, {"output_spread": min(spreads)}
    raise ValueError(target.kind)


def spread(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def outputs_usable(p, vals):
    for o in p.outputs:
        data = vals[o].data
        if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in data):
            return False
        mean = sum(data) / len(data)
        lo, hi = min(data), max(data)
        if (len(data) == 1 and lo == 0) or (len(data) > 1 and hi - lo <= 1e-12 * (1 + abs(mean))):
            return False
    return True


def meets(target, stats):
    if target.kind == "softmax":
        return LOGIT_GOAL <= stats["logits_min"] and stats["logits_max"] <= LOGIT_LIMIT
    if target.kind == "norm":
        return RATIO_GOAL <= stats["ratio_median"] <= RATIO_LIMIT
    if target.kind == "rms":
        return stats["mean_square_median"] <= target.eps / 5
    return True


def candidates(p, target):
    """The overrides to try, in order: the first that works is taken."""
    out = []
    if target.kind == "softmax":
        direct, params, upstream = sources(p, target.expr)
        for name in direct + params:
            out.append({name: dict(SOFTMAX_DIST)})
        if upstream:
            out += [{name: {"kind": "normal", "a": float(shift), "b": 1.0} for name in upstream}
                    for shift in (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 32, 40, 50, 64, 80, 100, 128, 160, 200)]
    elif target.kind == "norm":
        direct, params, upstream = sources(p, normalised_expr(p, target))
        for name in direct + params + upstream:
            out += [{name: {"kind": "normal", "a": shift, "b": NORM_SPREAD}} for shift in NORM_SHIFTS]
    elif target.kind == "rms":
        direct, params, upstream = sources(p, target.square_of)
        sigma = 10.0 ** math.floor(math.log10(math.sqrt(target.eps / 10.0)))
        for name in direct:
            out.append({name: {"kind": "normal", "a": 0.0, "b": sigma}})
    elif target.kind == "sum":
        unit = {target.input: {"kind": "normal", "a": 0.0, "b": 1.0}}
        _, stats = measure(p, target, unit, SEEDS[0])
        sigma = 10.0 ** round(math.log10(100.0 / stats["output_spread"]))
        out.append({target.input: {"kind": "normal", "a": 0.0, "b": sigma}})
    return out


def decide(p, verbose=False):
    """(overrides, sentence) for the file, or (None, reason)."""
    if p.doc.get("constant_output"):
        return None, "the output is declared constant"
    targets = find_targets(p)
    if not targets:
        return None, p.skipped[0] if p.skipped else "no computation with a classic numerical shortcut"
    order = {"norm": 0, "softmax": 1, "rms": 2, "sum": 3}
    targets.sort(key=lambda t: order[t.kind])
    tried = []
    for primary in targets:
        for cand in candidates(p, primary):
            ok, met, stats_all = True, [], {}
            for t in targets:
                good = True
                for seed in SEEDS:
                    vals, stats = measure(p, t, cand, seed)
                    stats_all[t.kind + ":" + t.stage] = stats
                    if not outputs_usable(p, vals):
                        ok = False
                        break
                    good = good and meets(t, stats)
                if not ok:
                    break
                if good:
                    met.append(t)
            tried.append((cand, stats_all, ok))
            if verbose:
                print(f"  {os.path.basename(p.path)}: {format_overrides(cand)} -> {stats_all} usable={ok}")
            if ok and primary in met:
                return cand, sentence(p, cand, met)
    return None, "no candidate met the goal: " + "; ".join(
        f"{format_overrides(c)} {s}{'' if ok else ' (outputs not usable)'}" for c, s, ok in tried[:4])


def fmt_num(v):
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def format_dist(d):
    return f"{d['kind']}({fmt_num(d['a'])}, {fmt_num(d['b'])})"


def format_overrides(cand):
    names = list(cand)
    dists = {format_dist(d) for d in cand.values()}
    if len(dists) == 1:
        return " and ".join(names) + " from " + dists.pop()
    return ", ".join(f"{n} from {format_dist(d)}" for n, d in cand.items())


def sentence(p, cand, met):
    kinds = {t.kind for t in met}
    parts = []
    if "norm" in kinds:
        parts.append("the normalised values have a mean far larger than their spread, where a variance "
                     "computed as E[x^2] - E[x]^2 in f32 cancels")
    if "softmax" in kinds:
        parts.append("the logits of the exponential normalisation exceed 100, where exp without "
                     "subtracting the maximum overflows f32")
    if "rms" in kinds:
        eps = next(t.eps for t in met if t.kind == "rms")
        parts.append(f"their mean square is below eps ({eps:g}), where an eps left out or misplaced "
                     "changes the result")
    if "sum" in kinds:
        parts.append("the values have both signs and their sums cancel, where a sum with reduced-"
                     "precision (bf16 or f16) inputs or accumulator misses the tolerance")
    return "The adversarial trial draws " + format_overrides(cand) + ": " + "; ".join(parts) + "."
