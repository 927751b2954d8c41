#!/usr/bin/env python3
"""Gives the KernelBench problem files adversarial input distributions against the classic
numerical shortcuts of their computations.

usage: kernelbench_adversarial.py [FILE ...] [--include-transposed] [--check] [--dry-run]
                                  [--cusched PATH] [--verbose]

For each problem file (default: every problems/kernelbench/level*/*.json but those whose
name or stages hold a transposed convolution, unless --include-transposed) it reads the
stages and finds the computations a shortcut can get wrong:

- softmax: a sum of exp(E - M) where M is a maximum of E (softmax, log-softmax,
  log-sum-exp, cross-entropy, attention). The adversarial inputs make the logits E exceed
  100: normal(120, 4) where an input or an added parameter reaches E unchanged, else the
  data inputs of the contraction that produces E normal(m, 1) with the smallest m of a
  ladder that gets there (attention's Q and K). Exp without the subtraction of the maximum
  overflows f32 above 88.7.
- normalisation: a sum of (E - S / n)^2 where S is a sum of E, or a variance of E, under
  rsqrt or sqrt
  (BatchNorm, InstanceNorm, GroupNorm, LayerNorm). The inputs make E's mean large against
  its spread: normal(s, 0.5) with s the largest of 1000, 300, 100, 30, 10, 3 that puts the
  median |mean| / std of E's groups between 400 and 2500 at the small size. A variance
  computed as E[x^2] - E[x]^2 in f32 errs by about 6e-8 ratio^2 of itself; an honest f32
  two-pass one by about 6e-8 ratio. A norm whose groups a later sum adds up whole (the
  mean of a GroupNorm's output) is left alone: that sum cancels, and shows the honest
  kernel's rounding.
- rms: the square root of a mean of squares plus an eps (RMSNorm). The inputs are tiny
  (mean square a tenth of eps): an eps left out or misplaced changes the result.
- sum: a plain sum of an input over a long axis (at least 256 at the bench size; sums and
  means). The inputs are zero-mean normal, scaled so the reduced outputs spread about 100
  at the small size: their sums cancel, so a sum in reduced precision (bf16 or f16 inputs
  or accumulator) misses the tolerance, while an f32 one stays well inside it at the bench
  size.

Each candidate input (the data input that E reads directly, else a parameter added on the
way to E, nearest first, else the data inputs of the contraction that produces E) is tried
by evaluating the stages in float64 at the small size (a plain Python evaluator of the
stage syntax): the first whose logits, ratio |mean| / std or mean square meets the class's
goal on every seed, and whose outputs are finite and not constant, is written as the
input's `adversarial` distribution, with one sentence at the end of the file's `notes`
saying what the adversarial trial exposes. A file where no candidate works (a clamp or a
sigmoid bounds the tensor; the output is declared constant) keeps no adversarial
distribution, and a sentence this script wrote before is removed. The file's text is edited
in place: only the `adversarial` entries and `notes` change, in the file's own layout;
running the script again changes nothing.

The file is longer than the project's usual ~600 lines because it holds, besides the
decisions, the small float64 evaluator of the stage syntax that the decisions measure with
(the statistics of intermediate stages at chosen inputs, which no cusched command prints);
the stages' meaning stays defined by dsl/, and --cusched checks every written file with it.

--check changes nothing and exits 1 when a file is not as the script would write it.
--dry-run prints the decisions without writing. --cusched PATH verifies each file that has
an adversarial distribution afterwards: `PATH run -p FILE -s baseline --backend interp
--size small --json` must be ok (the adversarial trial included); --verbose prints the
measured statistics.
"""
import argparse
import itertools
import json
import math
import statistics
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB_DIR = os.path.join(ROOT, "problems", "kernelbench")
TRANSPOSED = re.compile(r"ConvTranspose|conv_transposed|convtranspose", re.IGNORECASE)
SENTENCE = re.compile(r"\s*The adversarial trial draws .*$", re.DOTALL)

