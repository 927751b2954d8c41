// The cusched command line: one subcommand per cmd_*.cpp file.
#include <algorithm>
#include <iostream>
#include <map>

#include "dsl/error.h"
#include "tools/command.h"
#include "tools/crash_report.h"
#include "tools/version.h"

namespace cusched::tools {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

namespace {
bool g_json = false;
}
bool json_requested() { return g_json; }
}  // namespace cusched::tools

namespace {

// A bad command line as a structured error on stderr, with the usage of the subcommand
// it is about.
void print_flag_error(const CLI::App& app, const CLI::ParseError& e) {
  std::string sub;
  for (const auto* s : app.get_subcommands()) sub = s->get_name();
  cusched::Error err;
  err.op = sub;
  err.code = "bad-flag";
  err.message =
      std::string(e.what()) + (std::string(e.what()).empty() || std::string(e.what()).back() == '.' ? "" : ".");
  err.hint = sub.empty() ? "Run `cusched --help` for the subcommands."
                         : "Run `cusched " + sub + " --help` for its flags and their ranges.";
  (cusched::tools::json_requested() ? std::cout : std::cerr)
      << nlohmann::json({{"ok", false}, {"error", err.to_json()}}).dump(2) << "\n";
}

// `cusched --version [--json]`.
int print_version(bool json) {
  auto v = cusched::tools::version_json();
  if (json)
    std::cout << v.dump(2) << "\n";
  else
    std::cout << "cusched " << v["version"].get<std::string>() << " (" << v["search"].get<std::string>() << ", "
              << v["runtime"].get<std::string>() << (v["audit"].get<bool>() ? ", audit" : ", no audit") << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cusched::tools;
  install_crash_report();
  for (int i = 1; i < argc; ++i) g_json = g_json || std::string(argv[i]) == "--json";
  if (argc >= 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V")) return print_version(g_json);
  CLI::App app{"cusched: tensor computations to fast, verified CUDA kernels"};
  app.require_subcommand(1);
  app.footer(
      "cusched --version [--json] prints the version. Every command takes --json: its output and its errors "
      "are then JSON on stdout.");
  auto& cmds = commands();
  std::sort(cmds.begin(), cmds.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
  std::map<std::string, std::function<int()>> runners;
  for (auto& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runners[c.name] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    print_flag_error(app, e);
    return kExitUsage;
  }
  for (auto* sub : app.get_subcommands()) {
    try {
      return runners.at(sub->get_name())();
    } catch (const std::exception& e) {
      std::cerr << "cusched " << sub->get_name() << ": internal error: " << e.what() << "\n";
      if (g_json) {
        cusched::Error err;
        err.op = sub->get_name();
        err.code = "internal-error";
        err.message = std::string("cusched ") + sub->get_name() + " stopped on an internal error: " + e.what();
        err.hint = "This is a bug in cusched: report it with the command line that caused it.";
        std::cout << nlohmann::json({{"ok", false}, {"error", err.to_json()}}).dump(2) << "\n";
      }
      return kExitInternal;
    }
  }
  return kExitUsage;
}
