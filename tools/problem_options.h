#pragma once
// The command-line options of every command that works on a problem at a size:
// --problem/-p (a built-in name or a problem file, tools/problem_source.h), --size
// (one of the problem's size tables) and --shape (sizes given on the command line).
#include <string>

#include <CLI/CLI.hpp>

namespace cusched::tools {

// Adds --problem/-p, storing into `problem`; required unless `required` is false, with
// `note` appended to its help where the command adds a condition.
CLI::Option* add_problem_option(CLI::App& sub, std::string& problem, bool required = true,
                                const std::string& note = "");

// Adds --size (help: "Size table " + `size_help`) and --shape over that table.
void add_size_options(CLI::App& sub, std::string& size, std::string& shape,
                      const std::string& size_help = "(default: the problem's default size)");

// Adds --shape alone, for commands whose size table is fixed (`over`: which one).
void add_shape_option(CLI::App& sub, std::string& shape, const std::string& over);

}  // namespace cusched::tools
