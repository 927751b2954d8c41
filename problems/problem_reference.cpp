#include "problems/problem_reference.h"

#include <cstdio>
#include <sstream>

#include "problems/contract.h"
#include "problems/problem_json.h"

namespace cusched {

namespace {

// The H200's copy bandwidth and peak rates (docs/runtime.md), used to turn bytes and FLOPs
// into floor times.
constexpr double kCopyBytesPerSecond = 4.27e12;
constexpr double kFp32FlopsPerSecond = 51e12;

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string sizes_text(const SizeBindings& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return out;
}

std::string shape_text(const std::vector<Expr>& shape, const SizeBindings& s) {
  std::string sym, num;
  for (size_t i = 0; i < shape.size(); ++i) {
    sym += (i ? ", " : "") + to_string(shape[i]);
    num += (i ? ", " : "") + std::to_string(eval_int(shape[i], s));
  }
  return "(" + sym + ") = (" + num + ")";
}

std::string distribution_text(const InputDistribution& d) {
  std::ostringstream os;
  os << d.kind << "(" << d.a << ", " << d.b << ")";
  return os.str();
}

void write_problem(std::ostringstream& md, const Problem& p) {
  const SizeBindings& bench = p.size("bench");
  md << "## " << p.name << "\n\n";
  md << p.title << " (KernelBench level " << p.level << ").\n\n";
  md << "- PyTorch: `" << p.torch_semantics << "`\n";
  if (!p.notes.empty()) md << "- Notes: " << p.notes << "\n";
  md << "- Sizes: small " << sizes_text(p.size("small")) << "; bench " << sizes_text(bench) << "\n";
  md << "- Tolerance: atol " << p.atol << ", rtol " << p.rtol << " (strict variant 1e-4)\n";
  double bytes = p.min_bytes(bench), flops = p.flops(bench);
  md << "- Floor at bench size: " << fixed(bytes / 1e6, 1) << " MB moved, " << fixed(flops / 1e9, 2) << " GFLOP; "
     << fixed(bytes / kCopyBytesPerSecond * 1e3, 3) << " ms at 4.27 TB/s, "
     << fixed(flops / kFp32FlopsPerSecond * 1e3, 3) << " ms at 51 FP32 TFLOP/s\n";
  md << "- Stages: ";
  for (size_t i = 0; i < p.pipeline.stages().size(); ++i)
    md << (i ? ", " : "") << "`" << p.pipeline.stages()[i]->name << "`";
  md << "\n\n";
  md << "| buffer | role | dtype | shape (bench) | distribution | adversarial |\n|---|---|---|---|---|---|\n";
  for (const auto& t : p.pipeline.inputs()) {
    const ProblemInput& in = problem_input(p, t->name);
    md << "| `" << t->name << "` | input | " << dtype_name(t->dtype) << " | " << shape_text(t->shape, bench) << " | "
       << distribution_text(in.standard) << " | " << (in.adversarial ? distribution_text(*in.adversarial) : "-")
       << " |\n";
  }
  for (const auto& name : p.pipeline.outputs()) {
    const FuncDef* f = p.pipeline.find_stage(name);
    md << "| `" << name << "` | output | " << dtype_name(f->dtype) << " | " << shape_text(f->extents, bench)
       << " | - | - |\n";
  }
  nlohmann::json contract = kernel_contract(p);
  md << "\nKernel contract:\n\n```c\nextern \"C\" __global__ void " << contract["kernel_name"].get<std::string>()
     << "(";
  const auto& params = contract["params"];
  for (size_t i = 0; i < params.size(); ++i)
    md << (i ? ", " : "") << params[i]["type"].get<std::string>() << " " << params[i]["name"].get<std::string>();
  md << ");\n```\n\n";
}

}  // namespace

std::string problem_reference_markdown() {
  std::ostringstream md;
  md << "# Problems\n\n";
  md << "<!-- Generated from the problem set by `cusched problems --markdown`; do not edit. -->\n\n";
  md << "Each problem is an algorithm in the cusched DSL that reproduces one PyTorch expression exactly. "
        "It has two sizes: `small` (CPU tests; odd extents exercise bounds guards) and `bench` "
        "(KernelBench's shapes, used for timing). Inputs are drawn from the listed distributions: "
        "normal(mean, std), uniform(lo, hi), randint(lo, hi inclusive); the adversarial distribution, where "
        "given, is one of the verification trials. A result passes when every element is within "
        "atol + rtol * |reference| of the float64 reference. The floor is the bytes every input read once "
        "(at the measured read bandwidth) and every output written once (at what a copy's write costs), and "
        "the FLOPs over the FP32 rate (the H200 anchors of docs/runtime.md). Buffers are row-major, last dimension "
        "innermost; the kernel contract lists the inputs "
        "in pipeline order, then the outputs. `cusched problems --json` prints the same data for scripts "
        "(bench/torch_baselines.py reads it).\n\n";
  md << "## Using the problems\n\n"
        "- List them: `cusched problems` (table), `cusched problems --json` (shapes, inputs with dtypes, "
        "distributions, outputs, kernel contract), `cusched problems --markdown` (this page).\n"
        "- Check a schedule against a problem: `cusched validate --problem softmax --schedule my.json --size bench`; "
        "`--schedule baseline` and `--schedule best` name the built-in ones.\n"
        "- PyTorch baselines on the GPU machine, same timing protocol (L2 flushed before each launch, CUDA "
        "events, median of at least 30): `cusched problems --json > problems.json; python3 "
        "bench/torch_baselines.py --problems-json problems.json [names...]` prints one JSON line per problem "
        "with `eager_ms` and `compile_ms` (median, min, max). Add `--inputs DIR --outputs DIR` to compare "
        "PyTorch's result with outputs cusched saved as `<buffer>.npy` or `trial<K>_<buffer>.npy`, within "
        "the problem's tolerance (`--size small` for small-size files).\n"
        "- Add a problem: one file `problems/<name>.cpp` with `Problem make_<name>()` (algorithm, sizes, "
        "PyTorch expression over the input names with `torch` and `F` in scope, inputs and distributions, "
        "FLOPs, baseline schedule), listed in `problems/problem_set.{h,cpp}`; then regenerate this page.\n\n";
  md << "| problem | level | bench sizes | PyTorch |\n|---|---|---|---|\n";
  for (const auto& p : all_problems())
    md << "| [`" << p.name << "`](#" << p.name << ") | " << p.level << " | " << sizes_text(p.size("bench")) << " | `"
       << p.torch_semantics << "` |\n";
  md << "\n";
  for (const auto& p : all_problems()) write_problem(md, p);
  return md.str();
}

}  // namespace cusched
