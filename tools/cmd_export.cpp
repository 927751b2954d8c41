// `cusched export run.db [--candidate ID] -o kernel.cu`: a standalone .cu file
// (kernel, host launcher, PyTorch check) for a stored candidate; by default the
// best verified candidate of the latest run.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "dsl/error.h"
#include "problems/problem.h"
#include "search/export.h"
#include "search/store.h"
#include "tools/command.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct Options {
  std::string db, output = "kernel.cu", torch_op;
  int64_t candidate = 0, run = 0;  // 0: not given
};

CommandRegistration reg{{"export", "Export a stored candidate as a standalone .cu file with a launcher and a PyTorch check",
                         [](CLI::App& sub) -> std::function<int()> {
                           auto o = std::make_shared<Options>();
                           sub.add_option("db", o->db, "The search's SQLite store (run.db)")->required();
                           sub.add_option("-o,--output", o->output, ".cu file to write")->capture_default_str();
                           sub.add_option("--candidate", o->candidate, "Candidate id (default: the best verified candidate)");
                           sub.add_option("--run", o->run, "Run whose best candidate to export (default: the latest run)");
                           sub.add_option("--torch-op", o->torch_op,
                                          "PyTorch expression for the check, naming inputs by buffer name "
                                          "(default: the problem's own, e.g. torch.softmax(X, dim=1))");
                           return [o] {
                             try {
                               search::Store store(o->db, search::Store::Mode::read_only);
                               search::ExportOptions opts;
                               opts.torch_op = o->torch_op;
                               opts.file_name = std::filesystem::path(o->output).filename().string();
                               std::optional<int64_t> candidate, run;
                               if (o->candidate) candidate = o->candidate;
                               if (o->run) run = o->run;
                               // The problem supplies the PyTorch expression and tolerance when it is known.
                               std::optional<int64_t> run_of = run ? run : store.latest_run();
                               if (candidate)
                                 if (auto c = store.candidate(*candidate)) run_of = c->run;
                               if (run_of)
                                 if (auto info = store.find_run(*run_of)) {
                                   try {
                                     const Problem& p = find_problem(info->problem);
                                     if (opts.torch_op.empty()) opts.torch_op = p.torch_semantics;
                                     opts.atol = p.atol;
                                     opts.rtol = p.rtol;
                                   } catch (const UserError&) {
                                     // A problem this build does not know: the check keeps its placeholder line.
                                   }
                                 }
                               std::string text = search::export_candidate(store, candidate, run, opts);
                               std::ofstream out(o->output, std::ios::binary | std::ios::trunc);
                               if (!(out << text).flush())
                                 fail("export-write-failed", "The file '" + o->output + "' cannot be written.",
                                      "Check that its folder exists and is writable.");
                               std::cerr << "wrote " << o->output << "\n";
                               return kExitOk;
                             } catch (const UserError& e) {
                               print_error_json(e.error());
                               return e.error().code == "export-nothing-verified" ? kExitFailure : kExitUsage;
                             }
                           };
                         }}};

}  // namespace
}  // namespace cusched::tools
