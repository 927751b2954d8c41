#!/usr/bin/env python3
"""Writes the malformed-input corpus: OUT/cases/* and OUT/manifest.json.

Each case is one input a person, script or agent could hand to cusched (a schedule,
a proposal file, a problem name, command-line flags, a .npy file, a .cu file, a
store file) together with the command that reads it and the structured error code
cusched must answer with. run_corpus.py runs them; CTest generates the corpus in the
build tree before each run (python3 tests/malformed/generate.py OUT).
"""
import json
import os
import shutil
import sqlite3
import struct
import sys

if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
    sys.exit("usage: generate.py [OUT] (default malformed-corpus): writes OUT/cases/* and OUT/manifest.json")
OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "malformed-corpus")
CASES = os.path.join(OUT, "cases")
shutil.rmtree(CASES, ignore_errors=True)
os.makedirs(CASES)

cases = []


def write(name, data):
    path = os.path.join(CASES, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)
    return name


def case(channel, what, args, expect, stdin=None, outcome="error"):
    cases.append({"id": "%03d" % len(cases), "channel": channel, "what": what, "args": args,
                  "stdin": stdin, "expect": expect, "outcome": outcome})


def schedule_case(what, text, expect, problem="matmul", command=("validate",), extra=()):
    name = write("schedule/%03d.json" % len(cases), text)
    case("schedule", what, list(command) + ["-p", problem, "-s", "{cases}/" + name] + list(extra), expect)


def steps(*s):
    return json.dumps(list(s))


# ---- schedule JSON: syntax ----
syntax = {
    "empty file": "", "whitespace only": "  \n\t ", "truncated array": '[{"op": "split"', "trailing comma": "[1,]",
    "single quotes": "[{'op': 'split'}]", "NaN literal": '[{"op":"split","loop":"i","factor":NaN}]',
    "Infinity literal": '[{"op":"split","loop":"i","factor":Infinity}]', "a comment": '[/* c */ {"op":"split"}]',
    "unquoted key": "[{op: 1}]", "two documents": "[] []", "lone closing bracket": "]", "bare word": "split",
    "unterminated string": '[{"op": "split]', "control character in a string": '[{"op": "sp\x01lit"}]',
    "bad escape": '[{"op": "\\q"}]', "lone high surrogate": '[{"op": "\\ud800"}]', "hex number": '[{"factor": 0x10}]',
    "leading zero": '[{"factor": 0128}]', "plus sign": '[{"factor": +1}]', "missing colon": '[{"op" "split"}]',
    "missing comma between steps": '[{"op":"split"} {"op":"bind"}]',
    "null byte": '[{"op": "split"}\x00]', "mismatched brackets": "[{]}",
}
for what, text in syntax.items():
    schedule_case("syntax: " + what, text, "bad-json")
for what, raw in {"invalid byte 0xff": b'[{"op": "spl\xffit"}]', "overlong slash": b'[{"op": "\xc0\xaf"}]',
                  "truncated two-byte sequence": b'[{"op": "\xc3"}]', "surrogate in UTF-8": b'[{"op": "\xed\xa0\x80"}]',
                  "five-byte sequence": b'[{"op": "\xf8\x88\x80\x80\x80"}]', "invalid byte in a key": b'[{"o\xfep": "split"}]',
                  "latin-1 text": b'[{"op": "caf\xe9"}]', "continuation byte alone": b'[{"op": "\x80"}]'}.items():
    schedule_case("invalid UTF-8: " + what, raw, "bad-json")

# ---- schedule JSON: numbers, depth, duplicate keys ----
for v in ["1e400", "-1e400", "1e309", "123456789e999"]:
    schedule_case("number beyond double: " + v, '[{"op":"split","stage":"C","loop":"i","factor":%s}]' % v, "json-number-out-of-range")
for depth in [65, 100, 1000, 100000, 1000000]:
    schedule_case("arrays nested %d deep" % depth, "[" * depth + "]" * depth, "json-too-deep")
for depth in [65, 5000]:
    schedule_case("objects nested %d deep" % depth, '{"a":' * depth + "1" + "}" * depth, "json-too-deep")
schedule_case("unclosed arrays 200000 deep", "[" * 200000, "json-too-deep")
for what, text in {"op twice": '[{"op":"split","op":"bind"}]',
                   "factor twice": '[{"op":"split","stage":"C","loop":"i","factor":4,"factor":8}]',
                   "loop twice": '[{"op":"bind","loop":"i","loop":"j","axis":"blockIdx.x"}]',
                   "duplicate in the second step": '[{"op":"split","stage":"C","loop":"i","factor":4},{"op":"unroll","loop":"ii","loop":"ii"}]',
                   "duplicate in a nested object": '[{"op":"split","stage":"C","loop":"i","factor":4,"x":{"a":1,"a":2}}]',
                   "same key different values": '[{"op":"split","stage":"C","loop":"i","factor":4,"stage":"D"}]'}.items():
    schedule_case("duplicate key: " + what, text, "duplicate-json-key")

