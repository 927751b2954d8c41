// `cusched lower --problem P --schedule S --emit ir|cuda|bundle`: the lowered program.
#include <iostream>

#include "codegen/bundle.h"
#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "problems/problem.h"
#include "tools/command.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct Options {
  std::string problem, schedule = "baseline", size = "bench", emit = "ir";
  bool reference = false;
};

CommandRegistration reg{{"lower", "Lower a schedule and print its loop IR, CUDA source and launch plan, or bundle",
                         [](CLI::App& sub) -> std::function<int()> {
                           auto o = std::make_shared<Options>();
                           sub.add_option("--problem,-p", o->problem, "Problem name")->required();
                           sub.add_option("--schedule,-s", o->schedule, "Schedule: JSON file, -, baseline or best");
                           sub.add_option("--size", o->size, "small or bench")->check(CLI::IsMember({"small", "bench"}));
                           sub.add_option("--emit", o->emit, "ir, cuda or bundle")->check(CLI::IsMember({"ir", "cuda", "bundle"}));
                           sub.add_flag("--reference", o->reference, "Lower the float64 reference instead of the schedule");
                           return [o] {
                             try {
                               const Problem& p = find_problem(o->problem);
                               ScheduleContext ctx = p.context(o->size);
                               Schedule s = o->reference ? reference_schedule(ctx)
                                                         : Schedule::from_json(ctx, load_schedule_json(p, o->schedule));
                               LoweredProgram prog = lower(s, p.name);
                               EmitOptions eo;
                               eo.reference_f64 = o->reference;
                               if (o->emit == "ir") {
                                 std::cout << print_ir(prog);
                               } else if (o->emit == "cuda") {
                                 KernelBundle b = make_bundle(prog, eo);
                                 std::cout << b.source << "\n// launch plan\n";
                                 for (const auto& l : b.launches) {
                                   std::cout << "// " << l.kernel << " grid(" << l.grid[0] << "," << l.grid[1] << "," << l.grid[2]
                                             << ") block(" << l.block[0] << "," << l.block[1] << "," << l.block[2]
                                             << ") dynamic_smem " << l.dynamic_smem_bytes << " args(";
                                   for (size_t i = 0; i < l.args.size(); ++i) std::cout << (i ? ", " : "") << l.args[i];
                                   std::cout << ")\n";
                                 }
                               } else {
                                 std::cout << make_bundle(prog, eo).to_json().dump(2) << "\n";
                               }
                               return kExitOk;
                             } catch (const UserError& e) {
                               print_error_json(e.error());
                               return kExitFailure;
                             }
                           };
                         }}};

}  // namespace
}  // namespace cusched::tools
