// `cusched check --problem P kernel.cu`: audits, verifies and times a hand-written (or
// agent-written) .cu file that implements the problem's kernel contract, with the
// same rules and verdicts as a generated kernel.
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "codegen/device_library.h"
#include "problems/contract.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tools/command.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct Options {
  std::string problem, file, size, shape, precision = "f32", grid, block;
  int64_t dynamic_smem = -1;
  bool strict = false, no_audit = false, sanitize = false;
  uint64_t seed = 1;
};

std::array<int64_t, 3> parse_dim(const std::string& text, const std::string& what) {
  std::array<int64_t, 3> d{1, 1, 1};
  std::stringstream ss(text);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i >= 3) break;
    try {
      d[i++] = std::stoll(part);
    } catch (const std::exception&) {
      fail("bad-launch", "The " + what + " '" + text + "' is not a list of up to three integers.", "Write it as X,Y,Z, e.g. 4096,1,1.");
    }
  }
  if (i == 0) fail("bad-launch", "The " + what + " is empty.", "Write it as X,Y,Z, e.g. 4096,1,1.");
  return d;
}

// Launch parameters from a line `// cusched-launch size=bench grid=X,Y,Z block=X,Y,Z smem=N` in the file.
void read_launch_comment(const std::string& src, const std::string& size, Options& o) {
  std::regex line(R"(//\s*cusched-launch\s+size=(\w+)\s+grid=([0-9,]+)\s+block=([0-9,]+)(\s+smem=([0-9]+))?)");
  for (std::sregex_iterator it(src.begin(), src.end(), line), end; it != end; ++it) {
    if ((*it)[1] != size) continue;
    if (o.grid.empty()) o.grid = (*it)[2];
    if (o.block.empty()) o.block = (*it)[3];
    if (o.dynamic_smem < 0 && (*it)[5].matched) o.dynamic_smem = std::stoll((*it)[5]);
  }
}

CommandRegistration reg{{"check", "Audit, verify and time a hand-written .cu kernel against a problem's kernel contract",
                         [](CLI::App& sub) -> std::function<int()> {
                           auto o = std::make_shared<Options>();
                           sub.add_option("--problem,-p", o->problem, "Problem: a built-in name (see `cusched problems`) or a problem file (a path containing / or ending in .json)")->required();
                           sub.add_option("file", o->file, "The .cu file")->required();
                           sub.add_option("--size", o->size, "Size table (default: the problem's default size)");
                           sub.add_option("--shape", o->shape, "Sizes NAME=V,NAME=V,... over the chosen size; kernels are specialised to them");
                           sub.add_option("--grid", o->grid, "Grid X,Y,Z (else from a // cusched-launch comment)");
                           sub.add_option("--block", o->block, "Block X,Y,Z (else from a // cusched-launch comment)");
                           sub.add_option("--dynamic-smem", o->dynamic_smem, "Dynamic shared memory in bytes");
                           sub.add_option("--precision", o->precision, "Operand precision the kernel uses (f32, tf32, bf16, f16)");
                           sub.add_option("--seed", o->seed, "Base seed of the random inputs");
                           sub.add_flag("--strict", o->strict, "Use the problem's strict 1e-4 tolerance");
                           sub.add_flag("--no-audit", o->no_audit, "Skip the Clang audit");
                           sub.add_flag("--sanitize", o->sanitize,
                                        "Also run compute-sanitizer (memcheck, racecheck, synccheck) on the kernel");
                           return [o] {
                             try {
                               Problem p = resolve_problem(o->problem);
                               o->size = resolve_size(p, o->size, o->shape);
                               std::ifstream in(o->file);
                               if (!in) fail("unreadable-file", "Cannot read '" + o->file + "'.", "Check the path.");
                               std::stringstream ss;
                               ss << in.rdbuf();
                               read_launch_comment(ss.str(), o->size, *o);
                               if (o->grid.empty() || o->block.empty())
                                 fail("missing-launch", "No grid and block were given for size " + o->size + ".",
                                      "Pass --grid and --block, or add a line `// cusched-launch size=" + o->size +
                                          " grid=X,Y,Z block=X,Y,Z` to the file.");
                               KernelBundle b = search::handwritten_bundle(p, ss.str(), o->size, o->precision,
                                                                           parse_dim(o->grid, "grid"),
                                                                           parse_dim(o->block, "block"), o->dynamic_smem);
                               search::CandidateOutcome out;
                               out.bundle = b;
                               out.precision = b.precision;
                               out.schedule_hash = "hand-written";
                               if (b.precision != "f32") {
                                 ScheduleContext ctx = p.context(o->size, o->strict);
                                 Schedule probe(ctx);  // the registry's precision rule decides
                                 probe.precision(p.pipeline.outputs()[0], b.precision);
                               }
                               if (!o->no_audit) {
                                 bool bad = false;
                                 out.audit_findings = search::audit_bundle(p, b, &bad, &out.audit_ms);
                                 if (bad) {
                                   out.verdict = "audit_rejected";
                                   out.reason = "The audit found an error-level problem in the kernel.";
                                 }
                               }
                               if (out.verdict.empty()) search::check_declared_precision(b, out);
                               if (out.verdict.empty()) {
                                 if (auto err = runtime::driver_available()) {
                                   out.reason = "The audit and the precision scan passed; verification and timing were "
                                                "skipped: " + err->message;
                                   std::cout << out.to_json().dump(2) << "\n";
                                   std::cerr << err->message << "\n";
                                   return kExitNoGpu;
                                 }
                                 search::EvalConfig cfg;
                                 cfg.size = o->size;
                                 cfg.seed = o->seed;
                                 cfg.strict = o->strict;
                                 require_fits_device(p, o->size, device_memory_bytes());
                                 search::verify_bundle_on_gpu(p, cfg, nullptr, out);
                                 if (o->sanitize && out.verdict == "ok") {
                                   out.sanitizer = search::sanitize_bundle(p, b, cfg);
                                   if (!out.sanitizer.value("clean", false)) {
                                     out.verdict = "sanitizer_findings";
                                     out.reason = "compute-sanitizer reported errors or could not run: " + out.sanitizer.dump();
                                   }
                                 }
                               }
                               std::cout << out.to_json().dump(2) << "\n";
                               return out.verified() ? kExitOk : kExitFailure;
                             } catch (const UserError& e) {
                               print_error_json(e.error());
                               return kExitFailure;
                             }
                           };
                         }}};

}  // namespace
}  // namespace cusched::tools
