#pragma once
// Subcommands of the `cusched` tool. Each cmd_*.cpp file defines one
// subcommand and registers it with a static CommandRegistration.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cusched::tools {

// Exit codes shared by every subcommand.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,  // the command ran and its answer is "no" (bad schedule, failed verification)
  kExitUsage = 2,    // bad flags or unreadable input
  kExitNoGpu = 3,    // a GPU command on a machine without a CUDA driver
  kExitInternal = 4,
  // `cusched search` only: how the search stopped (search/search_status.h). A goal met,
  // or every round run without a goal, is kExitOk; no verified candidate is kExitFailure.
  kExitBudgetSpent = 5,  // a budget ran out (or the rounds, with the goal not met)
  kExitStalled = 6,      // no gain above the stall threshold over the stall window
};

struct Command {
  std::string name;
  std::string help;
  // Adds the subcommand's flags to `sub` and returns the function that runs it.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

std::vector<Command>& commands();

// True when the command line holds --json: errors then go to stdout as JSON, like the
// command's own output, so a script reads one JSON document.
bool json_requested();

struct CommandRegistration {
  explicit CommandRegistration(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace cusched::tools
