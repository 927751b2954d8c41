"""Sizes of problem files without cusched: the integer expressions of their shapes and stage
extents evaluated at a size table, the bytes of their inputs and outputs, and a reduced size
table whose working set fits a limit and whose reductions fit the float64 reference's
serial loops (halving sizes while every shape stays valid). Used by
bench/kernelbench_verify.py to choose the shape each file runs at."""
import re

DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i32": 4, "i64": 8, "bool": 1}


def size_value(expr, sizes):
    """An integer expression of sizes (a shape entry or a stage extent) at `sizes`: names,
    integers, + - * / % and parentheses; / and % truncate as in C (the sizes are positive)."""
    if isinstance(expr, int):
        return expr
    tokens = re.findall(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))", expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else ("", "", "")

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1] if pos <= len(tokens) else ("", "", "")

    def primary():
        num, name, op = take()
        if num:
            return int(num)
        if name:
            if name not in sizes:
                raise ValueError("the size '%s' of '%s' is not bound" % (name, expr))
            return int(sizes[name])
        if op == "(":
            v = additive()
            if take()[2] != ")":
                raise ValueError("a ')' is missing in '%s'" % expr)
            return v
        if op == "-":
            return -primary()
        raise ValueError("'%s' is not an integer expression of sizes" % expr)

    def term():
        v = primary()
        while peek()[2] in ("*", "/", "%"):
            op, rhs = take()[2], primary()
            if op == "*":
                v *= rhs
            else:
                q = abs(v) // abs(rhs) * (1 if (v >= 0) == (rhs > 0) else -1)
                v = q if op == "/" else v - q * rhs
        return v

    def additive():
        v = term()
        while peek()[2] in ("+", "-"):
            op, rhs = take()[2], term()
            v = v + rhs if op == "+" else v - rhs
        return v

    value = additive()
    if pos != len(tokens):
        raise ValueError("'%s' is not an integer expression of sizes" % expr)
    return value


def split_top_level(text, sep=","):
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def stage_domain(stage_text):
    """(name, [extent expression, ...]) of a stage definition 'NAME(v in EXTENT, ...) = BODY'."""
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(", stage_text)
    if not m:
        raise ValueError("'%s' is not a stage definition" % stage_text)
    depth, i = 1, m.end()
    while depth:
        depth += {"(": 1, ")": -1}.get(stage_text[i], 0)
        i += 1
    domain = split_top_level(stage_text[m.end():i - 1])
    return m.group(1), [d.split(" in ", 1)[1] for d in domain]


def output_shapes(problem, sizes):
    """{output name: shape} at `sizes`."""
    extents = dict(stage_domain(s) for s in problem["stages"])
    return {o: [size_value(e, sizes) for e in extents[o]] for o in problem["outputs"]}


def stage_dtype(problem, name):
    # Argmax and argmin stages are int64; every other output of these files is f32.
    for s in problem["stages"]:
        if stage_domain(s)[0] == name:
            body = s.split("=", 1)[1].strip()
            return "i64" if re.match(r"arg(max|min)\s*\(", body) else "f32"
    return "f32"


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def working_set(problem, sizes):
    """(input bytes, output bytes) at `sizes`."""
    ins = sum(prod(size_value(d, sizes) for d in i["shape"]) * DTYPE_BYTES[i["dtype"]] for i in problem["inputs"])
    outs = sum(prod(shape) * DTYPE_BYTES[stage_dtype(problem, name)]
               for name, shape in output_shapes(problem, sizes).items())
    return ins, outs


def shapes_valid(problem, sizes):
    try:
        dims = [size_value(d, sizes) for i in problem["inputs"] for d in i["shape"]]
        dims += [d for shape in output_shapes(problem, sizes).values() for d in shape]
        for s in problem["stages"]:
            body = s.split("=", 1)[1]
            for m in re.finditer(r"\b[a-z]+ in ([^,:]+)[,:]", body):
                dims.append(size_value(m.group(1), sizes))
    except (ValueError, ZeroDivisionError):
        return False
    return all(d >= 1 for d in dims)


def _numbers(x):
    if isinstance(x, bool):
        return []
    if isinstance(x, (int, float)):
        return [x]
    if isinstance(x, (list, tuple)):
        return [n for v in x for n in _numbers(v)]
    return []


def module_sizes(problem, sizes):
    """The sizes the module of the problem's source fixes, which a reduced shape must keep:
    those in the shape of an input that is a module parameter (channels, features, kernel
    sides), and those whose value is among the constructor's arguments (a normalised shape)."""
    source = problem.get("source") or {}
    parameters = set(source.get("parameters") or {})
    fixed = set()
    for inp in problem["inputs"]:
        if inp["name"] in parameters:
            for d in inp["shape"]:
                fixed |= {n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(d)) if n in sizes}
    constructor = set(_numbers(source.get("init_args") or []))
    fixed |= {n for n, v in sizes.items() if v in constructor}
    return fixed