# ---- schedule JSON: shape ----
for what, text in {"an object": '{"op": "split"}', "a string": '"split"', "a number": "42", "null": "null", "true": "true"}.items():
    schedule_case("not an array: " + what, text, "not-a-schedule")
for what, text in {"a number": "[1]", "a string": '["split"]', "null": "[null]", "an array": "[[]]", "false": "[false]"}.items():
    schedule_case("step is " + what, text, "step-not-object")
for what, text in {"no op": '[{"stage":"C"}]', "op is a number": '[{"op":5}]', "op is null": '[{"op":null}]',
                   "op is an array": '[{"op":["split"]}]', "empty object": "[{}]"}.items():
    schedule_case("missing op: " + what, text, "missing-op")
for op in ["Split", " split", "split ", "splitt", "SPLIT", "tile2", "vectorise", "bind_thread", "", "sp lit", "\u0441plit",
           "cache-read", "x" * 5000, "rm -rf /", "$(reboot)", "split\nbind"]:
    schedule_case("unknown op %r" % op[:20], json.dumps([{"op": op}]), "unknown-op")

PRIMITIVES = {
    "split": {"stage": "C", "loop": "i", "factor": 4}, "tile": {"stage": "C", "x": "j", "y": "i", "x_factor": 8, "y_factor": 8},
    "reorder": {"stage": "C", "loops": ["j", "i"]}, "fuse": {"stage": "C", "outer": "i", "inner": "j"},
    "bind": {"stage": "C", "loop": "i", "axis": "blockIdx.x"}, "unroll": {"stage": "C", "loop": "k"},
    "vectorize": {"stage": "C", "loop": "j"}, "cache_read": {"stage": "C", "source": "A", "scope": "shared", "at": "i"},
    "cache_write": {"stage": "C", "scope": "shared"}, "compute_root": {"stage": "C"},
    "rfactor": {"stage": "C", "loop": "k"}, "launch_bounds": {"stage": "C", "max_threads": 256},
    "precision": {"stage": "C", "operands": "tf32"}, "tensor_core": {"stage": "C", "shape": "m16n8k8", "precision": "tf32"},
}
for op, args in PRIMITIVES.items():
    schedule_case("unknown argument of " + op, json.dumps([dict(args, op=op, colour="blue")]), "unknown-argument")
for op, args in PRIMITIVES.items():
    required = [k for k in args if k != "stage"]
    if required:
        a = dict(args, op=op)
        del a[required[0]]
        schedule_case("%s without %s" % (op, required[0]), json.dumps([a]), "missing-argument")
for what, v in {"a string": "4", "a float": 4.5, "true": True, "an array": [4], "an object": {"n": 4}}.items():
    schedule_case("split factor is " + what, json.dumps([{"op": "split", "stage": "C", "loop": "i", "factor": v}]), "mistyped-argument")
for what, v in {"a number": 5, "empty": "", "an array": ["i"], "true": True}.items():
    schedule_case("split loop is " + what, json.dumps([{"op": "split", "stage": "C", "loop": v, "factor": 4}]), "mistyped-argument")
for v in [2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, -(2 ** 63), -(2 ** 31) - 5]:
    schedule_case("split factor %d" % v, '[{"op":"split","stage":"C","loop":"i","factor":%d}]' % v, "argument-out-of-range")
for v in [2 ** 62, 2 ** 63 - 1]:
    schedule_case("tile factor %d" % v, json.dumps([dict(PRIMITIVES["tile"], op="tile", x_factor=v)]), "argument-out-of-range")
    schedule_case("unroll max_extent %d" % v, json.dumps([{"op": "unroll", "stage": "C", "loop": "k", "max_extent": v}]), "argument-out-of-range")
for what, v in {"axis threadIdx.w": ("bind", "axis", "threadIdx.w"), "axis blockidx.x": ("bind", "axis", "blockidx.x"),
                "scope global": ("cache_read", "scope", "global2"), "precision fp8": ("precision", "operands", "fp8"),
                "shape m8n8k4": ("tensor_core", "shape", "m8n8k4")}.items():
    op, k, val = v
    schedule_case("bad choice: " + what, json.dumps([dict(PRIMITIVES[op], op=op, **{k: val})]), "bad-choice")