LONG_AXIS = 256         # a plain sum over at least this many elements at the bench size
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


# ----------------------------------------------------------------------------------------
# The stage syntax (docs/problem-files.md): a tokenizer and a recursive-descent parser.

class SyntaxProblem(ValueError):
    pass


TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?:_?(?:f32|f64|f16|bf16|i32|i64|f))?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\|\||&&|==|!=|<=|>=|[-+*/%<>!^(),:=])
""", re.VERBOSE)

REDUCTIONS = {"sum", "product", "maximum", "minimum", "max", "min", "argmax", "argmin", "logsumexp", "variance"}
# The Python each reduction evaluates to, around the generator of its body's values.
REDUCTION_CALLS = {
    "sum": "math.fsum({})", "product": "math.prod({})", "maximum": "max({})", "minimum": "min({})",
    "argmax": "_argext(({}), lambda a, b: a > b)", "argmin": "_argext(({}), lambda a, b: a < b)",
    "logsumexp": "_logsumexp([{}])", "variance": "statistics.pvariance([{}])",
}
SCANS = {"cumsum", "cumprod"}
BINARY_LEVELS = [["||"], ["&&"], ["^"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"],
                 ["*", "/", "%"]]


def tokenize(text):
    out, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise SyntaxProblem(f"unexpected character {text[pos]!r} in {text!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group(m.lastgroup)))
    out.append(("end", ""))
    return out


class Parser:
    def __init__(self, text):
        self.toks = tokenize(text)
        self.i = 0
        self.text = text

    def peek(self, k=0):
        return self.toks[self.i + k]

    def take(self, value=None):
        tok = self.toks[self.i]
        if value is not None and tok[1] != value:
            raise SyntaxProblem(f"expected {value!r}, found {tok[1]!r} in {self.text!r}")
        self.i += 1
        return tok

    def stage(self):
        name = self.take()[1]
        self.take("(")
        doms = []
        if self.peek()[1] != ")":
            doms = self.domains()
        self.take(")")
        self.take("=")
        body = self.expr()
        if self.peek()[0] != "end":
            raise SyntaxProblem(f"trailing text in {self.text!r}")
        return name, doms, body

    def domains(self):
        doms = []
        while True:
            var = self.take()[1]
            self.take("in")
            doms.append((var, self.expr()))
            if self.peek()[1] != ",":
                return doms
            self.take(",")

    def expr(self, level=0):
        if level == len(BINARY_LEVELS):
            return self.unary()
        lhs = self.expr(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in BINARY_LEVELS[level]:
            op = self.take()[1]
            lhs = ("bin", op, lhs, self.expr(level + 1))
        return lhs

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            return ("un", "-", self.unary())
        if self.peek()[1] == "!":
            self.take()
            return ("un", "!", self.unary())
        return self.primary()

    def primary(self):
        kind, value = self.take()
        if kind == "num":
            return ("num", number_value(value))
        if kind == "op" and value == "(":
            e = self.expr()
            self.take(")")
            return e
        if kind != "name":
            raise SyntaxProblem(f"unexpected {value!r} in {self.text!r}")
        if self.peek()[1] != "(":
            low = value.lower()
            if re.fullmatch(r"inf(_?(f32|f64|f16|bf16))?", low):
                return ("num", math.inf)
            if re.fullmatch(r"nan(_?(f32|f64|f16|bf16))?", low):
                return ("num", math.nan)
            if value in ("true", "false"):
                return ("num", value == "true")
            return ("name", value)
        self.take("(")
        if value in REDUCTIONS and self.peek()[0] == "name" and self.peek(1)[1] == "in":
            doms = self.domains()
            self.take(":")
            body = self.expr()
            self.take(")")
            op = {"max": "maximum", "min": "minimum"}.get(value, value)
            return ("red", op, doms, body)
        if value in SCANS:
            var = self.take()[1]
            flags = []
            while self.peek()[1] == ",":
                self.take(",")
                flags.append(self.take()[1])
            self.take(":")
            body = self.expr()
            self.take(")")
            return ("scan", value, var, "reverse" in flags, "exclusive" in flags, body)
        args = []
        if self.peek()[1] != ")":
            while True:
                args.append(self.expr())
                if self.peek()[1] != ",":
                    break
                self.take(",")
        self.take(")")
        return ("call", value, args)


def number_value(text):
    core = re.sub(r"_?(f32|f64|f16|bf16|i32|i64|f)$", "", text)
    if re.fullmatch(r"\d+", core) and not re.search(r"(f32|f64|f16|bf16|f)$", text):
        return int(core)
    return float(core)


def parse_stage(text):
    return Parser(text).stage()


def parse_expr(text):
    p = Parser(text)
    e = p.expr()
    if p.peek()[0] != "end":
        raise SyntaxProblem(f"trailing text in {text!r}")
    return e


def walk(e):
    """Every node of `e`, parents first."""
    yield e
    tag = e[0]
    if tag == "un":
        yield from walk(e[2])
    elif tag == "bin":
        yield from walk(e[2])
        yield from walk(e[3])
    elif tag == "call":
        for a in e[2]:
            yield from walk(a)
    elif tag == "red":
        for _, ext in e[2]:
            yield from walk(ext)
        yield from walk(e[3])
    elif tag == "scan":
        yield from walk(e[5])


def loads(e):
    """The loads in `e`: (name, args, padded)."""
    for node in walk(e):
        if node[0] == "call" and node[1] not in FUNCTIONS and node[1] not in ("padded",):
            yield node


def replace(e, fn):
    """`e` with every node for which fn returns a value replaced by it."""
    r = fn(e)
    if r is not None:
        return r
    tag = e[0]
    if tag == "un":
        return ("un", e[1], replace(e[2], fn))
    if tag == "bin":
        return ("bin", e[1], replace(e[2], fn), replace(e[3], fn))
    if tag == "call":
        return ("call", e[1], [replace(a, fn) for a in e[2]])
    if tag == "red":
        return ("red", e[1], e[2], replace(e[3], fn))
    if tag == "scan":
        return e[:5] + (replace(e[5], fn),)
    return e


# ----------------------------------------------------------------------------------------
# A float64 evaluator of the stages (each stage compiled to a Python function).

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


FUNCTIONS = {
    "exp": "_exp", "log": "_log", "sqrt": "_sqrt", "rsqrt": "_rsqrt", "tanh": "math.tanh",
    "erf": "math.erf", "abs": "abs", "sigmoid": "_sigmoid", "softplus": "_softplus",
    "log1p": "math.log1p", "expm1": "math.expm1", "floor": "math.floor", "ceil": "math.ceil",
    "round": "_round_even", "sign": "_sign", "sin": "math.sin", "cos": "math.cos",
    "clamp": "_clamp", "min": "min", "max": "max", "pow": "_pow", "select": "_select",
    "f32": "float", "f16": "float", "bf16": "float", "f64": "float", "i32": "int",
    "i64": "int", "bool": "bool",
}


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


# ----------------------------------------------------------------------------------------
# Finding the computations a shortcut gets wrong.

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


# ----------------------------------------------------------------------------------------
# Measuring a candidate.

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


# ----------------------------------------------------------------------------------------
# Editing a file's text in its own layout.

class Span:
    def __init__(self, kind, start, end, children=None):
        self.kind, self.start, self.end = kind, start, end
        self.children = children  # object: [(key, key_start, value Span)], array: [Span]


def scan_json(s, i=0):
    def ws(i):
        while i < len(s) and s[i] in " \t\r\n":
            i += 1
        return i

    def value(i):
        i = ws(i)
        c = s[i]
        if c == "{":
            kids, j = [], ws(i + 1)
            if s[j] == "}":
                return Span("object", i, j + 1, kids)
            while True:
                j = ws(j)
                key_span = string(j)
                key = json.loads(s[key_span.start:key_span.end])
                j = ws(key_span.end)
                assert s[j] == ":"
                v = value(j + 1)
                kids.append((key, key_span.start, v))
                j = ws(v.end)
                if s[j] == "}":
                    return Span("object", i, j + 1, kids)
                assert s[j] == ","
                j += 1
        if c == "[":
            kids, j = [], ws(i + 1)
            if s[j] == "]":
                return Span("array", i, j + 1, kids)
            while True:
                v = value(j)
                kids.append(v)
                j = ws(v.end)
                if s[j] == "]":
                    return Span("array", i, j + 1, kids)
                assert s[j] == ","
                j += 1
        if c == '"':
            return string(i)
        m = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null").match(s, i)
        return Span("scalar", i, m.end())

    def string(i):
        assert s[i] == '"'
        j = i + 1
        while s[j] != '"':
            j += 2 if s[j] == "\\" else 1
        return Span("string", i, j + 1)

    return value(i)


def member(obj, key):
    for k, kstart, v in obj.children:
        if k == key:
            return kstart, v
    return None


def render_dist(d, like_text):
    """`d` as JSON in the number style of `like_text` (a distribution of the file)."""
    floats = bool(re.search(r'"a":\s*-?\d+\.\d', like_text or ""))

    def num(v):
        v = float(v)
        if v.is_integer() and not floats:
            return str(int(v))
        return json.dumps(v)

    items = [("kind", json.dumps(d["kind"])), ("a", num(d["a"])), ("b", num(d["b"]))]
    if like_text and "\n" in like_text:
        indent = re.search(r'\n([ \t]*)"', like_text).group(1)
        closing = re.search(r"\n([ \t]*)\}\s*$", like_text).group(1)
        return "{\n" + ",\n".join(f'{indent}"{k}": {v}' for k, v in items) + "\n" + closing + "}"
    return "{" + ", ".join(f'"{k}": {v}' for k, v in items) + "}"


def edit_text(text, wanted, note):
    """`text` with each input's adversarial distribution as in `wanted` (name -> dist or
    None) and `notes` set to `note`."""
    root = scan_json(text)
    edits = []  # (start, end, replacement)
    inputs = member(root, "inputs")[1]
    for obj in inputs.children:
        name = json.loads(text[member(obj, "name")[1].start:member(obj, "name")[1].end])
        want = wanted.get(name)
        have = member(obj, "adversarial")
        dist = member(obj, "distribution")
        like = text[dist[1].start:dist[1].end] if dist else None
        if want is None and have is None:
            continue
        if want is not None and have is not None:
            edits.append((have[1].start, have[1].end, render_dist(want, like)))
            continue
        if want is None:
            # remove `, "adversarial": {...}` (with the separator before it)
            kstart, v = have
            prev_end = kstart
            while text[prev_end - 1] in " \t\r\n":
                prev_end -= 1
            assert text[prev_end - 1] == ","
            edits.append((prev_end - 1, v.end, ""))
            continue
        last_key, last_v = obj.children[-1][1], obj.children[-1][2]
        anchor = dist[1] if dist else last_v
        anchor_key = dist[0] if dist else last_key
        line_start = text.rfind("\n", 0, anchor_key) + 1
        between = text[line_start:anchor_key]
        if between.strip() == "":
            sep = ",\n" + between  # one key a line
        else:
            sep = ", "
        edits.append((anchor.end, anchor.end, sep + '"adversarial": ' + render_dist(want, like)))
    notes = member(root, "notes")
    if notes is None:
        raise ValueError("the file has no notes")
    old_raw = text[notes[1].start:notes[1].end]
    new_raw = json.dumps(note)
    if json.loads(old_raw) != note:
        edits.append((notes[1].start, notes[1].end, new_raw))
    for start, end, rep in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + rep + text[end:]
    return text


def apply(p, overrides, sentence_text):
    notes = p.doc.get("notes", "")
    base = SENTENCE.sub("", notes)
    if sentence_text:
        note = (base.rstrip() + " " + sentence_text) if base.strip() else sentence_text
    else:
        note = base
    wanted = {name: (overrides or {}).get(name) for name in p.inputs}
    new = edit_text(p.text, wanted, note)
    doc = json.loads(new)
    assert list(doc) == list(p.doc), "the keys changed"
    for inp, old in zip(doc["inputs"], p.doc["inputs"]):
        if wanted[inp["name"]] is None:
            assert "adversarial" not in inp
        else:
            assert inp["adversarial"] == wanted[inp["name"]]
        assert {k: v for k, v in inp.items() if k != "adversarial"} == \
            {k: v for k, v in old.items() if k != "adversarial"}
    assert doc["notes"] == note
    return new


def default_files(include_transposed):
    out = []
    for level in sorted(os.listdir(KB_DIR)):
        d = os.path.join(KB_DIR, level)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d), key=lambda n: (int(re.match(r"\d+", n).group()) if re.match(r"\d+", n) else 0, n)):
            if f.endswith(".json"):
                out.append(os.path.join(d, f))
    if not include_transposed:
        out = [f for f in out if not is_transposed(f)]
    return out


def is_transposed(path):
    if TRANSPOSED.search(os.path.basename(path)):
        return True
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return any(TRANSPOSED.search(s) for s in doc.get("stages", [])) or bool(TRANSPOSED.search(doc.get("title", "")))


def verify(cusched, path):
    """The verdict of the file's baseline in the interpreter at the small size."""
    r = subprocess.run([cusched, "run", "-p", path, "-s", "baseline", "--backend", "interp", "--size", "small",
                        "--json"], capture_output=True, text=True)
    try:
        j = json.loads(r.stdout)
    except json.JSONDecodeError:
        return f"no JSON (exit {r.returncode}): {r.stderr.strip()[:300]}"
    v = j.get("interp") or j
    verdict = v.get("verdict", j.get("verdict"))
    if verdict == "ok":
        return f"ok ({v.get('trials')} trials, max abs error {v.get('max_abs_err', 0):.2g})"
    return f"{verdict}: {v.get('message', j.get('reason', ''))}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--include-transposed", action="store_true",
                    help="also take the files with a transposed convolution")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    ap.add_argument("--dry-run", action="store_true", help="print the decisions, write nothing")
    ap.add_argument("--cusched", help="verify each file with an adversarial distribution with this binary")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    files = args.files or default_files(args.include_transposed)
    stale, failed, counts = [], [], {}
    for path in files:
        p = Problem(path)
        overrides, text = decide(p, args.verbose)
        label = os.path.relpath(path, ROOT)
        if overrides is None:
            print(f"{label}: none ({text})")
            kind = "none"
        else:
            print(f"{label}: {format_overrides(overrides)}")
            kind = ", ".join(sorted({m for m in ("norm", "softmax", "rms", "sum") if re.search(
                {"norm": "E\\[x\\^2\\]", "softmax": "logits", "rms": "mean square",
                 "sum": "sums cancel"}[m], text)}))
        counts[kind] = counts.get(kind, 0) + 1
        new = apply(p, overrides, text if overrides else None)
        if new != p.text:
            stale.append(label)
            if not (args.check or args.dry_run):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
        if args.cusched and overrides is not None and not args.check:
            verdict = verify(args.cusched, path)
            print(f"  baseline in the interpreter: {verdict}")
            if not verdict.startswith("ok "):
                failed.append(label)
    print("classes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.check and stale:
        print("not as this script writes them: " + ", ".join(stale), file=sys.stderr)
        return 1
    if failed:
        print("not verified: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
