// `cusched lower --problem P --schedule S --emit ir|cuda|bundle|cost`: the lowered program;
// `--emit ir --after PASS|all` the IR after one pass of lowering or after each.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "codegen/bundle.h"
#include "codegen/cuda_emitter.h"
#include "codegen/lower.h"
#include "codegen/lowering_passes.h"
#include "dsl/error.h"
#include "problems/problem.h"
#include "search/candidate_evaluation.h"
#include "search/cost_model.h"
#include "tools/command.h"
#include "tools/problem_options.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

// The observer that prints the IR after the pass named `after` (every pass: "all");
// none when `after` is empty. Fails on an unknown pass name or an --emit other than ir.
PassObserver after_pass_dump(const std::string& after, const std::string& emit, nlohmann::json* json_passes) {
  if (after.empty()) return {};
  const std::vector<std::string> names = lowering_pass_names();
  std::ostringstream list;
  for (size_t i = 0; i < names.size(); ++i) list << (i ? ", " : "") << names[i];
  if (emit != "ir")
    fail("after-needs-ir", "--after prints the loop IR between lowering passes, but --emit is '" + emit + "'.",
         "Use --emit ir with --after, or drop --after.");
  if (after != "all" && std::find(names.begin(), names.end(), after) == names.end())
    fail("unknown-lowering-pass", "Lowering has no pass named '" + after + "'.",
         "Use all or one of: " + list.str() + ".");
  return [after, json_passes](const std::string& pass, const LoweredProgram& program) {
    if (after != "all" && after != pass) return;
    if (json_passes) {
      json_passes->push_back({{"pass", pass}, {"ir", print_ir(program)}});
      return;
    }
    std::cout << "# after " << pass << "\n" << print_ir(program) << "\n";
  };
}

struct LowerCommandOptions {
  std::string problem, schedule = "baseline", size, shape, emit = "ir", after;
  bool reference = false, json = false;
};

nlohmann::json cost_json(const search::CostBreakdown& c) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : c.per_kernel)
    kernels.push_back({{"kernel", k.kernel},
                       {"estimated_ms", k.ms},
                       {"global_mbytes", k.global_bytes / 1e6},
                       {"gflop_f32_equivalent", k.flops / 1e9},
                       {"occupancy", k.occupancy}});
  return {{"kernels", kernels},
          {"total",
           {{"estimated_ms", c.ms}, {"global_mbytes", c.global_bytes / 1e6}, {"gflop_f32_equivalent", c.flops / 1e9}}},
          {"note", "The cost model's estimate, not a measurement."}};
}

CommandRegistration lower_command{
    {"lower", "Lower a schedule and print its loop IR, CUDA source and launch plan, or bundle",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<LowerCommandOptions>();
       add_problem_option(sub, o->problem);
       sub.add_option("--schedule,-s", o->schedule, "Schedule: JSON file, -, baseline or best");
       add_size_options(sub, o->size, o->shape);
       sub.add_option("--emit", o->emit, "ir, cuda, bundle, or cost (the cost model's estimate per kernel)")
           ->check(CLI::IsMember({"ir", "cuda", "bundle", "cost"}));
       sub.add_option("--after", o->after,
                      "With --emit ir: the IR after this lowering pass, or after each (all); help lists the passes");
       sub.add_flag("--reference", o->reference, "Lower the float64 reference instead of the schedule");
       sub.add_flag("--json", o->json,
                    "Print one JSON object: {ir}, {cuda, launches}, the bundle, {kernels, total} or {passes}");
       return [o] {
         try {
           if (o->after == "help") {
             for (const auto& name : lowering_pass_names()) std::cout << name << "\n";
             return kExitOk;
           }
           nlohmann::json passes = nlohmann::json::array();
           PassObserver dump = after_pass_dump(o->after, o->emit, o->json ? &passes : nullptr);
           Problem p = resolve_problem(o->problem);
           ScheduleContext ctx = p.context(resolve_size(p, o->size, o->shape));
           Schedule s =
               o->reference ? reference_schedule(ctx) : Schedule::from_json(ctx, load_schedule_json(p, o->schedule));
           LoweredProgram prog = lower_observed(s, p.name, dump);
           if (dump) {
             if (o->json) std::cout << nlohmann::json({{"ok", true}, {"passes", passes}}).dump(2) << "\n";
             return kExitOk;
           }
           EmitOptions eo;
           eo.reference_f64 = o->reference;
           if (o->json) {
             nlohmann::json j = {{"ok", true}, {"emit", o->emit}};
             if (o->emit == "ir") {
               j["ir"] = print_ir(prog);
             } else if (o->emit == "cost") {
               j.update(cost_json(search::estimate_cost(prog)));
             } else {
               KernelBundle b = make_bundle(prog, eo);
               if (auto e = search::shared_memory_error(b, o->size)) throw UserError(*e);
               nlohmann::json bundle = b.to_json();
               if (o->emit == "cuda") {
                 j["cuda"] = b.source;
                 j["launches"] = bundle.value("launches", nlohmann::json::array());
               } else {
                 j["bundle"] = bundle;
               }
             }
             std::cout << j.dump(2) << "\n";
           } else if (o->emit == "ir") {
             std::cout << print_ir(prog);
           } else if (o->emit == "cuda") {
             KernelBundle b = make_bundle(prog, eo);
             if (auto e = search::shared_memory_error(b, o->size)) throw UserError(*e);
             std::cout << b.source << "\n// launch plan\n";
             for (const auto& l : b.launches) {
               std::cout << "// " << l.kernel << " grid(" << l.grid[0] << "," << l.grid[1] << "," << l.grid[2]
                         << ") block(" << l.block[0] << "," << l.block[1] << "," << l.block[2] << ") dynamic_smem "
                         << l.dynamic_smem_bytes << " args(";
               for (size_t i = 0; i < l.args.size(); ++i) std::cout << (i ? ", " : "") << l.args[i];
               for (const auto& m : l.tensor_maps) {
                 std::cout << ", " << m.name << " = tensor map of " << m.buffer << ", box ";
                 for (size_t d = 0; d < m.box.size(); ++d) std::cout << (d ? "x" : "") << m.box[d];
                 if (m.swizzle_bytes) std::cout << ", swizzle " << m.swizzle_bytes << " B";
               }
               std::cout << ")\n";
             }
           } else if (o->emit == "cost") {
             search::CostBreakdown c = search::estimate_cost(prog);
             std::printf("%-24s %12s %14s %14s %10s\n", "kernel", "est. ms", "global MB", "GFLOP(f32 eq)", "occupancy");
             for (const auto& k : c.per_kernel)
               std::printf("%-24s %12.4f %14.2f %14.3f %10.2f\n", k.kernel.c_str(), k.ms, k.global_bytes / 1e6,
                           k.flops / 1e9, k.occupancy);
             std::printf("%-24s %12.4f %14.2f %14.3f   (an estimate, not a measurement)\n", "total", c.ms,
                         c.global_bytes / 1e6, c.flops / 1e9);
           } else {
             KernelBundle b = make_bundle(prog, eo);
             if (auto e = search::shared_memory_error(b, o->size)) throw UserError(*e);
             std::cout << b.to_json().dump(2) << "\n";
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
