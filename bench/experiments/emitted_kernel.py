"""Shared by the scripts that write text variants of emitted kernels for `cusched check`:
a problem's best-schedule kernel as `cusched lower` emits it at the bench size, renamed to
the problem's kernel contract (`<problem>_kernel`) and given its launch line, and the
writer that refuses a variant whose text change no longer applies. CUSCHED names the binary."""
import os
import re
import subprocess
import sys


def emitted_for_check(problem):
    cusched = os.environ.get("CUSCHED", "cusched")
    src = subprocess.run([cusched, "lower", "-p", problem, "-s", "best", "--size", "bench", "--emit", "cuda"],
                         capture_output=True, text=True, check=True).stdout
    return source_for_check(problem, src)


def source_for_check(problem, src):
    """An emitted one-kernel source renamed to the problem's contract, with its launch line."""
    kernels = re.findall(r"// kernel (k\d+_\w+): grid \((\d+), (\d+), (\d+)\), block \((\d+), (\d+), (\d+)\)(?:, (\d+) bytes)?", src)
    if len(kernels) != 1:
        sys.exit(f"{problem}: {len(kernels)} kernels; the contract takes one")
    name, *dims, smem = kernels[0]
    src = src.replace(f" {name}(", f" {problem}_kernel(")
    return src + "// cusched-launch size=bench grid={},{},{} block={},{},{}".format(*dims) + (f" smem={smem}" if smem else "") + "\n"


def write_variants(out, variants, base, names=None, prefix=""):
    """Writes OUT/<prefix><name>.cu for each named variant (default: all)."""
    for name in names or variants:
        text = variants[name]
        if name != base and text == variants[base]:
            sys.exit(f"variant {name}: its change no longer applies to the {base} kernel")
        with open(os.path.join(out, prefix + name + ".cu"), "w") as f:
            f.write(text)
