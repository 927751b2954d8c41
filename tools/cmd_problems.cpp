// `cusched problems`: the problem set with shapes, FLOPs and bytes; --json for
// scripts (bench/torch_baselines.py reads it), --markdown for docs/problems.md.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "problems/contract.h"
#include "problems/problem.h"
#include "problems/problem_file.h"
#include "problems/problem_json.h"
#include "problems/problem_reference.h"
#include "tools/command.h"
#include "tools/problem_description.h"
#include "tools/problem_source.h"
#include "tools/schedule_source.h"

namespace cusched::tools {
namespace {

std::string shape_text(const SizeBindings& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return out;
}

nlohmann::json problem_json(const Problem& p) {
  const auto& b = p.size(p.default_size);
  return {{"name", p.name},
          {"level", p.level},
          {"title", p.title},
          {"torch", p.torch_semantics},
          {"notes", p.notes},
          {"bench_sizes", b},
          {"small_sizes", p.size("small")},
          {"default_size", p.default_size},
          {"gflop", p.flops(b) / 1e9},
          {"mbytes", p.min_bytes(b) / 1e6},
          {"atol", p.atol},
          {"rtol", p.rtol},
          {"inputs", inputs_json(p, p.default_size)},
          {"outputs", outputs_json(p, p.default_size)},
          {"small_inputs", inputs_json(p, "small")},
          {"small_outputs", outputs_json(p, "small")},
          {"contract", kernel_contract(p)}};
}

int run_problems(bool json, bool markdown, const std::string& only, const std::string& describe,
                 const std::string& export_dir) {
  if (markdown) {
    std::cout << problem_reference_markdown();
    return kExitOk;
  }
  if (!export_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(export_dir, ec);
    for (const auto& p : all_problems())
      save_problem_file(p, (std::filesystem::path(export_dir) / (p.name + ".json")).string());
    std::cerr << "wrote " << all_problems().size() << " problem files to " << export_dir << "\n";
    return kExitOk;
  }
  if (!describe.empty()) {
    nlohmann::json d = describe_problem(resolve_problem(describe));
    if (json)
      std::cout << d.dump(2) << "\n";
    else
      std::cout << describe_problem_text(d);
    return kExitOk;
  }
  nlohmann::json all = nlohmann::json::array();
  if (!only.empty())
    all.push_back(problem_json(resolve_problem(only)));
  else
    for (const auto& p : all_problems()) all.push_back(problem_json(p));
  if (json) {
    std::cout << all.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-22s %-3s %10s %10s  %s\n", "problem", "lvl", "GFLOP", "MB", "default shape");
  for (const auto& p : all)
    std::printf("%-22s %-3s %10.2f %10.1f  %s\n", p["name"].get<std::string>().c_str(),
                p["level"].get<std::string>().c_str(), p["gflop"].get<double>(), p["mbytes"].get<double>(),
                shape_text(p["bench_sizes"]).c_str());
  return kExitOk;
}

CommandRegistration problems_command{
    {"problems", "List the problems with their shapes, FLOPs and bytes", [](CLI::App& sub) -> std::function<int()> {
       auto json = std::make_shared<bool>(false);
       auto markdown = std::make_shared<bool>(false);
       auto only = std::make_shared<std::string>();
       auto describe = std::make_shared<std::string>();
       auto export_dir = std::make_shared<std::string>();
       sub.add_option("--problem,-p", *only, "List only this problem: a built-in name or a problem file");
       sub.add_option("--describe", *describe,
                      "Describe one problem (name or file): its stages, their loops and extents at each "
                      "size, the kernel contract and the baseline schedule (--json for JSON)");
       sub.add_option("--export", *export_dir, "Write every built-in problem as a problem file DIR/<name>.json");
       sub.add_flag("--json", *json,
                    "Print JSON instead of a table: shapes, inputs with dtypes, "
                    "bench shapes and distributions, outputs, kernel contract");
       sub.add_flag("--markdown", *markdown, "Print the problem reference (docs/problems.md)");
       return [json, markdown, only, describe, export_dir] {
         try {
           return run_problems(*json, *markdown, *only, *describe, *export_dir);
         } catch (const UserError& e) {
           print_error_json(e.error());
           return static_cast<int>(kExitFailure);
         }
       };
     }}};

}  // namespace
}  // namespace cusched::tools
