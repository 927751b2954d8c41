// `cusched report run.db -o report.html [--run ID]`: one self-contained HTML page
// for a search run (the latest run by default).
#include <iostream>

#include "dsl/error.h"
#include "search/report.h"
#include "search/store.h"
#include "tools/command.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

struct Options {
  std::string db, output = "report.html";
  int64_t run = 0;  // 0: the latest run
  bool json = false;
};

CommandRegistration reg{
    {"report", "Write an HTML report of a search run from its store", [](CLI::App& sub) -> std::function<int()> {
       auto o = std::make_shared<Options>();
       sub.add_option("db", o->db, "The search's SQLite store (run.db)")->required();
       sub.add_option("-o,--output", o->output, "HTML file to write")->capture_default_str();
       sub.add_option("--run", o->run, "Run id inside the store (default: the latest run)");
       sub.add_flag("--json", o->json, "Print {\"ok\", \"report\", \"run\"} as JSON on stdout");
       return [o] {
         try {
           search::Store store(o->db, search::Store::Mode::read_only);
           int64_t run = o->run;
           if (run == 0) {
             auto latest = store.latest_run();
             if (!latest)
               fail("report-empty-store", "The store '" + o->db + "' has no runs.",
                    "Run `cusched search` with --db " + o->db + " first.");
             run = *latest;
           }
           search::write_report(store, run, o->output);
           std::cerr << "wrote " << o->output << " (run " << run << ")\n";
           if (o->json)
             std::cout << nlohmann::json({{"ok", true}, {"report", o->output}, {"run", run}}).dump(2) << "\n";
           return kExitOk;
         } catch (const UserError& e) {
           print_error_json(e.error());
           return kExitUsage;
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
