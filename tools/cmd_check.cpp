// `cusched check --problem P kernel.cu`: audits, verifies and times a hand-written (or
// agent-written) .cu file that implements the problem's kernel contract, with the
// same rules and verdicts as a generated kernel.
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "codegen/device_library.h"
#include "codegen/include_policy.h"
#include "dsl/input_limits.h"
#include "problems/contract.h"
#include "runtime/cuda_driver.h"
#include "search/candidate_evaluation.h"
#include "tools/command.h"
#include "tools/flag_checks.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct Options {
  std::string problem, file, size, shape, precision = "f32", grid, block;
  int64_t dynamic_smem = -1;
  bool strict = false, no_audit = false, sanitize = false, json = false;
  uint64_t seed = 1;
};

std::array<int64_t, 3> parse_dim(const std::string& text, const std::string& what) {
  std::array<int64_t, 3> d{1, 1, 1};
  std::stringstream ss(text);
  std::string part;
  int i = 0;
  while (std::getline(ss, part, ',')) {
    if (i >= 3)
      fail("bad-launch", "The " + what + " '" + valid_utf8(text.substr(0, 80)) + "' has more than three entries.",
           "Write it as X,Y,Z, e.g. 4096,1,1.");
    if (part.empty() || part.size() > 10 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(part) < 1 || std::stoll(part) > (int64_t{1} << 31) - 1)
      fail("bad-launch",
           "The " + what + " '" + valid_utf8(text.substr(0, 80)) + "' is not a list of up to three positive integers.",
           "Write it as X,Y,Z, e.g. 4096,1,1, each from 1 to 2147483647.");
    d[i++] = std::stoll(part);
  }
  if (i == 0) fail("bad-launch", "The " + what + " is empty.", "Write it as X,Y,Z, e.g. 4096,1,1.");
  return d;
}

// Launch parameters from lines `// cusched-launch size=bench grid=X,Y,Z block=X,Y,Z smem=N` in
// the file, read line by line (linear in the file's length).
void read_launch_comment(const std::string& src, const std::string& size, Options& o) {
  auto digits_and_commas = [](const std::string& v) {
    return !v.empty() && v.size() <= 64 && v.find_first_not_of("0123456789,") == std::string::npos;
  };
  std::istringstream lines(src);
  std::string line;
  while (std::getline(lines, line)) {
    size_t at = line.find("//");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 2));
    std::string word;
    if (!(words >> word) || word != "cusched-launch") continue;
    std::map<std::string, std::string> fields;
    while (words >> word) {
      size_t eq = word.find('=');
      if (eq == std::string::npos) break;
      fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    if (fields["size"] != size) continue;
    if (!digits_and_commas(fields["grid"]) || !digits_and_commas(fields["block"]))
      fail("bad-launch",
           "The cusched-launch comment for size " + size + " has no grid=X,Y,Z and block=X,Y,Z of digits.",
           "Write it as `// cusched-launch size=" + size + " grid=X,Y,Z block=X,Y,Z [smem=N]`.");
    if (o.grid.empty()) o.grid = fields["grid"];
    if (o.block.empty()) o.block = fields["block"];
    if (o.dynamic_smem < 0 && fields.count("smem")) {
      const std::string& smem = fields["smem"];
      if (smem.empty() || smem.size() > 10 || smem.find_first_not_of("0123456789") != std::string::npos)
        fail("bad-launch",
             "The cusched-launch comment's smem='" + valid_utf8(smem.substr(0, 40)) + "' is not a byte count.",
             "Write smem=N with N the dynamic shared memory in bytes.");
      o.dynamic_smem = std::stoll(smem);
    }
  }
}

CommandRegistration reg{
    {"check", "Audit, verify and time a hand-written .cu kernel against a problem's kernel contract",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<Options>();
       sub.add_option("--problem,-p", o->problem,
                      "Problem: a built-in name (see `cusched problems`) or a problem file (a path containing / or "
                      "ending in .json)")
           ->required();
       sub.add_option("file", o->file, "The .cu file")->required();
       sub.add_option("--size", o->size, "Size table (default: the problem's default size)");
       sub.add_option("--shape", o->shape,
                      "Sizes NAME=V,NAME=V,... over the chosen size; kernels are specialised to them");
       sub.add_option("--grid", o->grid, "Grid X,Y,Z (else from a // cusched-launch comment)");
       sub.add_option("--block", o->block, "Block X,Y,Z (else from a // cusched-launch comment)");
       sub.add_option("--dynamic-smem", o->dynamic_smem, "Dynamic shared memory in bytes")
           ->check(integer_in(0, 1 << 30));
       sub.add_option("--precision", o->precision, "Operand precision the kernel uses (f32, tf32, bf16, f16)");
       sub.add_option("--seed", o->seed, "Base seed of the random inputs")->check(seed_value());
       sub.add_flag("--strict", o->strict, "Use the problem's strict 1e-4 tolerance");
       sub.add_flag("--no-audit", o->no_audit, "Skip the Clang audit");
       sub.add_flag("--sanitize", o->sanitize,
                    "Also run compute-sanitizer (memcheck, racecheck, synccheck) on the kernel");
       sub.add_flag("--json", o->json, "Accepted for uniformity: the outcome is printed as JSON already");
       return [o] {
         try {
           Problem p = resolve_problem(o->problem);
           o->size = resolve_size(p, o->size, o->shape);
           const std::string source = read_file_bounded(o->file, kMaxSourceBytes, "The kernel source");
           std::set<std::string> library;
           for (const auto& [name, text] : device_headers()) library.insert(name);
           if (auto e = include_error(source, library)) throw UserError(*e);
           read_launch_comment(source, o->size, *o);
           if (o->grid.empty() || o->block.empty())
             fail("missing-launch", "No grid and block were given for size " + o->size + ".",
                  "Pass --grid and --block, or add a line `// cusched-launch size=" + o->size +
                      " grid=X,Y,Z block=X,Y,Z` to the file.");
           KernelBundle b = search::handwritten_bundle(p, source, o->size, o->precision, parse_dim(o->grid, "grid"),
                                                       parse_dim(o->block, "block"), o->dynamic_smem);
           if (auto e = search::shared_memory_error(b, o->size)) throw UserError(*e);
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
               out.reason =
                   "The audit and the precision scan passed; verification and timing were "
                   "skipped: " +
                   err->message;
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
