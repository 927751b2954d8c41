"""Finding the computations of a problem's stages that a numerical shortcut gets wrong
(softmax, normalisation, rms, long sum), and the inputs whose distribution moves them."""
import math

from .evaluation import int_value
from .expression import FUNCTIONS, loads, replace, walk

LONG_AXIS = 256         # a plain sum over at least this many elements at the bench size


def strip_padded(e):
    return e[2][0] if e[0] == "call" and e[1] == "padded" else e


class Target:
    """One computation a shortcut gets wrong: `kind` softmax | norm | rms | sum, `stage` the
    stage it is found in; for softmax, `expr` is the row maximum of the logits without the
    maximum subtracted, an expression over the stage's variables."""

    def __init__(self, kind, stage, expr, **extra):
        self.kind = kind
        self.stage = stage
        self.expr = expr
        self.__dict__.update(extra)


def red_kind(p, name):
    """The reduction a stage's body is (sum, maximum, ...), or None."""
    s = p.stage_by_name.get(name)
    return s[2][1] if s and s[2][0] == "red" else None


def find_targets(p):
    targets = []
    used_sums = set()
    stages = p.stages
    # softmax: a sum of exp(E - M) with M a maximum.
    for name, doms, body in stages:
        for node in walk(body):
            if node[0] != "red" or node[1] != "sum":
                continue
            for sub in walk(node[3]):
                if sub[0] != "call" or sub[1] != "exp":
                    continue
                arg = sub[2][0]
                # the maximum subtracted: one per row of the sum, so its load does not use
                # the sum's own variables (a max pooling of the logits does).
                rvars = {v for v, _ in node[2]}
                maxima = [l for l in loads(arg) if red_kind(p, l[1]) == "maximum"
                          and not any(n[0] == "name" and n[1] in rvars for a in l[2] for n in walk(a))]
                inline = [n for n in walk(arg) if n[0] == "red" and n[1] == "maximum"]
                if not maxima and not inline:
                    continue
                zero = ("num", 0.0)
                logits = replace(arg, lambda n: zero if (n in maxima or n in inline) else None)
                probe = ("red", "maximum", node[2], logits)
                targets.append(Target("softmax", name, probe, doms=doms))
                used_sums.add(name)
                used_sums.update(l[1] for l in maxima)
                break
    # softmax written with logsumexp: its body is the logits.
    for name, doms, body in stages:
        for node in walk(body):
            if node[0] == "red" and node[1] == "logsumexp":
                targets.append(Target("softmax", name, ("red", "maximum", node[2], node[3]), doms=doms))
                used_sums.add(name)
                break
    # normalisation: a sum of C * C with C = E - S / n, S a sum of E.
    for name, doms, body in stages:
        if body[0] != "red" or body[1] != "sum":
            continue
        sq = body[3]
        if not (sq[0] == "bin" and sq[1] == "*" and sq[2] == sq[3]):
            continue
        centred = sq[2]
        if centred[0] == "call" and centred[1] in p.stage_by_name:
            cen_stage = p.stage_by_name[centred[1]]
            centred = cen_stage[2]
        if not (centred[0] == "bin" and centred[1] == "-"):
            # a mean of squares (RMS): needs sqrt or rsqrt of it plus an eps downstream.
            eps = rms_eps(p, name)
            if eps is not None:
                targets.append(Target("rms", name, ("red", "sum", body[2], ("bin", "*", sq[2], sq[2])),
                                      doms=doms, eps=eps, count=body[2], square_of=sq[2]))
                used_sums.add(name)
            continue
        mean_loads = [l for l in loads(centred[3]) if red_kind(p, l[1]) == "sum"]
        if not mean_loads:
            continue
        s_name = mean_loads[0][1]
        if not feeds_root(p, name):
            continue
        if sums_whole_groups(p, s_name, name):
            p.skipped.append(f"the output sums the normalised values of {name}'s groups, which cancel: a large "
                             "mean would show an honest f32 normalisation's rounding there")
            continue
        targets.append(Target("norm", name, None, doms=doms, mean_stage=s_name, var_stage=name))
        used_sums.update({s_name, name})
    # normalisation written with variance: its body is the normalised values; the sum of
    # the same values over the same domain is its mean.
    for name, doms, body in stages:
        if body[0] != "red" or body[1] != "variance" or not feeds_root(p, name):
            continue
        if sums_whole_groups(p, name, name):
            p.skipped.append(f"the output sums the normalised values of {name}'s groups, which cancel: a large "
                             "mean would show an honest f32 normalisation's rounding there")
            continue
        means = [st for st, _, b in stages if b[0] == "red" and b[1] == "sum" and b[2:] == body[2:]]
        if not means:
            continue
        targets.append(Target("norm", name, None, doms=doms, mean_stage=means[0], var_stage=name, variance=True))
        used_sums.update({name, means[0]})
    # plain sums of an input over a long axis.
    bench = p.sizes("bench") if "bench" in p.doc["sizes"] else p.sizes()
    for name, doms, body in stages:
        if name in used_sums or body[0] != "red" or body[1] != "sum":
            continue
        term = body[3]
        while term[0] == "bin" and term[1] in ("*", "/") and term[3][0] == "num":
            term = term[2]
        term = strip_padded(term)
        if not (term[0] == "call" and term[1] in p.inputs and p.inputs[term[1]]["dtype"] in ("f32", "f16", "bf16", "f64")):
            continue
        length = math.prod(int_value(ext, bench) for _, ext in body[2])
        if length >= LONG_AXIS:
            targets.append(Target("sum", name, None, doms=doms, input=term[1]))
    return targets


