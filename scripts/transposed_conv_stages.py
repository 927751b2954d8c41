#!/usr/bin/env python3
"""Stages of a strided transposed convolution as its stride-phase sub-convolutions.

Along a spatial dimension of stride s, output o = s * q + p (phase p in [0, s)) takes the
taps k with (p + padding - k * dilation) % s == 0: with g = gcd(dilation, s) they are
k = k0 + m * (s / g), and each reads input q + c - m * (dilation / g) with
c = (p + padding - k0 * dilation) / s, an exact division. One stage per combination of
phases (one phase per spatial dimension) is a dense convolution over those taps only, its
border a padded load; a phase without taps is 0 and has no stage. The transposed
convolution itself interleaves the phase stages with a select on each output index's
phase. A phase stage's extent along a dimension is the number of outputs of that phase,
ceil((Hout - p) / s), so every load of it stays inside it and the stages together do one
multiply per live tap.

Usage (prints the stages, one per line, producers first):

    python3 scripts/transposed_conv_stages.py --name ConvT --input x --weight w \
        --in-sizes D,H,W --kernel 3 --stride 2 --padding 1 --output-padding 1

Per-dimension options take one value for every dimension or one per dimension
(`--kernel 3,5,7`). `--replace FILE` rewrites the stage named `--name` of a problem file
in place: its variable names and output extents are read from the stage there (and
checked against the layer at every size table of the file), the rest of the file is left
as it is. `--summary` prints the phase structure and the multiply counts at a size table
of the file (`--size`, default small) instead.
"""
import argparse
import json
import math
import re
import sys


class LayerError(ValueError):
    pass


def _per_dim(text, dims, what):
    values = [int(v) for v in str(text).split(",")]
    if len(values) == 1:
        values = values * dims
    if len(values) != dims:
        raise LayerError(f"--{what} has {len(values)} values for {dims} spatial dimensions")
    return values


def _term(expr):
    """`expr` as an operand of + and - (parenthesised unless a name or a number)."""
    expr = expr.strip()
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+", expr) or (
            expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1])):
        return expr
    return f"({expr})"


def _balanced(text):
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _plus(base, const):
    """base + const as text: `H`, `H + 1`, `qh - 2`."""
    if const == 0:
        return base
    return f"{base} {'+' if const > 0 else '-'} {abs(const)}"


def _times(var, factor):
    return var if factor == 1 else f"{var} * {factor}"


