"""The stage syntax (docs/problem-files.md): a tokenizer, a recursive-descent parser, and
walks over the expressions it gives. An expression is a tuple: ("num", value), ("name", n),
("un", op, e), ("bin", op, a, b), ("call", name, args) (a function, or a load of a tensor),
("red", op, domains, body) and ("scan", op, var, reverse, exclusive, body). The syntax's
reductions and functions are listed here with the Python each evaluates to, which
evaluation.compile_expr writes."""
import math
import re


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

# The Python each function evaluates to (the helpers are evaluation.py's); a call of any
# other name loads a tensor.
FUNCTIONS = {
    "exp": "_exp", "log": "_log", "sqrt": "_sqrt", "rsqrt": "_rsqrt", "tanh": "math.tanh",
    "erf": "math.erf", "abs": "abs", "sigmoid": "_sigmoid", "softplus": "_softplus",
    "log1p": "math.log1p", "expm1": "math.expm1", "floor": "math.floor", "ceil": "math.ceil",
    "round": "_round_even", "sign": "_sign", "sin": "math.sin", "cos": "math.cos",
    "clamp": "_clamp", "min": "min", "max": "max", "pow": "_pow", "select": "_select",
    "f32": "float", "f16": "float", "bf16": "float", "f64": "float", "i32": "int",
    "i64": "int", "bool": "bool",
}


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
