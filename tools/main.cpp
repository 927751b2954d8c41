// The cusched command line: one subcommand per cmd_*.cpp file.
#include "tools/command.h"
#include "tools/crash_report.h"

#include <algorithm>
#include <iostream>
#include <map>

namespace cusched::tools {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace cusched::tools

int main(int argc, char** argv) {
  using namespace cusched::tools;
  install_crash_report();
  CLI::App app{"cusched: tensor computations to fast, verified CUDA kernels"};
  app.require_subcommand(1);
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
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  for (auto* sub : app.get_subcommands()) {
    try {
      return runners.at(sub->get_name())();
    } catch (const std::exception& e) {
      std::cerr << "cusched " << sub->get_name() << ": internal error: " << e.what() << "\n";
      return kExitInternal;
    }
  }
  return kExitUsage;
}