class Dim:
    """One spatial dimension: its layer parameters and its phases."""

    def __init__(self, size, kernel, stride, padding, output_padding, dilation):
        if kernel < 1 or stride < 1 or dilation < 1 or padding < 0 or output_padding < 0:
            raise LayerError("kernel, stride and dilation must be positive, padding and output padding non-negative")
        if output_padding >= max(stride, dilation):
            raise LayerError("output padding must be smaller than the stride or the dilation")
        self.size = _term(size)
        self.kernel, self.stride, self.padding = kernel, stride, padding
        self.output_padding, self.dilation = output_padding, dilation
        # Hout = (L - 1) * s - 2 * padding + dilation * (K - 1) + output_padding + 1 = s * L + offset
        self.offset = -stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1
        self.phases = [self._phase(p) for p in range(stride)]

    def out_size(self, size_value):
        return self.stride * size_value + self.offset

    def _phase(self, p):
        s, d = self.stride, self.dilation
        live = [k for k in range(self.kernel) if (p + self.padding - k * d) % s == 0]
        step = s // math.gcd(d, s)
        # outputs of this phase: ceil((s * L + offset - p) / s) = L + extra
        extra = -((p - self.offset) // s)
        phase = {"p": p, "taps": len(live), "extra": extra}
        if live:
            k0 = live[0]
            assert live == list(range(k0, self.kernel, step)), "the live taps are an arithmetic progression"
            assert (p + self.padding - k0 * d) % s == 0
            c = (p + self.padding - k0 * d) // s
            back = d // math.gcd(d, s)  # input index per tap: (step * dilation) / s
            lowest = c - (len(live) - 1) * back  # the index of the last tap at q = 0
            # input index q + c - m * back for q in [0, L + extra), m in [0, taps)
            phase.update(k0=k0, step=step, c=c, back=back, padded=lowest < 0 or extra + c > 0)
        return phase

    def out_count(self, p, size_value):
        return size_value + self.phases[p]["extra"]


class Layer:
    def __init__(self, args):
        sizes = [s.strip() for s in _split_top(args.in_sizes)]
        n = len(sizes)
        if n < 1:
            raise LayerError("--in-sizes names no spatial dimension")
        per = {k: _per_dim(getattr(args, k.replace("-", "_")), n, k)
               for k in ("kernel", "stride", "padding", "output-padding", "dilation")}
        self.dims = [Dim(sizes[i], per["kernel"][i], per["stride"][i], per["padding"][i],
                         per["output-padding"][i], per["dilation"][i]) for i in range(n)]
        self.name, self.input, self.weight = args.name, args.input, args.weight
        self.batch, self.cin, self.cout, self.groups = args.batch, args.in_channels, args.out_channels, args.groups
        if self.groups < 1:
            raise LayerError("--groups must be positive")
        spatial = ["o"] if n == 1 else ["od", "oh", "ow"][3 - n:] if n <= 3 else [f"o{i}" for i in range(n)]
        default_vars = ["n", "oc" if n == 1 else "o"] + spatial
        self.vars = args.vars.split(",") if args.vars else default_vars
        if len(self.vars) != n + 2:
            raise LayerError(f"--vars needs {n + 2} names (batch, channel, one per spatial dimension)")
        self.out_extents = None  # the text of each output extent (computed unless given)
        self.rc = args.channel_var

    def qvar(self, i):
        v = self.vars[2 + i]
        return "q" + (v[1:] if v.startswith("o") else v)

    def tvar(self, i):
        v = self.vars[2 + i]
        return "t" + (v[1:] if v.startswith("o") else v)

    def combos(self):
        """Every combination of phases, one per dimension, in row-major order."""
        out = [()]
        for dim in self.dims:
            out = [c + (p,) for c in out for p in range(dim.stride)]
        return out

    def live(self, combo):
        return all(self.dims[i].phases[p]["taps"] > 0 for i, p in enumerate(combo))

    def stage_name(self, combo):
        return self.name + "".join(f"_p{p}" for p in combo)

    def _channel_terms(self):
        o = self.vars[1]
        if self.groups == 1:
            return f"{self.rc} in {self.cin}", f"{self.rc}", f"{self.rc}, {o}"
        g = self.groups
        per_in, per_out = f"{_term(self.cin)} / {g}", f"({self.cout} / {g})"
        ch = f"{o} / {per_out} * ({per_in}) + {self.rc}"
        return f"{self.rc} in {per_in}", ch, f"{ch}, {o} % {per_out}"

    def phase_stage(self, combo):
        rdom, in_ch, w_lead = self._channel_terms()
        domain = [f"{self.vars[0]} in {self.batch}", f"{self.vars[1]} in {self.cout}"]
        reduce_dom = [rdom]
        in_idx, w_idx = [], []
        for i, p in enumerate(combo):
            dim, ph = self.dims[i], self.dims[i].phases[p]
            q, t = self.qvar(i), self.tvar(i)
            domain.append(f"{q} in {_plus(dim.size, ph['extra'])}")
            if ph["taps"] == 1:
                in_idx.append(_plus(q, ph["c"]))
                w_idx.append(str(ph["k0"]))
            else:
                reduce_dom.append(f"{t} in {ph['taps']}")
                in_idx.append(f"{_plus(q, ph['c'])} - {_times(t, ph['back'])}")
                w_idx.append(_plus(_times(t, ph["step"]), ph["k0"]))
        load = f"{self.input}({self.vars[0]}, {in_ch}, {', '.join(in_idx)})"
        if any(self.dims[i].phases[p]["padded"] for i, p in enumerate(combo)):
            load = f"padded({load})"
        weight = f"{self.weight}({w_lead}, {', '.join(w_idx)})"
        return f"{self.stage_name(combo)}({', '.join(domain)}) = sum({', '.join(reduce_dom)}: {load} * {weight})"

    def out_extent(self, i):
        if self.out_extents:
            return self.out_extents[i]
        dim = self.dims[i]
        return _plus(f"{dim.stride} * {dim.size}" if dim.stride > 1 else dim.size, dim.offset)

    def interleave(self):
        def index(i, p):
            v, s = self.vars[2 + i], self.dims[i].stride
            if s == 1:
                return v
            return f"{v} / {s}" if p == 0 else f"({v} - {p}) / {s}"

        def build(prefix):
            i = len(prefix)
            if prefix and not self.dims[i - 1].phases[prefix[-1]]["taps"]:
                return "0.0"
            if i == len(self.dims):
                args = [self.vars[0], self.vars[1]] + [index(j, p) for j, p in enumerate(prefix)]
                return f"{self.stage_name(prefix)}({', '.join(args)})"
            v, s = self.vars[2 + i], self.dims[i].stride
            text = build(prefix + (s - 1,))
            for p in range(s - 2, -1, -1):
                text = f"select({v} % {s} == {p}, {build(prefix + (p,))}, {text})"
            return text

        domain = [f"{self.vars[0]} in {self.batch}", f"{self.vars[1]} in {self.cout}"]
        domain += [f"{self.vars[2 + i]} in {self.out_extent(i)}" for i in range(len(self.dims))]
        return f"{self.name}({', '.join(domain)}) = {build(())}"

    def stages(self):
        return [self.phase_stage(c) for c in self.combos() if self.live(c)] + [self.interleave()]

    # Multiply counts at sizes `values` (size name -> value): per channel pair and batch
    # element, the phase stages' outputs times their taps, and the masked gather's.
    def counts(self, values):
        outs = [eval_size(d.size, values) for d in self.dims]
        phases = sum(math.prod(d.out_count(p, outs[i]) * d.phases[p]["taps"] for i, (d, p) in
                               enumerate(zip(self.dims, c))) for c in self.combos())
        gather = math.prod(d.out_size(outs[i]) * d.kernel for i, d in enumerate(self.dims))
        return phases, gather


def _split_top(text, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def eval_size(expr, values):
    """An integer expression of sizes (positive operands: / is the integer quotient)."""
    text = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: str(values[m.group(0)]), expr)
    if not re.fullmatch(r"[0-9+\-*/() ]+", text):
        raise LayerError(f"cannot evaluate the size expression '{expr}'")
    return int(eval(text.replace("/", "//"), {"__builtins__": {}}))  # noqa: S307 (digits and operators only)


def parse_stage_header(stage):
    """A stage's name and its (variable, extent text) pairs."""
    head = stage[:stage.index(") =") + 1]
    name, inner = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)$", head.strip()).groups()
    domain = []
    for part in _split_top(inner):
        var, extent = part.strip().split(" in ", 1)
        domain.append((var.strip(), extent.strip()))
    return name, domain