def rms_eps(p, s_name):
    """The eps added to the mean of squares S under sqrt or rsqrt in a later stage."""
    for name, doms, body in p.stages:
        for node in walk(body):
            if node[0] == "call" and node[1] in ("sqrt", "rsqrt"):
                arg = node[2][0]
                if any(l[1] == s_name for l in loads(arg)) and arg[0] == "bin" and arg[1] == "+" \
                        and arg[3][0] == "num" and 0 < arg[3][1] < 1e-2:
                    return float(arg[3][1])
    return None


def feeds_root(p, var_stage):
    for name, doms, body in p.stages:
        for node in walk(body):
            if node[0] == "call" and node[1] in ("sqrt", "rsqrt") and any(l[1] == var_stage for l in loads(node[2][0])):
                return True
    return False


def downstream(p, name):
    """The stages that read `name`, directly or through other stages."""
    out, frontier = [], {name}
    for st, doms, body in p.stages:
        if any(l[1] in frontier for l in loads(body)):
            out.append((st, doms, body))
            frontier.add(st)
    return out


def sums_whole_groups(p, s_name, var_stage):
    """Whether a later sum adds up the normalised values over whole groups of the norm
    (its extents a subset of the group statistic's): such a sum of values of mean 0 is
    tiny against them, and an honest f32 normalisation's rounding, amplified by a large
    mean, shows in it. Level 2 #23 (the mean of a GroupNorm's output) is one."""
    group = {repr(ext) for _, ext in p.stage_by_name[s_name][1]}
    for st, doms, body in downstream(p, var_stage):
        if body[0] == "red" and body[1] == "sum" and {repr(ext) for _, ext in doms} <= group:
            return True
    return False


def normalised_expr(p, t):
    return p.stage_by_name[t.mean_stage][2][3]


def sources(p, expr):
    """The inputs whose distribution moves `expr`: (data inputs read directly, parameters
    added or multiplied on the way, nearest first, data inputs behind a contraction)."""
    direct, params, upstream = [], [], []
    seen = set()
    queue = [(expr, 0)]
    while queue:
        e, behind = queue.pop(0)
        for node in walk(e):
            if node[0] != "call" or node[1] in FUNCTIONS or node[1] == "padded":
                continue
            name = node[1]
            if name in seen:
                continue
            seen.add(name)
            if name in p.inputs:
                if p.inputs[name]["dtype"] not in ("f32", "f16", "bf16", "f64"):
                    continue
                if p.is_data(name):
                    (upstream if behind else direct).append(name)
                elif not behind:
                    params.append(name)
                continue
            st = p.stage_by_name.get(name)
            if st is None:
                continue
            body = st[2]
            contraction = body[0] == "red" and body[1] == "sum" and any(
                n[0] == "bin" and n[1] == "*" and len(list(loads(n[2]))) and len(list(loads(n[3])))
                for n in walk(body[3]))
            queue.append((body, behind or contraction))
    return direct, params, upstream
