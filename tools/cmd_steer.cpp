// `cusched steer DB ...`: steering for a search, running or stopped. Each action is
// stored with its time and author (--author or $USER); the search applies the pending
// ones at the start of its next round (search/steering.h).
#include <iostream>
#include <set>

#include "codegen/device_library.h"
#include "codegen/include_policy.h"
#include "dsl/input_limits.h"
#include "dsl/schedule.h"
#include "search/candidate_evaluation.h"
#include "search/schedule_moves.h"
#include "search/steering.h"
#include "tools/command.h"
#include "tools/flag_checks.h"
#include "tools/kernel_launch.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

constexpr size_t kMaxSteeringText = 4000;

struct SteerCommandOptions {
  std::string db, author, add, idea, add_kernel, grid, block, precision = "f32";
  std::vector<std::string> hints, ban_moves, ban_ideas;
  int64_t restart_from = 0, run = 0, dynamic_smem = -1;
  bool json = false, list = false;
};

std::string checked_text(const std::string& text, const std::string& flag) {
  if (text.empty() || text.size() > kMaxSteeringText)
    fail("bad-steering-text",
         "The text of " + flag + " must have 1 to " + std::to_string(kMaxSteeringText) + " characters; it has " +
             std::to_string(text.size()) + ".",
         "Give " + flag + " a short sentence.");
  return valid_utf8(text);
}

// The actions the flags ask for, checked against the run.
std::vector<search::SteeringAction> actions_from_flags(const SteerCommandOptions& o, const search::Store& store,
                                                       const search::RunInfo& run, const std::string& author) {
  std::vector<search::SteeringAction> out;
  auto action = [&](search::SteeringKind k, std::string text, nlohmann::json payload = nullptr) {
    search::SteeringAction a;
    a.run = run.id;
    a.kind = k;
    a.text = std::move(text);
    a.payload = std::move(payload);
    a.author = author;
    out.push_back(std::move(a));
  };
  std::optional<Problem> problem;
  auto the_problem = [&]() -> Problem& {
    if (!problem) problem = problem_of_run(run);
    return *problem;
  };
  if (!o.idea.empty() && o.add.empty() && o.add_kernel.empty())
    fail("steer-idea-alone", "--idea names the idea of an added schedule or kernel, and none was given.",
         "Pass --add s.json or --add-kernel k.cu with it, or use --hint for advice to the proposer.");
  if (!o.add.empty()) {
    Problem& p = the_problem();
    nlohmann::json steps = load_schedule_json(p, o.add);
    ValidationResult v = validate_schedule(p.context(run.size), steps);
    if (!v.ok) {
      Error e = v.error;
      e.message = "The schedule '" + valid_utf8(o.add) + "' is not legal for run " + std::to_string(run.id) +
                  " at the size " + run.size + ": " + e.message;
      throw UserError(e);
    }
    action(search::SteeringKind::add_schedule, o.idea.empty() ? "" : checked_text(o.idea, "--idea"), v.steps);
  }
  if (!o.add_kernel.empty()) {
    Problem& p = the_problem();
    const std::string source = read_file_bounded(o.add_kernel, kMaxSourceBytes, "The kernel source");
    std::set<std::string> library;
    for (const auto& [name, text] : device_headers()) library.insert(name);
    if (auto e = include_error(source, library)) throw UserError(*e);
    std::string grid = o.grid, block = o.block;
    int64_t smem = o.dynamic_smem;
    read_launch_comment(source, run.size, grid, block, smem);
    if (grid.empty() || block.empty())
      fail("missing-launch", "No grid and block were given for the run's size " + run.size + ".",
           "Pass --grid and --block, or add a line `// cusched-launch size=" + run.size +
               " grid=X,Y,Z block=X,Y,Z` to the file.");
    auto g = parse_dim(grid, "grid"), b = parse_dim(block, "block");
    KernelBundle bundle =
        search::handwritten_bundle(p, source, run.size, parse_precision(o.precision), g, b, smem < 0 ? 0 : smem);
    if (auto e = search::shared_memory_error(bundle, run.size)) throw UserError(*e);
    action(search::SteeringKind::add_kernel,
           o.idea.empty() ? "hand-written kernel " + valid_utf8(o.add_kernel) : checked_text(o.idea, "--idea"),
           {{"file", valid_utf8(o.add_kernel)},
            {"source", source},
            {"size", run.size},
            {"grid", g},
            {"block", b},
            {"dynamic_smem", smem < 0 ? 0 : smem},
            {"precision", o.precision}});
  }
  for (const auto& h : o.hints) action(search::SteeringKind::hint, checked_text(h, "--hint"));
  for (const auto& m : o.ban_moves) {
    const auto& names = search::move_names();
    if (std::find(names.begin(), names.end(), m) == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      fail("unknown-move", "There is no move '" + valid_utf8(m.substr(0, 80)) + "'.", "Ban one of: " + all + ".");
    }
    action(search::SteeringKind::ban_move, m);
  }
  for (const auto& i : o.ban_ideas) action(search::SteeringKind::ban_idea, checked_text(i, "--ban-idea"));
  if (o.restart_from) {
    auto c = store.candidate(o.restart_from);
    if (!c || c->run != run.id)
      fail("steer-no-candidate",
           "Run " + std::to_string(run.id) + " has no candidate " + std::to_string(o.restart_from) + ".",
           "Pass a candidate id that `cusched status` or `cusched report` lists for this run.");
    auto e = store.evaluation(o.restart_from);
    if (!e || !e->verified)
      fail("steer-unverified-candidate",
           "Candidate " + std::to_string(o.restart_from) + " was not verified, so a round cannot grow from it.",
           "Restart from a verified candidate (the leaderboard of `cusched report` lists them).");
    action(search::SteeringKind::restart_from, "candidate " + std::to_string(o.restart_from),
           {{"candidate", o.restart_from}});
  }
  return out;
}

