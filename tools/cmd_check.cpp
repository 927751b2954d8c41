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
#include "tools/kernel_launch.h"
#include "tools/problem_options.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct CheckCommandOptions {
  std::string problem, file, size, shape, precision = "f32", grid, block;
  int64_t dynamic_smem = -1;
  bool strict = false, no_audit = false, sanitize = false, json = false;
  uint64_t seed = 1;
};

CommandRegistration check_command{
    {"check", "Audit, verify and time a hand-written .cu kernel against a problem's kernel contract",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<CheckCommandOptions>();
       add_problem_option(sub, o->problem);
       sub.add_option("file", o->file, "The .cu file")->required();
       add_size_options(sub, o->size, o->shape);
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
           read_launch_comment(source, o->size, o->grid, o->block, o->dynamic_smem);
           if (o->grid.empty() || o->block.empty())
             fail("missing-launch", "No grid and block were given for size " + o->size + ".",
                  "Pass --grid and --block, or add a line `// cusched-launch size=" + o->size +
                      " grid=X,Y,Z block=X,Y,Z` to the file.");
           KernelBundle b =
               search::handwritten_bundle(p, source, o->size, parse_precision(o->precision), parse_dim(o->grid, "grid"),
                                          parse_dim(o->block, "block"), o->dynamic_smem);
           if (auto e = search::shared_memory_error(b, o->size)) throw UserError(*e);
           search::CandidateOutcome out;
           out.bundle = b;
           out.precision = b.precision;
           out.schedule_hash = "hand-written";
           if (b.precision != Precision::f32) {
             ScheduleContext ctx = p.context(o->size, o->strict);
             Schedule probe(ctx);  // the registry's precision rule decides
             probe.precision(p.pipeline.outputs()[0], precision_name(b.precision));
           }
           if (!o->no_audit) {
             bool bad = false;
             out.audit_findings = search::audit_bundle(p, b, &bad, &out.audit_ms);
             if (bad) {
               out.verdict = runtime::Verdict::audit_rejected;
               out.reason = "The audit found an error-level problem in the kernel.";
             }
           }
           if (!out.verdict) search::scan_compiled_kernel(b, out);
           if (!out.verdict) {
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
             if (o->sanitize && out.verdict == runtime::Verdict::ok) {
               out.sanitizer = search::sanitize_bundle(p, b, cfg);
               if (!out.sanitizer.value("clean", false)) {
                 out.verdict = runtime::Verdict::sanitizer_findings;
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
