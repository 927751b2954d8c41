"""A float64 evaluator of the stages (each stage compiled to a Python function), and Problem:
a problem file with its stages parsed, evaluated on inputs drawn from its distributions."""
import itertools
import json
import math
import random
import statistics

from .expression import FUNCTIONS, REDUCTION_CALLS, SyntaxProblem, parse_expr, parse_stage


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x):
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan


def _sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


def _rsqrt(x):
    return 1.0 / math.sqrt(x) if x > 0 else (math.inf if x == 0 else math.nan)


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = _exp(x)
    return z / (1.0 + z)


def _softplus(x):
    return x if x > 20 else math.log1p(_exp(x))


def _div(a, b):
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    try:
        return a / b
    except ZeroDivisionError:
        return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1, b)


def _mod(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return int(math.fmod(a, b))
    return math.fmod(a, b)


def _argext(values, better):
    best, best_i = None, 0
    for i, v in enumerate(values):
        if best is None or better(v, best):
            best, best_i = v, i
    return best_i


def _logsumexp(values):
    m = max(values)
    if math.isinf(m) or m != m:
        return m
    return m + math.log(math.fsum(math.exp(v - m) for v in values))


def _round_even(x):
    return float(round(x))


def _sign(x):
    return (x > 0) - (x < 0)


def _clamp(x, lo, hi):
    return min(max(x, lo), hi)


def _pow(a, b):
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        return math.nan


GLOBALS = {"math": math, "_exp": _exp, "_log": _log, "_sqrt": _sqrt, "_rsqrt": _rsqrt,
           "_sigmoid": _sigmoid, "_softplus": _softplus, "_div": _div, "_mod": _mod,
           "_argext": _argext, "_logsumexp": _logsumexp, "statistics": statistics, "_round_even": _round_even, "_sign": _sign, "_clamp": _clamp,
           "_pow": _pow, "inf": math.inf, "nan": math.nan}


class Tensor:
    def __init__(self, shape, data):
        self.shape = list(shape)
        self.data = data
        self.strides = []
        s = 1
        for d in reversed(self.shape):
            self.strides.insert(0, s)
            s *= d

    def load(self, *idx):
        off = 0
        for i, d, s in zip(idx, self.shape, self.strides):
            i = min(max(int(i), 0), d - 1)
            off += i * s
        return self.data[off]

    def padded(self, pad, *idx):
        off = 0
        for i, d, s in zip(idx, self.shape, self.strides):
            if i < 0 or i >= d:
                return pad
            off += int(i) * s
        return self.data[off]


def int_value(e, sizes):
    v = eval(compile_expr(e, sizes, {}), dict(GLOBALS), {})  # noqa: S307 (our own syntax)
    return int(v)


def compile_expr(e, sizes, local):
    """Python source for `e`; `local` maps the variables in scope to Python names."""
    tag = e[0]
    if tag == "num":
        v = e[1]
        if isinstance(v, bool):
            return repr(v)
        if isinstance(v, float) and not math.isfinite(v):
            return "nan" if v != v else ("inf" if v > 0 else "-inf")
        return repr(v)
    if tag == "name":
        if e[1] in local:
            return local[e[1]]
        if e[1] in sizes:
            return repr(int(sizes[e[1]]))
        raise SyntaxProblem(f"unknown name {e[1]!r}")
    if tag == "un":
        inner = compile_expr(e[2], sizes, local)
        return f"(-{inner})" if e[1] == "-" else f"(not {inner})"
    if tag == "bin":
        a, b = compile_expr(e[2], sizes, local), compile_expr(e[3], sizes, local)
        op = e[1]
        if op == "/":
            return f"_div({a}, {b})"
        if op == "%":
            return f"_mod({a}, {b})"
        if op == "&&":
            return f"({a} and {b})"
        if op == "||":
            return f"({a} or {b})"
        if op == "^":
            return f"(int({a}) ^ int({b}))"
        return f"({a} {op} {b})"
    if tag == "call":
        name, args = e[1], e[2]
        if name == "padded":
            load = args[0]
            pad = compile_expr(args[1], sizes, local) if len(args) > 1 else "0.0"
            idx = ", ".join(compile_expr(a, sizes, local) for a in load[2])
            return f"T_{load[1]}.padded({pad}, {idx})"
        if name == "select":
            c, t, f = (compile_expr(a, sizes, local) for a in args)
            return f"({t} if {c} else {f})"
        if name in FUNCTIONS:
            return f"{FUNCTIONS[name]}(" + ", ".join(compile_expr(a, sizes, local) for a in args) + ")"
        idx = ", ".join(compile_expr(a, sizes, local) for a in args)
        return f"T_{name}.load({idx})"
    if tag == "red":
        op, doms, body = e[1], e[2], e[3]
        inner = dict(local)
        loops = []
        for var, ext in doms:
            py = f"r_{var}_{len(inner)}"
            loops.append(f"for {py} in range({int_value(ext, sizes)})")
            inner[var] = py
        gen = f"{compile_expr(body, sizes, inner)} " + " ".join(loops)
        if op in REDUCTION_CALLS:
            return REDUCTION_CALLS[op].format(gen)
    raise SyntaxProblem(f"cannot evaluate {e!r}")


class Problem:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.doc = json.loads(self.text)
        self.stages = [parse_stage(s) for s in self.doc["stages"]]
        self.stage_by_name = {s[0]: s for s in self.stages}
        self.inputs = {i["name"]: i for i in self.doc["inputs"]}
        src = self.doc.get("source") or {}
        self.data_inputs = [a for a in src.get("forward_args", []) if isinstance(a, str)]
        self.outputs = self.doc["outputs"]
        self.skipped = []  # why a computation found gets no adversarial inputs

    def sizes(self, table="small"):
        return self.doc["sizes"][table]

    def is_data(self, name):
        return name in self.data_inputs or not (self.doc.get("source") or {}).get("parameters")

    def draw(self, name, dist, shape, rng):
        dtype = self.inputs[name]["dtype"]
        n = math.prod(shape)
        kind, a, b = dist.get("kind", "normal"), dist.get("a", 0.0), dist.get("b", 1.0)
        if kind == "normal":
            vals = [rng.gauss(a, b) for _ in range(n)]
        elif kind == "uniform":
            vals = [rng.uniform(a, b) for _ in range(n)]
        else:
            vals = [rng.randint(math.ceil(a), math.floor(b)) for _ in range(n)]
        if dtype in ("i32", "i64"):
            vals = [int(v) for v in vals]
        elif dtype == "bool":
            vals = [bool(v) for v in vals]
        else:
            vals = [float(v) for v in vals]
        return vals

    def evaluate(self, overrides, seed, table="small"):
        """Every stage's values in float64 on inputs drawn with `seed`; `overrides` maps an
        input to the distribution that replaces its standard one."""
        sizes = self.sizes(table)
        rng = random.Random(seed)
        env = dict(GLOBALS)
        values = {}
        for inp in self.doc["inputs"]:
            shape = [int_value(parse_expr(str(d)), sizes) for d in inp["shape"]]
            dist = overrides.get(inp["name"], inp.get("distribution", {"kind": "normal", "a": 0, "b": 1}))
            t = Tensor(shape, self.draw(inp["name"], dist, shape, rng))
            env["T_" + inp["name"]] = t
            values[inp["name"]] = t
        for name, doms, body in self.stages:
            shape = [int_value(ext, sizes) for _, ext in doms]
            local = {var: f"p_{k}" for k, (var, _) in enumerate(doms)}
            params = ", ".join(local[v] for v, _ in doms)
            if body[0] == "scan":
                data = self._scan(body, doms, shape, sizes, local, params, env)
            else:
                src = f"lambda {params}: {compile_expr(body, sizes, local)}"
                fn = eval(src, env)  # noqa: S307 (our own syntax)
                data = [fn(*p) for p in itertools.product(*(range(n) for n in shape))]
            t = Tensor(shape, data)
            env["T_" + name] = t
            values[name] = t
        return values

    def _scan(self, body, doms, shape, sizes, local, params, env):
        _, op, var, reverse, exclusive, inner = body
        fn = eval(f"lambda {params}: {compile_expr(inner, sizes, local)}", env)  # noqa: S307
        axis = [v for v, _ in doms].index(var)
        t = Tensor(shape, [0.0] * math.prod(shape))
        other = [range(n) if k != axis else range(1) for k, n in enumerate(shape)]
        for base in itertools.product(*other):
            acc = 0.0 if op == "cumsum" else 1.0
            order = range(shape[axis] - 1, -1, -1) if reverse else range(shape[axis])
            for j in order:
                p = list(base)
                p[axis] = j
                v = fn(*p)
                if exclusive:
                    out = acc
                    acc = acc + v if op == "cumsum" else acc * v
                else:
                    acc = acc + v if op == "cumsum" else acc * v
                    out = acc
                t.data[sum(i * s for i, s in zip(p, t.strides))] = out
        return t.data