void print_text(const search::SteeringAction& a) {
  std::cout << "#" << a.id << " " << search::steering_kind_name(a.kind) << " by " << a.author << " at " << a.created
            << ": " << a.text;
  if (a.applied_round)
    std::cout << " (applied in round " << *a.applied_round + 1 << ": " << a.outcome << ")";
  else
    std::cout << " (pending: the next round applies it)";
  std::cout << "\n";
}

CommandRegistration steer_command{
    {"steer", "Steer a search, running or stopped: add schedules or kernels, hints, bans, a restart",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<SteerCommandOptions>();
       sub.add_option("db", o->db, "The search's SQLite store")->required();
       sub.add_option("--run", o->run, "Run to steer (default: the latest)")->check(integer_in(1, INT64_MAX));
       sub.add_option("--add", o->add, "Add a schedule: a JSON file, - for stdin, or baseline / best");
       sub.add_option("--idea", o->idea, "The idea the added schedule or kernel implements, in words");
       sub.add_option("--add-kernel", o->add_kernel,
                      "Add a hand-written .cu kernel (the problem's contract, as for `cusched check`)");
       sub.add_option("--grid", o->grid, "--add-kernel: grid X,Y,Z (else its // cusched-launch line)");
       sub.add_option("--block", o->block, "--add-kernel: block X,Y,Z (else its // cusched-launch line)");
       sub.add_option("--dynamic-smem", o->dynamic_smem, "--add-kernel: dynamic shared memory in bytes")
           ->check(integer_in(0, 1 << 30));
       sub.add_option("--precision", o->precision, "--add-kernel: operand precision (f32, tf32, bf16, f16)")
           ->check(CLI::IsMember({"f32", "tf32", "bf16", "f16"}));
       sub.add_option("--hint", o->hints, "Advice for the LLM proposer's prompt, from the next round on");
       sub.add_option("--ban-move", o->ban_moves, "A built-in proposer move no later round uses");
       sub.add_option("--ban-idea", o->ban_ideas, "Drop later proposals whose idea contains this text");
       sub.add_option("--restart-from", o->restart_from, "Grow the next round from this verified candidate")
           ->check(integer_in(1, INT64_MAX));
       sub.add_option("--author", o->author, "Who steers (default: $USER)");
       sub.add_flag("--list", o->list, "List the run's steering actions");
       sub.add_flag("--json", o->json, "Print JSON");
       return [o] {
         try {
           search::Store store(o->db, search::Store::Mode::existing_only);
           search::RunInfo run = resolve_run(store, o->run, "steer-no-run");
           std::vector<search::SteeringAction> added;
           bool any = !o->add.empty() || !o->add_kernel.empty() || !o->hints.empty() || !o->ban_moves.empty() ||
                      !o->ban_ideas.empty() || o->restart_from || !o->idea.empty();
           if (!any && !o->list)
             fail("steer-nothing", "steer was given nothing to do.",
                  "Pass --add, --add-kernel, --hint, --ban-move, --ban-idea, --restart-from or --list.");
           if (any) {
             auto author = search::author_or_user(o->author);
             if (!author)
               fail("missing-author", "Steering is stored with its author, and neither --author nor $USER is set.",
                    "Pass --author NAME.");
             added = actions_from_flags(*o, store, run, checked_text(*author, "--author"));
             for (auto& a : added) a.id = search::add_steering(store, a);
             // Read back for the stored time.
             auto stored = search::steering_actions(store, run.id);
             for (auto& a : added)
               for (const auto& s : stored)
                 if (s.id == a.id) a = s;
           }
           auto all = search::steering_actions(store, run.id);
           if (o->json) {
             nlohmann::json j = {{"ok", true}, {"run", run.id}, {"run_status", run.status}};
             j["added"] = nlohmann::json::array();
             for (const auto& a : added) j["added"].push_back(a.to_json());
             if (o->list) {
               j["actions"] = nlohmann::json::array();
               for (const auto& a : all) j["actions"].push_back(a.to_json());
             }
             std::cout << j.dump(2) << "\n";
           } else {
             for (const auto& a : o->list ? all : added) print_text(a);
             if (!added.empty())
               std::cout << "run " << run.id << " is " << run.status << "; "
                         << (run.status == "running" ? "its next round applies this"
                                                     : "`cusched search --resume --db " + o->db + "` applies this")
                         << "\n";
           }
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitUsage;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
