#pragma once
// A benchmark problem: the algorithm, its shapes, the PyTorch semantics it
// reproduces, tolerance, input distributions, floor, kernel contract and its
// built-in schedules.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dsl/pipeline.h"
#include "dsl/schedule_state.h"

namespace cusched {

struct InputDistribution {
  std::string kind = "normal";  // "normal" (a = mean, b = std), "uniform" (a = lo, b = hi), "randint" (a = lo, b = hi)
  double a = 0, b = 1;
};

struct ProblemInput {
  std::string name;
  InputDistribution standard;
  std::optional<InputDistribution> adversarial;  // e.g. large mean and small spread for normalisations
};

// Useful floating-point operations as an expression over the size names: its
// floating-point parts are evaluated in double, its integer parts in 64-bit integers.
struct FlopCount {
  Expr expr;
  FlopCount() = default;
  FlopCount(Expr e) : expr(std::move(e)) {}  // NOLINT: a problem assigns the expression directly
  double operator()(const SizeBindings& sizes) const;
  explicit operator bool() const { return expr.defined(); }
};

// Where a problem comes from, for problems that reproduce a module of a benchmark suite:
// enough for a script to build the module, load a run's saved inputs into it and compare.
struct ProblemSource {
  std::string benchmark;  // e.g. "KernelBench"
  std::string file;       // the module's file within the benchmark, e.g. "level1/19_ReLU.py"
  std::string commit;     // the benchmark's commit the problem was checked against, 40 hex digits
  // The forward() arguments in order: a string names a problem input, a number is a Python scalar.
  nlohmann::json forward_args = nlohmann::json::array();
  // Problem inputs that are the module's parameters or buffers, by attribute path ("conv.weight").
  std::map<std::string, std::string> parameters;
  nlohmann::json init_args;  // the module's constructor arguments (an array), null when not given
  // How the problem's stages read the module: "train" (as the benchmark runs it) or "eval"
  // (where a training-mode layer, such as dropout, cannot be reproduced).
  std::string mode = "train";
};

struct Problem {
  std::string name;             // e.g. "softmax"
  std::string level;            // "1" or "2"
  std::string title;            // one line
  std::string torch_semantics;  // the exact PyTorch expression reproduced, e.g. "torch.softmax(x, dim=1)"
  std::string notes;            // defaults that matter (eps, reduction, padding)
  Pipeline pipeline;
  std::map<std::string, SizeBindings> sizes;      // any names; "small" (CPU tests) and default_size among them
  std::string default_size = "bench";             // the size a command uses when none is named
  double atol = 1e-2, rtol = 1e-2;                // KernelBench tolerance
  double strict_atol = 1e-4, strict_rtol = 1e-4;  // the strict variant (--strict)
  std::vector<ProblemInput> inputs;
  FlopCount flops;                      // useful floating-point operations
  nlohmann::json baseline_schedule;     // simple and correct
  nlohmann::json best_schedule;         // the fastest known
  std::optional<ProblemSource> source;  // the benchmark module reproduced, when there is one
  // Why every output is the same for every input, when it is (then verification accepts a
  // constant reference); empty for the problems whose output depends on their inputs.
  std::string constant_output;

  // Bytes that must move: every input read once and every output written once.
  double min_bytes(const SizeBindings& sizes) const;
  // The part of min_bytes that is written: the outputs.
  double written_bytes(const SizeBindings& sizes) const;
  const SizeBindings& size(const std::string& which) const;  // fails with unknown-size
  ScheduleContext context(const std::string& size_name, bool strict = false) const;
  // Adds the size `which` + "_rows16": `which` with every extent rounded up to a multiple
  // of 4, so that rows of 4-byte elements are whole 16-byte chunks (what tensor maps
  // need); returns its name.
  std::string add_16_byte_rows_size(const std::string& which);
  // Adds the size `which` + "_x" + factor: each extent of `which` times `factor`, at most
  // the default size's; returns its name.
  std::string add_scaled_size(const std::string& which, int64_t factor);
  // Adds the size `which` + "_div" + divisor: each extent of `which` divided by `divisor`
  // (rounded up), at least `floor`'s; returns its name. A fraction of the size a schedule
  // was made for keeps the divisibility its splits rely on.
  std::string add_divided_size(const std::string& which, int64_t divisor, const std::string& floor);
};

const std::vector<Problem>& all_problems();
const Problem& find_problem(const std::string& name);  // fails with unknown-problem

}  // namespace cusched
