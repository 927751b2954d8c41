// `cusched export run.db [--candidate ID] -o kernel.cu`: a standalone .cu file
// (kernel, host launcher, PyTorch check) for a stored candidate; by default the
// best verified candidate of the latest run.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "codegen/bundle.h"
#include "codegen/lower.h"
#include "dsl/error.h"
#include "dsl/schedule.h"
#include "problems/problem.h"
#include "search/export.h"
#include "search/review.h"
#include "search/store.h"
#include "tools/command.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct ExportCommandOptions {
  std::string db, output = "kernel.cu", torch_op, size, shape;
  int64_t candidate = 0, run = 0;  // 0: not given
  bool require_approved = false;
  bool json = false;
};

// The candidate to export under --require-approved: the one given, which must be
// approved by its latest review, else the best verified approved candidate of the run.
int64_t approved_candidate(const search::Store& store, std::optional<int64_t> candidate, std::optional<int64_t> run) {
  if (candidate) {
    auto r = search::latest_review(store, *candidate);
    if (!r || !r->approved)
      fail("export-not-approved",
           "Candidate " + std::to_string(*candidate) + " is not approved" +
               (r ? ": its latest review, by " + r->reviewer + ", rejected it (" + r->note + ")."
                  : ": it has no review."),
           "Approve it with `cusched review DB " + std::to_string(*candidate) +
               " --approve --note ...`, or drop --require-approved.");
    return *candidate;
  }
  std::optional<int64_t> id = run ? run : store.latest_run();
  if (id)
    for (const auto& e : store.leaderboard(*id, 1 << 20))
      if (auto r = search::latest_review(store, e.candidate.id); r && r->approved) return e.candidate.id;
  fail("export-not-approved",
       "Run " + (id ? std::to_string(*id) : std::string("(none)")) + " has no approved candidate.",
       "Approve one with `cusched review DB CANDIDATE --approve --note ...`, or drop --require-approved.");
}

// The candidate's schedule lowered again at the size table `size` (empty: the run's size),
// with `shape` over it when given.
std::string export_at_shape(const search::Store& store, std::optional<int64_t> candidate, std::optional<int64_t> run,
                            const std::string& size_name, const std::string& shape, search::ExportOptions opts) {
  std::optional<search::RunInfo> info = run ? store.find_run(*run) : std::nullopt;
  if (!info)
    fail("export-no-run", "The store has no run to export from.", "Run `cusched search` with this --db first.");
  nlohmann::json steps;
  if (candidate) {
    auto c = store.candidate(*candidate);
    if (!c)
      fail("export-no-candidate", "The store has no candidate " + std::to_string(*candidate) + ".",
           "Pass an id that `cusched report` lists.");
    steps = c->schedule;
  } else {
    auto best = store.leaderboard(info->id, 1);
    if (best.empty())
      fail("export-nothing-verified", "Run " + std::to_string(info->id) + " has no verified candidate.",
           "Export a candidate by --candidate, or search longer.");
    candidate = best[0].candidate.id;
    steps = best[0].candidate.schedule;
  }
  Problem p = problem_of_run(*info);
  std::string size = resolve_size(p, size_name.empty() ? info->size : size_name, shape);
  Schedule s = Schedule::from_json(p.context(size), steps);
  opts.title = p.name + ", candidate " + std::to_string(*candidate) + " lowered at " + size + " (verified at " +
               info->size +
               (shape.empty() ? ", not at this size: run it with `cusched run --size " + size + "` first)"
                              : ", not at this shape: run it with `cusched run --shape` first)");
  return search::export_kernel(make_bundle(lower(s, p.name)), opts);
}

CommandRegistration export_command{
    {"export", "Export a stored candidate as a standalone .cu file with a launcher and a PyTorch check",
     [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<ExportCommandOptions>();
       sub.add_option("db", o->db, "The search's SQLite store (run.db)")->required();
       sub.add_option("-o,--output", o->output, ".cu file to write")->capture_default_str();
       sub.add_option("--candidate", o->candidate, "Candidate id (default: the best verified candidate)");
       sub.add_option("--run", o->run, "Run whose best candidate to export (default: the latest run)");
       sub.add_option("--torch-op", o->torch_op,
                      "PyTorch expression for the check, naming inputs by buffer name "
                      "(default: the problem's own, e.g. torch.softmax(X, dim=1))");
       sub.add_option("--size", o->size,
                      "Lower the candidate's schedule again at this size table of the problem and export that "
                      "kernel: specialised to the size and not verified at it");
       sub.add_option("--shape", o->shape,
                      "Lower the candidate's schedule again at these sizes (NAME=V,...) and export that "
                      "kernel: specialised to the shape and not verified at it");
       sub.add_flag("--require-approved", o->require_approved,
                    "Export only an approved candidate (`cusched review`): the one given, else the best approved");
       sub.add_flag("--json", o->json, "Print {\"ok\", \"file\", \"candidate\", \"run\"} as JSON on stdout");
       return [o] {
         try {
           search::Store store(o->db, search::Store::Mode::read_only);
           search::ExportOptions opts;
           opts.torch_op = o->torch_op;
           opts.file_name = std::filesystem::path(o->output).filename().string();
           std::optional<int64_t> candidate, run;
           if (o->candidate) candidate = o->candidate;
           if (o->run) run = o->run;
           if (o->require_approved) candidate = approved_candidate(store, candidate, run);
           // The problem supplies the PyTorch expression and tolerance when it is known.
           std::optional<int64_t> run_of = run ? run : store.latest_run();
           if (candidate)
             if (auto c = store.candidate(*candidate)) run_of = c->run;
           if (run_of)
             if (auto info = store.find_run(*run_of)) {
               try {
                 Problem p = problem_of_run(*info);
                 if (opts.torch_op.empty()) opts.torch_op = p.torch_semantics;
                 opts.atol = p.atol;
                 opts.rtol = p.rtol;
               } catch (const UserError&) {
                 // A run without a stored definition, of a problem this build does not know: the
                 // check keeps its placeholder line.
               }
             }
           const bool relower = !o->shape.empty() || !o->size.empty();
           std::string text = relower ? export_at_shape(store, candidate, run_of, o->size, o->shape, opts)
                                      : search::export_candidate(store, candidate, run, opts);
           std::ofstream out(o->output, std::ios::binary | std::ios::trunc);
           if (!(out << text).flush())
             fail("export-write-failed", "The file '" + o->output + "' cannot be written.",
                  "Check that its folder exists and is writable.");
           std::cerr << "wrote " << o->output << "\n";
           if (o->json) {
             nlohmann::json j = {{"ok", true}, {"file", o->output}, {"bytes", text.size()}};
             j["candidate"] = candidate ? nlohmann::json(*candidate) : nlohmann::json("best verified");
             j["run"] = run_of ? nlohmann::json(*run_of) : nlohmann::json();
             std::cout << j.dump(2) << "\n";
           }
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return e.error().code == "export-nothing-verified" || e.error().code == "export-not-approved" ? kExitFailure
                                                                                                         : kExitUsage;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