MIN_REDUCED_SIZE = 8

# The float64 reference computes each element of a reduction stage in one thread, serially
# over the reduction's domain, except a stage of fewer than REFERENCE_BLOCK_POINTS elements
# whose domain has REFERENCE_BLOCK_EXTENT or more, which gets a block of
# REFERENCE_BLOCK_THREADS threads per element (kReferenceBlockPoints, kReferenceBlockExtent
# and kAutomaticBaselineThreads in problems/automatic_baseline.h): a thread's serial part
# longer than MAX_REFERENCE_REDUCTION takes the reference seconds per pass (a few such
# passes reach the watchdog), so the verified shape is reduced below it.
MAX_REFERENCE_REDUCTION = 1 << 22
REFERENCE_BLOCK_POINTS, REFERENCE_BLOCK_EXTENT, REFERENCE_BLOCK_THREADS = 4096, 65536, 256


def reduction_headers(body):
    """The domains ('v in EXTENT, ...' split into extents) of the reductions written in a
    stage body: every call whose arguments before a top-level ':' are all 'v in EXTENT'."""
    out = []
    for m in re.finditer(r"\b[A-Za-z_][A-Za-z0-9_]*\s*\(", body):
        depth, i = 1, m.end()
        while i < len(body) and depth:
            ch = body[i]
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == ":" and depth == 1:
                parts = split_top_level(body[m.end():i])
                if parts and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\s+in\s+.+", x) for x in parts):
                    out.append([x.split(" in ", 1)[1] for x in parts])
                break
            i += 1
    return out


def reductions(problem, sizes):
    """(elements of the stage, elements one of them reduces over) of every reduction written in a
    stage body, at `sizes` (a reduction nested in a larger expression counts its stage's elements,
    which are at least those of the stage it becomes)."""
    for s in problem["stages"]:
        points = prod(size_value(e, sizes) for e in stage_domain(s)[1]) if "(" in s.split("=", 1)[0] else 1
        for extents in reduction_headers(s.split("=", 1)[1]):
            yield points, prod(size_value(e, sizes) for e in extents)


def longest_reduction(problem, sizes):
    """The most elements one output element of a reduction stage reduces over, at `sizes`."""
    return max((n for _, n in reductions(problem, sizes)), default=1)


def longest_serial_reduction(problem, sizes):
    """The most elements one thread of the float64 reference reduces serially, at `sizes`: a
    reduction's domain, or its share of a block where the reference gives each element of the
    stage a block."""
    return max((-(-n // REFERENCE_BLOCK_THREADS) if points < REFERENCE_BLOCK_POINTS and n >= REFERENCE_BLOCK_EXTENT
                else n for points, n in reductions(problem, sizes)), default=1)


def reduced_sizes(problem, sizes, limit_bytes):
    """Sizes whose working set fits `limit_bytes` and whose longest serial reduction in the
    reference fits MAX_REFERENCE_REDUCTION: the sizes of the first input's dimensions, in order, then the
    others, largest first, each halved while the shapes stay valid and it stays at least
    MIN_REDUCED_SIZE (a batch of 1 makes batch statistics constant); the sizes the module
    fixes (module_sizes) are kept. Returns (sizes, reduced)."""
    sizes = dict(sizes)
    fixed = module_sizes(problem, sizes)
    order = []
    for inp in problem["inputs"]:
        for d in inp["shape"]:
            if isinstance(d, str) and d in sizes and d not in order:
                order.append(d)
    order += [n for n in sorted(sizes, key=lambda n: -sizes[n]) if n not in order]
    order = [n for n in order if n not in fixed]
    reduced = False

    def too_large(sizes):
        return (sum(working_set(problem, sizes)) > limit_bytes or
                longest_serial_reduction(problem, sizes) > MAX_REFERENCE_REDUCTION)

    for name in order:
        while too_large(sizes) and sizes[name] // 2 >= MIN_REDUCED_SIZE:
            trial = dict(sizes, **{name: sizes[name] // 2})
            if not shapes_valid(problem, trial):
                break
            sizes, reduced = trial, True
        if not too_large(sizes):
            break
    return sizes, reduced


def shape_flag(bench, sizes):
    changed = ["%s=%d" % (n, v) for n, v in sorted(sizes.items()) if bench.get(n) != v]
    return ",".join(changed)
