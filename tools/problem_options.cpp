#include "tools/problem_options.h"

namespace cusched::tools {

CLI::Option* add_problem_option(CLI::App& sub, std::string& problem, bool required, const std::string& note) {
  CLI::Option* o = sub.add_option("--problem,-p", problem,
                                  "Problem: a built-in name (see `cusched problems`) or a problem file (a path "
                                  "containing / or ending in .json)" +
                                      note);
  if (required) o->required();
  return o;
}

void add_size_options(CLI::App& sub, std::string& size, std::string& shape, const std::string& size_help) {
  sub.add_option("--size", size, "Size table " + size_help);
  add_shape_option(sub, shape, "the chosen size");
}

void add_shape_option(CLI::App& sub, std::string& shape, const std::string& over) {
  sub.add_option("--shape", shape, "Sizes NAME=V,NAME=V,... over " + over + "; kernels are specialised to them");
}

}  // namespace cusched::tools
