// `cusched report run.db -o report.html [--run ID] [--size NAME] [--shape N=V,...]`:
// one self-contained HTML page for a search run (the latest run by default), its
// sources lowered again at --size / --shape when given.
#include <iostream>

#include "dsl/error.h"
#include "search/report.h"
#include "search/store.h"
#include "tools/command.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct ReportCommandOptions {
  std::string db, output = "report.html", size, shape;
  int64_t run = 0;  // 0: the latest run
  bool json = false;
};

CommandRegistration report_command{
    {"report", "Write an HTML report of a search run from its store", [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<ReportCommandOptions>();
       sub.add_option("db", o->db, "The search's SQLite store (run.db)")->required();
       sub.add_option("-o,--output", o->output, "HTML file to write")->capture_default_str();
       sub.add_option("--run", o->run, "Run id inside the store (default: the latest run)");
       sub.add_option("--size", o->size,
                      "Lower the stored schedules again at this size table of the problem for the sources, IR and "
                      "launch plans shown (default: the run's size, as stored)");
       sub.add_option("--shape", o->shape,
                      "Lower them again at these sizes (NAME=V,...) over --size or the run's size; not verified there");
       sub.add_flag("--json", o->json, "Print {\"ok\", \"report\", \"run\", \"size\"} as JSON on stdout");
       return [o] {
         try {
           search::Store store(o->db, search::Store::Mode::read_only);
           const search::RunInfo info =
               resolve_run(store, o->run, o->run ? "report-unknown-run" : "report-empty-store");
           const int64_t run = info.id;
           // The problem lets the report show schedules in their text form and lower them again.
           std::optional<Problem> problem;
           search::ReportOptions opts;
           if (!o->size.empty() || !o->shape.empty()) {
             problem = problem_of_run(info);
             opts.size = resolve_size(*problem, o->size, o->shape, info.size);
           } else {
             try {
               problem = problem_of_run(info);
             } catch (const UserError&) {
               // A run without a stored definition, of a problem this build does not know: the
               // report shows what the store keeps.
             }
           }
           if (problem) opts.problem = &*problem;
           search::write_report(store, run, o->output, opts);
           const std::string size = opts.size.empty() ? info.size : opts.size;
           std::cerr << "wrote " << o->output << " (run " << run << ", sources at " << size << ")\n";
           if (o->json)
             std::cout << nlohmann::json({{"ok", true}, {"report", o->output}, {"run", run}, {"size", size}}).dump(2)
                       << "\n";
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitUsage;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
