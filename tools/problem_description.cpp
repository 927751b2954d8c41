#include "tools/problem_description.h"

#include <sstream>

#include "dsl/expr_text.h"
#include "dsl/schedule.h"
#include "problems/contract.h"
#include "problems/problem_json.h"

namespace cusched::tools {

namespace {

nlohmann::json loop(const Problem& p, const std::string& name, const std::string& kind, const Expr& extent) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [size, bindings] : p.sizes) values[size] = eval_int(extent, bindings);
  return {{"name", name}, {"kind", kind}, {"extent", expr_to_text(extent)}, {"at", values}};
}

std::string distribution_text(const nlohmann::json& d) {
  std::ostringstream os;
  os << d["kind"].get<std::string>() << "(" << d["a"].get<double>() << ", " << d["b"].get<double>() << ")";
  return os.str();
}

}  // namespace

nlohmann::json describe_problem(const Problem& p) {
  nlohmann::json j;
  j["name"] = p.name;
  j["level"] = p.level;
  j["title"] = p.title;
  j["torch"] = p.torch_semantics;
  j["notes"] = p.notes;
  j["sizes"] = p.sizes;
  j["default_size"] = p.default_size;
  j["inputs"] = nlohmann::json::array();
  for (const auto& in : p.inputs) {
    const TensorDef* t = p.pipeline.find_input(in.name);
    nlohmann::json shape = nlohmann::json::array();
    for (const auto& d : t->shape) shape.push_back(expr_to_text(d));
    j["inputs"].push_back({{"name", in.name},
                           {"dtype", dtype_name(t->dtype)},
                           {"shape", shape},
                           {"distribution", distribution_json(in.standard)},
                           {"adversarial", in.adversarial ? distribution_json(*in.adversarial) : nlohmann::json()}});
  }
  j["stages"] = nlohmann::json::array();
  for (const auto& s : p.pipeline.stages()) {
    nlohmann::json loops = nlohmann::json::array();
    for (size_t v = 0; v < s->vars.size(); ++v) loops.push_back(loop(p, s->vars[v], "pure", s->extents[v]));
    if (s->is_reduction())
      for (const auto& r : s->body->rvars) loops.push_back(loop(p, r.name, "reduction", r.extent_expr));
    j["stages"].push_back({{"name", s->name},
                           {"definition", stage_to_text(*s)},
                           {"dtype", dtype_name(s->dtype)},
                           {"output", p.pipeline.is_output(s->name)},
                           {"loops", loops}});
  }
  if (p.source)
    j["source"] = {{"benchmark", p.source->benchmark},
                   {"file", p.source->file},
                   {"commit", p.source->commit},
                   {"forward_args", p.source->forward_args},
                   {"parameters", p.source->parameters},
                   {"init_args", p.source->init_args},
                   {"mode", p.source->mode}};
  if (!p.constant_output.empty()) j["constant_output"] = p.constant_output;
  j["contract"] = kernel_contract(p);
  j["flops"] = p.flops ? expr_to_text(p.flops.expr) : "";
  if (!p.baseline_schedule.is_null()) {
    j["baseline_schedule"] = p.baseline_schedule;
    j["baseline_text"] = Schedule::from_json(p.context(p.default_size), p.baseline_schedule).to_text();
  }
  return j;
}

std::string describe_problem_text(const nlohmann::json& d) {
  std::ostringstream os;
  os << "problem " << d["name"].get<std::string>();
  if (!d["level"].get<std::string>().empty()) os << " (level " << d["level"].get<std::string>() << ")";
  os << ": " << d["title"].get<std::string>() << "\n";
  if (!d["torch"].get<std::string>().empty()) os << "reproduces  " << d["torch"].get<std::string>() << "\n";
  if (!d["notes"].get<std::string>().empty()) os << "notes       " << d["notes"].get<std::string>() << "\n";
  if (d.contains("constant_output"))
    os << "constant    " << d["constant_output"].get<std::string>() << " (a constant reference is accepted)\n";
  if (d.contains("source")) {
    const auto& s = d["source"];
    os << "source      " << s["benchmark"].get<std::string>() << " " << s["file"].get<std::string>() << " at "
       << s["commit"].get<std::string>() << "\n";
    os << "  forward(";
    for (size_t i = 0; i < s["forward_args"].size(); ++i) {
      const auto& a = s["forward_args"][i];
      os << (i ? ", " : "") << (a.is_string() ? a.get<std::string>() : a.dump());
    }
    os << ")";
    if (!s["init_args"].is_null()) os << " of Model(*" << s["init_args"].dump() << ")";
    if (s.value("mode", "train") != "train") os << " in " << s["mode"].get<std::string>() << " mode";
    os << "\n";
    for (const auto& [input, attr] : s["parameters"].items())
      os << "  " << input << " -> module." << attr.get<std::string>() << "\n";
  }
  os << "sizes      ";
  for (const auto& [size, bindings] : d["sizes"].items()) {
    os << " " << size << (size == d["default_size"] ? " (default):" : ":");
    for (const auto& [n, v] : bindings.items()) os << " " << n << "=" << v.get<int64_t>();
    os << ";";
  }
  os << "\ninputs\n";
  for (const auto& in : d["inputs"]) {
    os << "  " << in["name"].get<std::string>() << " " << in["dtype"].get<std::string>() << " (";
    for (size_t i = 0; i < in["shape"].size(); ++i) os << (i ? ", " : "") << in["shape"][i].get<std::string>();
    os << ") " << distribution_text(in["distribution"]);
    if (!in["adversarial"].is_null()) os << ", adversarial " << distribution_text(in["adversarial"]);
    os << "\n";
  }
  os << "stages (producers first; a schedule names these stages and loops)\n";
  for (const auto& s : d["stages"]) {
    os << "  " << s["definition"].get<std::string>() << (s["output"].get<bool>() ? "   [output]" : "") << "\n";
    for (const auto& l : s["loops"]) {
      os << "    loop " << l["name"].get<std::string>() << " (" << l["kind"].get<std::string>() << ") over "
         << l["extent"].get<std::string>() << ":";
      for (const auto& [size, v] : l["at"].items()) os << " " << size << " " << v.get<int64_t>();
      os << "\n";
    }
  }
  os << "kernel contract\n  " << d["contract"]["kernel_name"].get<std::string>() << "(";
  const auto& params = d["contract"]["params"];
  for (size_t i = 0; i < params.size(); ++i)
    os << (i ? ", " : "") << params[i]["type"].get<std::string>() << " " << params[i]["name"].get<std::string>();
  os << ")\n";
  if (!d["flops"].get<std::string>().empty()) os << "flops       " << d["flops"].get<std::string>() << "\n";
  if (d.contains("baseline_text")) {
    os << "baseline schedule\n";
    std::istringstream lines(d["baseline_text"].get<std::string>());
    for (std::string line; std::getline(lines, line);) os << "  " << line << "\n";
  } else {
    os << "baseline schedule: none\n";
  }
  return os.str();
}

}  // namespace cusched::tools
