// `cusched validate --problem P --schedule S`: the whole legality of a schedule for a
// problem at a size: its steps against the registry and the problem, the whole-schedule
// rules, lowering, and the bundle's shared memory per block (search::shared_memory_error,
// as `lower --emit cuda`, `check` and every candidate apply it). Prints the normalised
// steps, or the structured error (its "phase" says which part refused: "schedule" or
// "lowering") and exits 1.
#include <iostream>
#include <new>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "search/candidate_evaluation.h"
#include "tools/command.h"
#include "tools/problem_options.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct ValidateCommandOptions {
  std::string problem, schedule, size, shape, format = "json";
  bool strict = false, json = false;
};

CommandRegistration validate_command{
    {"validate", "Check a schedule for a problem, lowering included; print its normalised steps or a structured error",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<ValidateCommandOptions>();
       add_problem_option(sub, o->problem);
       sub.add_option("--schedule,-s", o->schedule, "Schedule: JSON file, - for stdin, baseline or best")->required();
       add_size_options(sub, o->size, o->shape, "the schedule is checked at (default: the problem's default size)");
       sub.add_option("--format", o->format, "Output of a valid schedule")->check(CLI::IsMember({"json", "text"}));
       sub.add_flag("--strict", o->strict, "Use the problem's strict 1e-4 tolerance");
       sub.add_flag("--json", o->json, "Print the normalised steps as JSON (the same as --format json)");
       return [o] {
         try {
           Problem p = resolve_problem(o->problem);
           std::string size = resolve_size(p, o->size, o->shape);
           nlohmann::json steps = load_schedule_json(p, o->schedule);
           Schedule s = Schedule::from_json(p.context(size, o->strict), steps);
           try {
             // The launch limits lowering leaves to the bundle: shared memory per block.
             if (auto e = search::shared_memory_error(make_bundle(lower(s, p.name)), size)) throw UserError(*e);
           } catch (const std::bad_alloc&) {
             Error e;
             e.code = "lowering-out-of-memory";
             e.phase = "lowering";
             e.message =
                 "Lowering the schedule at this size needs more memory than there is: a stage's "
                 "per-thread work spans most of the problem.";
             e.hint =
                 "Split and bind the stage's loops so that each thread (each warp, for tensor cores) "
                 "works on a small tile.";
             throw UserError(e);
           }
           if (o->format == "text" && !o->json)
             std::cout << s.to_text();
           else
             std::cout << nlohmann::json({{"ok", true}, {"hash", s.hash()}, {"steps", s.to_json()}}).dump(2) << "\n";
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitFailure;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