def replace_in_file(layer, path):
    with open(path) as f:
        text = f.read()
    problem = json.loads(text)
    stages = problem["stages"]
    index = [i for i, s in enumerate(stages) if parse_stage_header(s)[0] == layer.name]
    if len(index) != 1:
        raise LayerError(f"{path}: no single stage named {layer.name}")
    old = stages[index[0]]
    _, domain = parse_stage_header(old)
    if len(domain) != len(layer.dims) + 2:
        raise LayerError(f"{path}: {layer.name} has {len(domain)} variables, the layer {len(layer.dims) + 2}")
    layer.vars = [v for v, _ in domain]
    layer.out_extents = [e for _, e in domain[2:]]
    for table, values in problem["sizes"].items():
        for i, dim in enumerate(layer.dims):
            size = eval_size(dim.size, values)
            if eval_size(layer.out_extents[i], values) != dim.out_size(size):
                raise LayerError(f"{path}: output extent '{layer.out_extents[i]}' is not the layer's at '{table}'")
            for ph in dim.phases:
                if ph["taps"] and size + ph["extra"] < 1:
                    raise LayerError(f"{path}: phase {ph['p']} of dimension {i} has no outputs at '{table}'")
    new = layer.stages()
    line = json.dumps(old, ensure_ascii=False)
    if text.count(line) != 1:
        raise LayerError(f"{path}: the stage's line is not found once in the file")
    indent = text[:text.index(line)].rsplit("\n", 1)[1]
    text = text.replace(line, (",\n" + indent).join(json.dumps(s, ensure_ascii=False) for s in new))
    with open(path, "w") as f:
        f.write(text)
    return new


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--name", default="ConvT", help="the transposed convolution's stage (phase stages: NAME_p<phase>...)")
    ap.add_argument("--input", default="x", help="the input tensor or stage")
    ap.add_argument("--weight", default="weight", help="the weight (CI, CO / groups, kernel...)")
    ap.add_argument("--batch", default="N")
    ap.add_argument("--in-channels", default="CI")
    ap.add_argument("--out-channels", default="CO")
    ap.add_argument("--groups", type=int, default=1)
    ap.add_argument("--in-sizes", required=True, help="the input's spatial sizes, comma-separated (D,H,W)")
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--stride", required=True)
    ap.add_argument("--padding", default="0")
    ap.add_argument("--output-padding", default="0")
    ap.add_argument("--dilation", default="1")
    ap.add_argument("--vars", help="the stage's variables: batch, channel, one per spatial dimension (n,o,od,oh,ow)")
    ap.add_argument("--channel-var", default="rc", help="the reduction variable over input channels")
    ap.add_argument("--replace", metavar="FILE", help="rewrite the stage --name of this problem file in place")
    ap.add_argument("--summary", metavar="FILE", help="print the phases and multiply counts at a size of this file")
    ap.add_argument("--size", default="small", help="the size table for --summary")
    args = ap.parse_args(argv)
    try:
        layer = Layer(args)
        if args.summary:
            with open(args.summary) as f:
                values = json.load(f)["sizes"][args.size]
            phases, gather = layer.counts(values)
            print(json.dumps({"dims": [d.phases for d in layer.dims], "taps_per_channel_pair": phases,
                              "gather_taps_per_channel_pair": gather}, indent=1))
        elif args.replace:
            for s in replace_in_file(layer, args.replace):
                print(s)
        else:
            for s in layer.stages():
                print(s)
    except LayerError as e:
        print(f"transposed_conv_stages.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
