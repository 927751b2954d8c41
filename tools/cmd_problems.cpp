// `cusched problems`: the problem set with shapes, FLOPs and bytes; --json for
// scripts (bench/torch_baselines.py reads it), --markdown for docs/problems.md.
#include <cstdio>
#include <iostream>

#include "problems/contract.h"
#include "problems/problem.h"
#include "problems/problem_json.h"
#include "problems/problem_reference.h"
#include "tools/command.h"

namespace cusched::tools {
namespace {

std::string shape_text(const SizeBindings& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return out;
}

nlohmann::json problem_json(const Problem& p) {
  const auto& b = p.size("bench");
  return {{"name", p.name},
          {"level", p.level},
          {"title", p.title},
          {"torch", p.torch_semantics},
          {"notes", p.notes},
          {"bench_sizes", b},
          {"small_sizes", p.size("small")},
          {"gflop", p.flops(b) / 1e9},
          {"mbytes", p.min_bytes(b) / 1e6},
          {"atol", p.atol},
          {"rtol", p.rtol},
          {"inputs", inputs_json(p, "bench")},
          {"outputs", outputs_json(p, "bench")},
          {"small_inputs", inputs_json(p, "small")},
          {"small_outputs", outputs_json(p, "small")},
          {"contract", kernel_contract(p)}};
}

CommandRegistration reg{{"problems", "List the problems with their shapes, FLOPs and bytes",
                         [](CLI::App& sub) -> std::function<int()> {
                           auto json = std::make_shared<bool>(false);
                           auto markdown = std::make_shared<bool>(false);
                           sub.add_flag("--json", *json, "Print JSON instead of a table: shapes, inputs with dtypes, "
                                                         "bench shapes and distributions, outputs, kernel contract");
                           sub.add_flag("--markdown", *markdown, "Print the problem reference (docs/problems.md)");
                           return [json, markdown] {
                             if (*markdown) {
                               std::cout << problem_reference_markdown();
                               return kExitOk;
                             }
                             nlohmann::json all = nlohmann::json::array();
                             for (const auto& p : all_problems()) all.push_back(problem_json(p));
                             if (*json) {
                               std::cout << all.dump(2) << "\n";
                               return kExitOk;
                             }
                             std::printf("%-22s %-3s %10s %10s  %s\n", "problem", "lvl", "GFLOP", "MB", "bench shape");
                             for (const auto& p : all)
                               std::printf("%-22s %-3s %10.2f %10.1f  %s\n", p["name"].get<std::string>().c_str(),
                                           p["level"].get<std::string>().c_str(), p["gflop"].get<double>(),
                                           p["mbytes"].get<double>(), shape_text(p["bench_sizes"]).c_str());
                             return kExitOk;
                           };
                         }}};

}  // namespace
}  // namespace cusched::tools
