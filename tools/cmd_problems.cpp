// `cusched problems`: the problem set with shapes, FLOPs and bytes.
#include <cstdio>
#include <iostream>

#include "problems/problem.h"
#include "tools/command.h"

namespace cusched::tools {
namespace {

std::string shape_text(const SizeBindings& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return out;
}

CommandRegistration reg{{"problems", "List the problems with their shapes, FLOPs and bytes",
                         [](CLI::App& sub) -> std::function<int()> {
                           auto json = std::make_shared<bool>(false);
                           sub.add_flag("--json", *json, "Print JSON instead of a table");
                           return [json] {
                             nlohmann::json all = nlohmann::json::array();
                             for (const auto& p : all_problems()) {
                               const auto& b = p.size("bench");
                               all.push_back({{"name", p.name}, {"level", p.level}, {"title", p.title},
                                              {"torch", p.torch_semantics}, {"bench_sizes", b},
                                              {"small_sizes", p.size("small")}, {"gflop", p.flops(b) / 1e9},
                                              {"mbytes", p.min_bytes(b) / 1e6}, {"atol", p.atol}, {"rtol", p.rtol}});
                             }
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