# ---- names that would become broken or hostile C++ ----
BAD_NAMES = ["int", "float", "double", "return", "class", "template", "namespace", "threadIdx", "blockIdx", "blockDim",
             "gridDim", "warpSize", "dim3", "half", "cusched_smem", "cusched_reduce", "cusched_x", "__shared__", "__syncthreads",
             "_Reserved", "k0_C", "k12_Y", "expf", "max", "min", "sqrtf", "fmaxf", "printf", "asm", "volatile", "struct",
             "1abc", "a b", "a-b", "a.b", "a;b", "x\ny", "x/*", "\u00e9t\u00e9", "a" * 65, "main", "NULL", "nullptr", "true",
             "sizeof", "std", "size_t", "int32_t", "INFINITY"]
for n in BAD_NAMES:
    schedule_case("cache_read copy named %r" % n[:20],
                  json.dumps([{"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "i", "name": n}]), "bad-name")
for n in ["int", "float", "threadIdx", "cusched_smem", "k0_C", "for", "__x", "9i", "i j", "long"]:
    schedule_case("split outer named %r" % n, json.dumps([{"op": "split", "stage": "C", "loop": "i", "factor": 4, "outer": n}]), "bad-name")
    schedule_case("split inner named %r" % n, json.dumps([{"op": "split", "stage": "C", "loop": "i", "factor": 4, "inner": n}]), "bad-name")
for n in ["int", "threadIdx", "unsigned"]:
    schedule_case("fuse result named %r" % n, json.dumps([{"op": "fuse", "stage": "C", "outer": "i", "inner": "j", "fused": n}]), "bad-name")
    schedule_case("reorder lists %r" % n, json.dumps([{"op": "reorder", "stage": "C", "loops": ["j", n]}]), "bad-name")

# ---- legality and limits ----
schedule_case("tensor_core on an untiled matmul", steps(PRIMITIVES["tensor_core"] | {"op": "tensor_core"}), "tensor-core-tile-too-large")
schedule_case("tensor_core on an untiled matmul (lower)", steps(PRIMITIVES["tensor_core"] | {"op": "tensor_core"}),
              "tensor-core-reduction-not-split", command=("lower",), extra=["--size", "small"])
schedule_case("tensor_core on an untiled matmul (interp run)", steps(PRIMITIVES["tensor_core"] | {"op": "tensor_core"}),
              "tensor-core-reduction-not-split", command=("run",), extra=["--backend", "interp", "--no-audit", "--json", "--size", "small"])
schedule_case("tensor_core with a 4096-wide warp tile",
              steps({"op": "split", "stage": "C", "loop": "k", "factor": 32}, {"op": "tensor_core", "stage": "C", "shape": "m16n8k8", "precision": "tf32"}),
              "tensor-core-tile-too-large")
schedule_case("bf16 tensor_core with a 4096-wide warp tile (lower)",
              steps({"op": "split", "stage": "C", "loop": "k", "factor": 32}, {"op": "tensor_core", "stage": "C", "shape": "m16n8k16", "precision": "bf16"}),
              "tensor-core-tile-too-large", command=("lower",))
big_copy = [{"op": "tile", "stage": "C", "x": "i", "y": "j", "x_factor": 128, "y_factor": 128},
            {"op": "bind", "stage": "C", "loop": "io", "axis": "blockIdx.y"},
            {"op": "bind", "stage": "C", "loop": "jo", "axis": "blockIdx.x"},
            {"op": "cache_read", "stage": "C", "source": "A", "scope": "shared", "at": "jo", "pad": 0}]
for command, extra in [(("lower",), ["--size", "bench", "--emit", "cuda"]), (("lower",), ["--size", "bench", "--emit", "cuda", "--json"]),
                       (("validate",), ["--size", "bench"])]:
    schedule_case("a 2 MiB shared copy (%s)" % " ".join(command + tuple(extra)), json.dumps(big_copy), "shared-memory-too-large",
                  command=command, extra=extra)
reorders = [{"op": "reorder", "stage": "C", "loops": ["j", "i"] if n % 2 == 0 else ["i", "j"]} for n in range(257)]
schedule_case("257 legal steps", json.dumps(reorders), "too-many-steps")
schedule_case("2000 legal steps", json.dumps(reorders * 8), "too-many-steps")
schedule_case("5000 legal steps (lower)", json.dumps((reorders * 20)[:5000]), "too-many-steps", command=("lower",))
schedule_case("257 legal steps (interp run)", json.dumps(reorders), "too-many-steps", command=("run",), extra=["--backend", "interp", "--no-audit", "--json"])
for what, text, code in [
        ("reduction loop on a block axis", steps({"op": "bind", "stage": "C", "loop": "k", "axis": "blockIdx.x"}), "reduction-loop-on-block-axis"),
        ("unknown loop", steps({"op": "split", "stage": "C", "loop": "q", "factor": 4}), "unknown-loop"),
        ("unknown stage", steps({"op": "split", "stage": "Q", "loop": "i", "factor": 4}), "unknown-stage"),
        ("zero factor", steps({"op": "split", "stage": "C", "loop": "i", "factor": 0}), "bad-factor"),
        ("negative factor", steps({"op": "split", "stage": "C", "loop": "i", "factor": -8}), "bad-factor"),
        ("same names for both loops", steps({"op": "split", "stage": "C", "loop": "i", "factor": 4, "outer": "a", "inner": "a"}), "loop-used-twice")]:
    schedule_case(what, text, code)

# ---- schedule sources ----
case("schedule", "schedule file does not exist", ["validate", "-p", "matmul", "-s", "{cases}/no-such-file.json"], "bad-schedule-source")
case("schedule", "schedule file is a directory", ["validate", "-p", "matmul", "-s", "{cases}"], "bad-schedule-source")
case("schedule", "schedule file is /dev/zero", ["validate", "-p", "matmul", "-s", "/dev/zero"], "bad-schedule-source")
case("schedule", "endless standard input", ["validate", "-p", "matmul", "-s", "-"], "input-too-large", stdin="/dev/zero")
case("schedule", "endless standard input (lower)", ["lower", "-p", "softmax", "-s", "-"], "input-too-large", stdin="/dev/zero")
stdin_cases = {"a truncated step": ('[{"op":', "bad-json"), "a number beyond double": ('[{"op":"split","factor":1e400}]', "json-number-out-of-range"),
               "deep nesting": ("[" * 100000, "json-too-deep"), "a duplicate key": ('[{"op":"split","op":"tile"}]', "duplicate-json-key"),
               "invalid UTF-8": (b'["\xff"]', "bad-json"), "nothing": ("", "bad-json")}
for what, (text, code) in stdin_cases.items():
    name = write("stdin/%03d.json" % len(cases), text)
    case("schedule", "standard input holds " + what, ["validate", "-p", "matmul", "-s", "-"], code, stdin="{cases}/" + name)

# ---- proposals (the file proposer; LLM replies are parsed by the same reader and covered by the fuzz target) ----
SEARCH = ["search", "-p", "relu", "--proposer", "file", "--backend", "interp", "--rounds", "1", "--ideas", "1",
          "--per-idea", "8", "--no-audit", "--db", "{tmp}/search.db", "--proposals"]


def proposal_case(what, text, expect, ext="jsonl"):
    name = write("proposals/%03d.%s" % (len(cases), ext), text)
    case("proposal", what, SEARCH + ["{cases}/" + name], expect, outcome="logged")


proposal_case("a line beyond double", '[{"op":"split","stage":"Y","loop":"i","factor":1e400}]\n', "json-number-out-of-range")
proposal_case("a line nested a million deep", "[" * 1000000 + "]" * 1000000 + "\n", "json-too-deep")
proposal_case("a line with a duplicate key", '[{"op":"split","op":"bind"}]\n', "duplicate-json-key")
proposal_case("a line with invalid UTF-8", b'[{"op":"\xff"}]\n', "bad-json")
proposal_case("a truncated line", '[{"op":"split"\n', "bad-json")
proposal_case("a whole file beyond double", '[{"op":"split","factor":-1e999}]', "json-number-out-of-range", ext="json")
proposal_case("a whole file nested deep", "[" * 300000, "json-too-deep", ext="json")
proposal_case("a keyword as a copy name",
              json.dumps([{"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "i", "name": "float"}]) + "\n", "bad-name")
proposal_case("a generated name as a copy name",
              json.dumps([{"op": "cache_read", "stage": "Y", "source": "X", "scope": "shared", "at": "i", "name": "cusched_smem"}]) + "\n", "bad-name")
proposal_case("a split factor of 2^63-1", '[{"op":"split","stage":"Y","loop":"i","factor":9223372036854775807}]\n', "argument-out-of-range")
proposal_case("3000 legal steps", json.dumps([{"op": "reorder", "stage": "Y", "loops": ["c", "b"] if n % 2 == 0 else ["b", "c"]}
                                              for n in range(3000)]) + "\n", "too-many-steps")
proposal_case("an unknown op", '[{"op":"explode"}]\n', "unknown-op")
proposal_case("a step that is a string", '["split"]\n', "step-not-object")
proposal_case("a reduction bound to blocks (matmul names on relu)", '[{"op":"bind","stage":"Y","loop":"k","axis":"blockIdx.x"}]\n', "unknown-loop")
name = write("proposals/%03d.jsonl" % len(cases), steps(PRIMITIVES["tensor_core"] | {"op": "tensor_core"}) + "\n")
case("proposal", "tensor_core on an untiled matmul as a proposal",
     ["search", "-p", "matmul", "--proposer", "file", "--backend", "interp", "--rounds", "1", "--ideas", "1", "--per-idea", "4",
      "--no-audit", "--db", "{tmp}/search.db", "--proposals", "{cases}/" + name], "tensor-core-reduction-not-split", outcome="logged")

# ---- problem names ----
for n in ["", "matmul ", "MATMUL", "mat mul", "x" * 10000, "\u043c\u0430\u0442", "matmul;ls",
          "$(id)", "softmax\nrelu", "-", "relu_large2", "0", "null"]:
    case("problem", "problem named %r" % n[:20], ["validate", "-p", n, "-s", "baseline"], "unknown-problem")
# A value with a '/' or ending in .json is a problem file: it must be a readable JSON problem.
case("problem", "problem file '../etc/passwd'", ["validate", "-p", "../etc/passwd", "-s", "baseline"], "unreadable-problem-file")
case("problem", "problem file '/etc/passwd' (not JSON)", ["validate", "-p", "/etc/passwd", "-s", "baseline"], "bad-json")
case("problem", "problem 'nope' (lower)", ["lower", "-p", "nope"], "unknown-problem")
case("problem", "problem 'nope' (run)", ["run", "-p", "nope", "--backend", "interp"], "unknown-problem")
for cmd in (["lower"], ["run", "--backend", "interp"]):
    case("problem", "problem file '/nonexistent/p.json' (%s)" % cmd[0], [cmd[0], "-p", "/nonexistent/p.json"] + cmd[1:],
         "unreadable-problem-file")

# Problem files whose stages the DSL refuses.
BAD_STAGES = {
    "logsumexp of an integer body": (["Y(i in R) = logsumexp(k in D: I(i, k))"], "i32", "logsumexp-integer-body"),
    "logsumexp with no reduction variable": (["Y(i in R) = logsumexp(: X(i, 0))"], "f32", "expr-syntax"),
    "logsumexp inside a select branch": (["Y(i in R) = select(i > 0, logsumexp(k in D: X(i, k)), 0.0)"], "f32",
                                          "nested-reduction"),
}
for what, (stages, dtype, code) in BAD_STAGES.items():
    name = write("problem/%03d.json" % len(cases), json.dumps({
        "name": "bad_stages", "sizes": {"small": {"R": 4, "D": 8}},
        "inputs": [{"name": "I" if dtype == "i32" else "X", "dtype": dtype, "shape": ["R", "D"]}],
        "stages": stages, "outputs": ["Y"]}))
    case("problem", what, ["validate", "-p", "{cases}/" + name, "-s", "baseline"], code)

# ---- command-line flags ----
FLAG_CASES = [
    ["search", "-p", "relu", "--budget-minutes", "nan"], ["search", "-p", "relu", "--budget-minutes", "inf"],
    ["search", "-p", "relu", "--budget-minutes", "-1"], ["search", "-p", "relu", "--budget-minutes", "1e400"],
    ["search", "-p", "relu", "--budget-minutes", "abc"], ["search", "-p", "relu", "--budget-minutes", ""],
    ["search", "-p", "relu", "--budget-candidates", "-5"], ["search", "-p", "relu", "--budget-candidates", "1.5"],
    ["search", "-p", "relu", "--budget-tokens", "-1"], ["search", "-p", "relu", "--budget-tokens", "99999999999999999999"],
    ["search", "-p", "relu", "--seed", "-1"], ["search", "-p", "relu", "--seed", "nan"], ["search", "-p", "relu", "--seed", "1e3"],
    ["search", "-p", "relu", "--seed", "99999999999999999999"], ["search", "-p", "relu", "--seed", "0x10"],
    ["search", "-p", "relu", "--threads", "-1"], ["search", "-p", "relu", "--threads", "100000"], ["search", "-p", "relu", "--threads", "nan"],
    ["search", "-p", "relu", "--rounds", "0"], ["search", "-p", "relu", "--rounds", "-3"], ["search", "-p", "relu", "--ideas", "0"],
    ["search", "-p", "relu", "--per-idea", "-1"], ["search", "-p", "relu", "--rank-timeout", "nan"],
    ["search", "-p", "relu", "--rank-timeout", "-4"], ["search", "-p", "relu", "--rank-silence", "0"],
    ["search", "-p", "relu", "--proposer", "oracle"], ["search", "-p", "relu", "--backend", "cpu"],
    ["search", "-p", "relu", "--no-such-flag"],
    ["run", "-p", "relu", "--seed", "-7"], ["run", "-p", "relu", "--seed", "abc"], ["run", "-p", "relu", "--backend", "tpu"],
    ["run"], ["check", "-p", "relu", "x.cu", "--seed", "-2"],
    ["check", "-p", "relu", "x.cu", "--dynamic-smem", "-1"], ["check", "-p", "relu", "x.cu", "--dynamic-smem", "nan"],
    ["check", "-p", "relu"],
    ["validate", "-p", "matmul"], ["validate", "-s", "baseline"], ["validate", "-p", "matmul", "-s", "baseline", "--format", "xml"], ["lower", "-p", "matmul", "--emit", "ptx"],
    ["device", "--index", "-1"], ["report"], ["export"],
    ["no-such-command"], ["validate", "-p", "matmul", "-s", "baseline", "--strict=maybe"],
]
for args in FLAG_CASES:
    case("flags", "flags: " + " ".join(a if a else "''" for a in args), args, "bad-flag")
# Size tables may have any names: an unknown one is the problem's error, not a flag error.
for args in (["run", "-p", "relu", "--size", "huge"], ["check", "-p", "relu", "x.cu", "--size", "medium"],
             ["validate", "-p", "matmul", "-s", "baseline", "--size", "tiny"], ["lower", "-p", "matmul", "--size", "big"]):
    case("flags", "flags: " + " ".join(args), args, "unknown-size")
case("flags", "flags: search without a problem", ["search"], "missing-problem")

# ---- .npy files (read by run --inputs before any GPU work) ----
def npy(descr="<f4", fortran="False", shape="(1024, 1024)", data=b"", version=1, header=None, magic=b"\x93NUMPY"):
    h = header if header is not None else ("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)).encode()
    if version == 1:
        return magic + bytes([1, 0]) + struct.pack("<H", len(h)) + h + data
    return magic + bytes([version, 0]) + struct.pack("<I", len(h)) + h + data


def npy_case(what, data, expect="bad-npy", size="small"):
    d = "npy/%03d" % len(cases)
    write(d + "/X.npy", data)
    case("npy", what, ["run", "-p", "relu", "-s", "best", "--size", size, "--inputs", "{cases}/" + d], expect)


npy_case("empty file", b"")
npy_case("no magic", b"hello world, not numpy")
npy_case("magic only", b"\x93NUMPY")
npy_case("wrong magic", npy(magic=b"\x93NUMPX"))
npy_case("format version 4", npy(version=4))
npy_case("format version 0", npy(version=0))
npy_case("header length past the end", b"\x93NUMPY\x01\x00\xff\xff{'descr'")
npy_case("version 2 header length 4 GiB", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{}")
npy_case("no descr", npy(header=b"{'fortran_order': False, 'shape': (4,), }"))
npy_case("no fortran_order", npy(header=b"{'descr': '<f4', 'shape': (4,), }"))
npy_case("no shape", npy(header=b"{'descr': '<f4', 'fortran_order': False, }"))
npy_case("big-endian floats", npy(descr=">f4"))
npy_case("complex numbers", npy(descr="<c8"))
npy_case("Python objects", npy(descr="|O"))
npy_case("strings", npy(descr="|S10"))
npy_case("Fortran order", npy(fortran="True"))
npy_case("fortran_order is 1", npy(fortran="1"))
npy_case("negative shape", npy(shape="(-1, 4)"))
npy_case("shape of words", npy(shape="(a, b)"))
npy_case("shape not a tuple", npy(shape="[4, 4]"))
npy_case("shape without closing parenthesis", npy(shape="(4, 4"))
npy_case("shape that overflows 64 bits", npy(shape="(4294967296, 4294967296, 4294967296)"))
npy_case("a huge first dimension", npy(shape="(99999999999999999999999,)"))
npy_case("100000 dimensions", npy(shape="(" + "1," * 100000 + ")", version=2))
npy_case("40 dimensions", npy(shape="(" + "1, " * 40 + ")"))
npy_case("100 kB header of spaces", npy(header=b"{" + b" " * 100000 + b"}", version=2))
npy_case("long quoted descr", npy(descr="f" * 100000, version=2))
npy_case("unknown header key", npy(header=b"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1, }"))
npy_case("header is not a dictionary", npy(header=b"(1, 2, 3)"))
npy_case("data shorter than the shape", npy(shape="(64, 64)", data=b"\x00" * 100))
npy_case("header of invalid UTF-8", npy(header=b"{'descr': '\xff\xfe', 'fortran_order': False, 'shape': (4,), }"))
npy_case("nested parentheses", npy(shape="((4, 4), 4)"))
for what, descr, shape in [("float64 where float32 is needed", "<f8", "(4, 4)"), ("int32 where float32 is needed", "<i4", "(4, 4)"),
                           ("the wrong shape", "<f4", "(4, 3)"), ("one dimension too few", "<f4", "(16,)"),
                           ("a scalar", "<f4", "()")]:
    dims = [int(x) for x in shape.strip("()").split(",") if x.strip()]
    n = 1
    for x in dims:
        n *= x
    width = 8 if descr == "<f8" else 4
    npy_case(what, npy(descr=descr, shape=shape, data=b"\x00" * (n * width)), "npy-shape-mismatch")
case("npy", "--inputs is a file", ["run", "-p", "relu", "-s", "best", "--size", "small", "--inputs", "{cases}/npy/000/X.npy"], "bad-inputs-dir")
case("npy", "--inputs does not exist", ["run", "-p", "relu", "-s", "best", "--size", "small", "--inputs", "{cases}/no-such-dir"], "bad-inputs-dir")
case("npy", "--inputs with the interpreter", ["run", "-p", "relu", "--backend", "interp", "--inputs", "{cases}/npy/000"], "flag-needs-gpu-backend")
case("npy", "--save-io with the interpreter", ["run", "-p", "relu", "--backend", "interp", "--save-io", "{tmp}"], "flag-needs-gpu-backend")
case("npy", "--save-io-trials without --save-io", ["run", "-p", "relu", "--backend", "interp", "--save-io-trials", "1"], "flag-needs-save-io")

# ---- .cu files: includes (refused before any parsing), launch comments, empty files ----
KERNEL = '__global__ void relu_kernel(const float* X, float* Y) { Y[threadIdx.x] = X[threadIdx.x]; }\n'
INCLUDES = {
    "absolute quoted include": '#include "/etc/passwd"\n', "absolute angle include": "#include </etc/passwd>\n",
    "climbing quoted include": '#include "../../../../etc/passwd"\n', "climbing angle include": "#include <../../../etc/shadow>\n",
    "a local header": '#include "my_helpers.h"\n', "proc file": '#include "/proc/self/environ"\n',
    "include through a macro": "#define F \"/etc/passwd\"\n#include F\n", "include_next of an absolute path": '#include_next "/etc/hosts"\n',
    "import": '#import "/etc/passwd"\n', "embed": '#embed "/etc/passwd"\n', "comment between # and include": '#/**/include "/etc/passwd"\n',
    "spaces and tabs": ' \t#  \t include\t"/etc/passwd"\n', "line continuation": '#inc\\\nlude "/etc/passwd"\n',
    "continuation inside the name": '#include "/etc/\\\npasswd"\n', "after a block comment": '/* a */ #include "/etc/passwd"\n',
    "after a kernel": KERNEL + '#include "/etc/hostname"\n', "home directory": '#include "~/.ssh/id_rsa"\n',
    "unterminated name": '#include "/etc/passwd\n', "angle include with a drive": "#include <C:/x.h>\n",
    "device header by a path": '#include "codegen/device/cusched_device.cuh"\n',
}
for what, text in INCLUDES.items():
    name = write("cu/%03d.cu" % len(cases), text + KERNEL)
    case("cu", "audit: " + what, ["audit", "{cases}/" + name], "include-outside-library")
    case("cu", "check: " + what, ["check", "-p", "relu", "{cases}/" + name, "--no-audit", "--grid", "1", "--block", "32"], "include-outside-library")
name = write("cu/%03d.cu" % len(cases), "")
case("cu", "audit: an empty .cu", ["audit", "{cases}/" + name], "no-kernel")
name = write("cu/%03d.cu" % len(cases), "// nothing but a comment\nint x;\n")
case("cu", "audit: a .cu without a kernel", ["audit", "{cases}/" + name], "no-kernel")
case("cu", "audit: a .cu that does not exist", ["audit", "{cases}/no-such.cu"], "audit-file-unreadable")
case("cu", "audit: a directory", ["audit", "{cases}"], "audit-file-unreadable")
case("cu", "check: a .cu that does not exist", ["check", "-p", "relu", "{cases}/no-such.cu", "--no-audit"], "unreadable-file")
case("cu", "check: a directory", ["check", "-p", "relu", "{cases}", "--no-audit"], "not-a-file")
LAUNCH = {
    "a 200000-entry grid": ("// cusched-launch size=small grid=" + "1," * 200000 + "1 block=32\n", "bad-launch"),
    "a 1 MB comment line": ("// cusched-launch size=small " + "x" * 1000000 + "\n", "bad-launch"),
    "no launch line": ("", "missing-launch"),
    "launch line for another size": ("// cusched-launch size=bench grid=1 block=32\n", "missing-launch"),
    "grid of letters": ("// cusched-launch size=small grid=a,b block=32\n", "bad-launch"),
    "zero block": ("// cusched-launch size=small grid=1 block=0\n", "bad-launch"),
    "grid beyond 2^31": ("// cusched-launch size=small grid=99999999999 block=32\n", "bad-launch"),
    "empty grid entries": ("// cusched-launch size=small grid=,,, block=32\n", "bad-launch"),
    "smem of letters": ("// cusched-launch size=small grid=1 block=32 smem=lots\n", "bad-launch"),
    "smem beyond the device": ("// cusched-launch size=small grid=1 block=32 smem=300000\n", "shared-memory-too-large"),
    "a million launch lines": ("// cusched-launch size=bench grid=1 block=1\n" * 100000, "missing-launch"),
}
for what, (text, code) in LAUNCH.items():
    name = write("cu/%03d.cu" % len(cases), text + KERNEL)
    case("cu", "check: " + what, ["check", "-p", "relu", "--size", "small", "{cases}/" + name, "--no-audit"], code)
name = write("cu/%03d.cu" % len(cases), KERNEL)
case("cu", "check: --dynamic-smem beyond the device", ["check", "-p", "relu", "{cases}/" + name, "--no-audit", "--grid", "1",
                                                       "--block", "32", "--dynamic-smem", "240000"], "shared-memory-too-large")
for g in ["0", "-1", "1,2,3,4x", "abc", "99999999999"]:
    case("cu", "check: --grid %s" % g, ["check", "-p", "relu", "{cases}/" + name, "--no-audit", "--grid", g, "--block", "32"], "bad-launch")

# ---- store files (report and export open them read-only) ----
def store_case(what, data, expect):
    n = write("store/%03d.db" % len(cases), data) if data is not None else None
    for cmd in (["report", "{cases}/" + n, "-o", "{tmp}/report.html"], ["export", "{cases}/" + n, "-o", "{tmp}/kernel.cu"]):
        case("store", cmd[0] + ": " + what, cmd, expect)


store_case("an empty file", b"", "not-a-store")
store_case("random bytes", bytes((i * 7919) % 251 for i in range(8192)), "store-damaged")
store_case("a text file", b"this is not a database\n" * 100, "store-damaged")
store_case("a truncated SQLite header", b"SQLite format 3\x00" + b"\x10\x00", "store-damaged")


def sqlite_bytes(build):
    path = os.path.join(CASES, "tmp.db")
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    build(db)
    db.commit()
    db.close()
    with open(path, "rb") as f:
        data = f.read()
    os.remove(path)
    return data


TABLES = ["schema_version", "runs", "rounds", "ideas", "candidates", "artifacts", "evaluations", "llm_calls"]


def full_store(db, version=1):
    for t in TABLES:
        db.execute("CREATE TABLE %s (id INTEGER PRIMARY KEY, version INTEGER)" % t if t == "schema_version" else
                   "CREATE TABLE %s (id INTEGER PRIMARY KEY, body TEXT)" % t)
    db.execute("INSERT INTO schema_version(version) VALUES (?)", (version,))
    for i in range(300):
        db.execute("INSERT INTO candidates(body) VALUES (?)", ("x" * 400,))


store_case("another program's database", sqlite_bytes(lambda db: db.execute("CREATE TABLE photos (id INTEGER, path TEXT)")), "not-a-store")
store_case("a database without tables", sqlite_bytes(lambda db: db.execute("PRAGMA user_version = 3")), "not-a-store")
for missing in ["runs", "candidates", "evaluations", "schema_version"]:
    def build(db, missing=missing):
        full_store(db)
        db.execute("DROP TABLE %s" % missing)
    store_case("a store without its %s table" % missing, sqlite_bytes(build), "not-a-store")
store_case("a store of a newer schema", sqlite_bytes(lambda db: full_store(db, 99)), "store-version-newer")
store_case("a store with no schema version", sqlite_bytes(lambda db: (full_store(db), db.execute("DELETE FROM schema_version"))), "not-a-store")
good = sqlite_bytes(full_store)
page = struct.unpack(">H", good[16:18])[0] or 65536
damaged = bytearray(good)
for off in range(2 * page, min(len(damaged), 5 * page), 97):
    damaged[off] = (damaged[off] + 0x5a) % 256
store_case("a store with damaged pages", bytes(damaged), "store-damaged")
store_case("a store cut in half", good[: len(good) // 2], "store-damaged")
case("store", "report: a store that does not exist", ["report", "{cases}/no-such.db", "-o", "{tmp}/r.html"], "store-not-found")
case("store", "export: a store that does not exist", ["export", "{cases}/no-such.db", "-o", "{tmp}/k.cu"], "store-not-found")
case("store", "report: a directory", ["report", "{cases}", "-o", "{tmp}/r.html"], "store-not-found")
case("store", "export: a directory", ["export", "{cases}", "-o", "{tmp}/k.cu"], "store-not-found")


with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump({"about": "Malformed inputs and the structured error each must get; written by generate.py, run by run_corpus.py.",
               "cases": cases}, f, indent=1, ensure_ascii=True)
    f.write("\n")
print("wrote %d cases" % len(cases))
