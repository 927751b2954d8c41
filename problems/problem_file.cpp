#include "problems/problem_file.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "dsl/error.h"
#include "dsl/expr_text.h"

namespace cusched {

namespace {

using nlohmann::json;

json distribution_to_json(const InputDistribution& d) { return {{"kind", d.kind}, {"a", d.a}, {"b", d.b}}; }

const TensorDef& input_def(const Problem& p, const std::string& name) {
  if (const TensorDef* t = p.pipeline.find_input(name)) return *t;
  fail("unknown-input", "Problem '" + p.name + "' lists the input '" + name + "' but its pipeline does not read it.",
       "List only the tensors the stages load.");
}

// Reading context: the source's name and the JSON pointer of the value being read.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void error(const std::string& pointer, const std::string& code, const std::string& message,
                          const std::string& hint) const {
    fail(code, where(pointer) + message, hint);
  }

  // Runs `f`; a UserError it raises gets this file and pointer in front of its message.
  template <typename F>
  auto at(const std::string& pointer, F f, const std::string& unknown_name_code = "") const {
    try {
      return f();
    } catch (const UserError& e) {
      Error err = e.error();
      if (!unknown_name_code.empty() && err.code == "unknown-name") {
        err.code = unknown_name_code;
        err.hint = "Bind the size in every size table of \"sizes\", or use one of the sizes it binds.";
      }
      err.message = where(pointer) + err.message;
      throw UserError(err);
    }
  }

  void only_keys(const json& j, const std::string& pointer, const std::set<std::string>& allowed) const {
    for (const auto& [k, _] : j.items())
      if (!allowed.count(k)) {
        std::string names;
        for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
        error(pointer + "/" + k, "unknown-key", "The key '" + k + "' is not part of the problem file format here.",
              "Use only: " + names + " (see docs/problem-files.md).");
      }
  }

  const json& member(const json& j, const std::string& pointer, const std::string& key) const {
    if (!j.contains(key))
      error(pointer + "/" + key, "missing-key", "The required key '" + key + "' is missing.",
            "Add \"" + key + "\" (see docs/problem-files.md).");
    return j.at(key);
  }

  std::string string_at(const json& j, const std::string& pointer) const {
    if (!j.is_string()) error(pointer, "bad-value", "Expected a string.", "Write the value as a JSON string.");
    return j.get<std::string>();
  }

  double number_at(const json& j, const std::string& pointer) const {
    if (!j.is_number()) error(pointer, "bad-value", "Expected a number.", "Write the value as a JSON number.");
    return j.get<double>();
  }

  const json& array_at(const json& j, const std::string& pointer) const {
    if (!j.is_array()) error(pointer, "bad-value", "Expected an array.", "Write the value as a JSON array [...].");
    return j;
  }

  const json& object_at(const json& j, const std::string& pointer) const {
    if (!j.is_object()) error(pointer, "bad-value", "Expected an object.", "Write the value as a JSON object {...}.");
    return j;
  }

  std::string optional_string(const json& j, const std::string& key, const std::string& fallback = "") const {
    return j.contains(key) ? string_at(j[key], "/" + key) : fallback;
  }

 private:
  std::string source_;
  std::string where(const std::string& pointer) const {
    return "Problem file '" + source_ + "', at " + (pointer.empty() ? "/" : pointer) + ": ";
  }
};

InputDistribution read_distribution(const Reader& r, const json& j, const std::string& ptr) {
  r.object_at(j, ptr);
  r.only_keys(j, ptr, {"kind", "a", "b"});
  InputDistribution d;
  d.kind = r.string_at(r.member(j, ptr, "kind"), ptr + "/kind");
  if (d.kind != "normal" && d.kind != "uniform" && d.kind != "randint")
    r.error(ptr + "/kind", "bad-distribution", "The distribution '" + d.kind + "' is not known.",
            "Use normal (a = mean, b = std), uniform (a = lo, b = hi) or randint (a = lo, b = hi).");
  d.a = r.number_at(r.member(j, ptr, "a"), ptr + "/a");
  d.b = r.number_at(r.member(j, ptr, "b"), ptr + "/b");
  if (d.kind == "normal" ? d.b < 0 : d.b < d.a)
    r.error(
        ptr, "bad-distribution",
        "The distribution's parameters are out of order (b below " + std::string(d.kind == "normal" ? "0" : "a") + ").",
        d.kind == "normal" ? "Give a non-negative standard deviation b." : "Give a <= b.");
  return d;
}

std::map<std::string, SizeBindings> read_sizes(const Reader& r, const json& j) {
  r.object_at(j, "/sizes");
  std::map<std::string, SizeBindings> sizes;
  std::set<std::string> names;
  for (const auto& [table, bindings] : j.items()) {
    std::string ptr = "/sizes/" + table;
    r.object_at(bindings, ptr);
    for (const auto& [n, v] : bindings.items()) {
      if (!v.is_number_integer() || v.get<int64_t>() <= 0)
        r.error(ptr + "/" + n, "bad-size", "The size '" + n + "' must be a positive integer.",
                "Write it as a number such as 1024.");
      if (is_reserved_word(n))
        r.error(ptr + "/" + n, "duplicate-name",
                "'" + n + "' is a word of the expression syntax and cannot name a size.", "Choose another name.");
      sizes[table][n] = v.get<int64_t>();
      names.insert(n);
    }
  }
  if (!sizes.count("small"))
    r.error("/sizes/small", "missing-size", "The problem has no size table named 'small'.",
            "Add \"small\": a size small enough for the CPU interpreter (a few thousand elements).");
  for (const auto& [table, bindings] : sizes)
    for (const auto& n : names)
      if (!bindings.count(n))
        r.error("/sizes/" + table, "unbound-size",
                "The size '" + n + "' is never bound in the size table '" + table + "'.",
                "Bind every size in every size table.");
  return sizes;
}

// The extent of a variable used as an index, or undefined when it is not a variable.
using Extents = std::map<std::string, Expr>;

void check_shapes(const Reader& r, const std::string& ptr, const Expr& e, Extents extents, const Problem& p) {
  if (!e.defined()) return;
  if (e->op == ExprOp::Reduce)
    for (const auto& v : e->rvars) extents[v.name] = v.extent_expr;
  if (e->op == ExprOp::Load) {
    const std::vector<Expr>& dims = e->tensor ? e->tensor->shape : e->func->extents;
    for (size_t d = 0; d < e->args.size() && d < dims.size(); ++d) {
      const Expr& index = e->args[d];
      if (index->op != ExprOp::Var || !extents.count(index->name)) continue;
      for (const auto& [table, sizes] : p.sizes) {
        int64_t range = eval_int(extents.at(index->name), sizes), dim = eval_int(dims[d], sizes);
        if (range > dim)
          r.error(ptr, "shape-mismatch",
                  "The index '" + index->name + "' of " + e->name + " runs to " + std::to_string(range) + " at size '" +
                      table + "', but dimension " + std::to_string(d) + " of " + e->name + " has " +
                      std::to_string(dim) + " elements.",
                  "Index each dimension with a variable of the same extent (check the order of the indices).");
      }
    }
  }
  for (const auto& a : e->args) check_shapes(r, ptr, a, extents, p);
}

json source_to_json(const ProblemSource& s) {
  json j = {{"benchmark", s.benchmark},
            {"file", s.file},
            {"commit", s.commit},
            {"forward_args", s.forward_args},
            {"parameters", s.parameters}};
  if (!s.init_args.is_null()) j["init_args"] = s.init_args;
  if (s.mode != "train") j["mode"] = s.mode;
  return j;
}

bool is_commit_hash(const std::string& s) {
  return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The source key; every problem input must be a forward() argument or a module parameter,
// exactly once, so that a script can place each saved input.
ProblemSource read_source(const Reader& r, const json& j, const Problem& p) {
  const std::string ptr = "/source";
  r.object_at(j, ptr);
  r.only_keys(j, ptr, {"benchmark", "file", "commit", "forward_args", "parameters", "init_args", "mode"});
  ProblemSource s;
  s.benchmark = r.string_at(r.member(j, ptr, "benchmark"), ptr + "/benchmark");
  s.file = r.string_at(r.member(j, ptr, "file"), ptr + "/file");
  s.commit = r.string_at(r.member(j, ptr, "commit"), ptr + "/commit");
  if (s.benchmark.empty())
    r.error(ptr + "/benchmark", "bad-source", "The benchmark name is empty.", "Name the suite, e.g. \"KernelBench\".");
  if (s.file.empty() || s.file.front() == '/' || s.file.find("..") != std::string::npos)
    r.error(ptr + "/file", "bad-source", "The source file '" + s.file + "' is not a path inside the benchmark.",
            "Give the module's path relative to the benchmark's problem folder, e.g. \"level1/19_ReLU.py\".");
  if (!is_commit_hash(s.commit))
    r.error(ptr + "/commit", "bad-source", "The commit '" + s.commit + "' is not 40 lower-case hex digits.",
            "Give the full commit hash of the benchmark checkout the problem was checked against.");
  std::map<std::string, std::string> placed;  // input -> where it is placed
  auto place = [&](const std::string& name, const std::string& at) {
    bool known = std::any_of(p.inputs.begin(), p.inputs.end(), [&](const ProblemInput& in) { return in.name == name; });
    if (!known)
      r.error(at, "bad-source", "'" + name + "' is not an input of the problem.",
              "Name inputs listed in \"inputs\" (a Python scalar argument is written as a JSON number).");
    if (placed.count(name))
      r.error(at, "bad-source", "The input '" + name + "' is placed twice (also at " + placed[name] + ").",
              "Place each input once: as a forward() argument or as a module parameter.");
    placed[name] = at;
  };
  const json& args = r.array_at(r.member(j, ptr, "forward_args"), ptr + "/forward_args");
  for (size_t i = 0; i < args.size(); ++i) {
    std::string at = ptr + "/forward_args/" + std::to_string(i);
    if (args[i].is_string())
      place(args[i].get<std::string>(), at);
    else if (!args[i].is_number())
      r.error(at, "bad-source", "A forward() argument must be an input name or a number.",
              "Write an input's name as a string, a Python scalar as a JSON number.");
  }
  s.forward_args = args;
  if (j.contains("parameters")) {
    const json& params = r.object_at(j["parameters"], ptr + "/parameters");
    for (const auto& [name, path] : params.items()) {
      std::string at = ptr + "/parameters/" + name;
      std::string attr = r.string_at(path, at);
      if (attr.empty() || attr.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
                              std::string::npos)
        r.error(at, "bad-source", "The attribute path '" + attr + "' is not a dotted Python attribute path.",
                "Write the parameter's path in the module, e.g. \"conv.weight\".");
      place(name, at);
      s.parameters[name] = attr;
    }
  }
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (!placed.count(p.inputs[i].name))
      r.error(ptr, "bad-source",
              "The input '" + p.inputs[i].name + "' is neither a forward() argument nor a parameter.",
              "List it in \"forward_args\" or map it in \"parameters\".");
  if (j.contains("init_args")) s.init_args = r.array_at(j["init_args"], ptr + "/init_args");
  if (j.contains("mode")) {
    s.mode = r.string_at(j["mode"], ptr + "/mode");
    if (s.mode != "train" && s.mode != "eval")
      r.error(ptr + "/mode", "bad-source", "The module mode '" + s.mode + "' is neither \"train\" nor \"eval\".",
              "Leave \"mode\" out for the module as the benchmark runs it, or write \"eval\".");
  }
  return s;
}

}  // namespace

json problem_to_json(const Problem& p) {
  json j;
  j["format_version"] = kProblemFileVersion;
  j["name"] = p.name;
  j["level"] = p.level;
  j["title"] = p.title;
  j["torch"] = p.torch_semantics;
  j["notes"] = p.notes;
  j["sizes"] = p.sizes;
  j["default_size"] = p.default_size;
  j["inputs"] = json::array();
  for (const auto& in : p.inputs) {
    const TensorDef& t = input_def(p, in.name);
    json shape = json::array();
    for (const auto& s : t.shape) shape.push_back(expr_to_text(s));
    json i = {{"name", in.name},
              {"dtype", dtype_name(t.dtype)},
              {"shape", shape},
              {"distribution", distribution_to_json(in.standard)}};
    if (in.adversarial) i["adversarial"] = distribution_to_json(*in.adversarial);
    j["inputs"].push_back(i);
  }
  j["stages"] = json::array();
  for (const auto& s : p.pipeline.stages()) j["stages"].push_back(stage_to_text(*s));
  j["outputs"] = p.pipeline.outputs();
  j["tolerance"] = {{"atol", p.atol}, {"rtol", p.rtol}, {"strict_atol", p.strict_atol}, {"strict_rtol", p.strict_rtol}};
  if (p.flops) j["flops"] = expr_to_text(p.flops.expr);
  if (!p.baseline_schedule.is_null()) j["baseline_schedule"] = p.baseline_schedule;
  if (!p.best_schedule.is_null()) j["best_schedule"] = p.best_schedule;
  if (p.source) j["source"] = source_to_json(*p.source);
  if (!p.constant_output.empty()) j["constant_output"] = p.constant_output;
  return j;
}

Problem problem_from_json(const json& j, const std::string& source) {
  Reader r(source);
  r.object_at(j, "");
  r.only_keys(
      j, "",
      {"format_version", "name", "level", "title", "torch", "notes", "sizes", "default_size", "inputs", "stages",
       "outputs", "tolerance", "flops", "baseline_schedule", "best_schedule", "source", "constant_output"});
  if (j.contains("format_version") && j["format_version"] != kProblemFileVersion)
    r.error("/format_version", "bad-value",
            "This cusched reads problem files of format_version " + std::to_string(kProblemFileVersion) + ".",
            "Write \"format_version\": " + std::to_string(kProblemFileVersion) + " or leave it out.");
  Problem p;
  p.name = r.string_at(r.member(j, "", "name"), "/name");
  if (p.name.empty() ||
      p.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    r.error("/name", "bad-name", "The problem name '" + p.name + "' must be letters, digits, '_' and '-'.",
            "Name it like a file, e.g. \"row_l2norm\".");
  p.level = r.optional_string(j, "level");
  p.title = r.optional_string(j, "title");
  p.torch_semantics = r.optional_string(j, "torch");
  p.notes = r.optional_string(j, "notes");
  p.constant_output = r.optional_string(j, "constant_output");
  p.sizes = read_sizes(r, r.member(j, "", "sizes"));
  p.default_size = r.optional_string(j, "default_size", p.sizes.count("bench") ? "bench" : "small");
  if (!p.sizes.count(p.default_size))
    r.error("/default_size", "missing-size", "The default size '" + p.default_size + "' is not among the size tables.",
            "Name one of the tables in \"sizes\".");

  ExprScope scope;
  for (const auto& [n, _] : p.sizes.begin()->second) scope.sizes.push_back(n);
  const json& inputs = r.array_at(r.member(j, "", "inputs"), "/inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string ptr = "/inputs/" + std::to_string(i);
    const json& in = r.object_at(inputs[i], ptr);
    r.only_keys(in, ptr, {"name", "dtype", "shape", "distribution", "adversarial"});
    std::string name = r.string_at(r.member(in, ptr, "name"), ptr + "/name");
    bool size = std::find(scope.sizes.begin(), scope.sizes.end(), name) != scope.sizes.end();
    if (name.empty() || is_reserved_word(name) || size || scope.tensors.count(name))
      r.error(ptr + "/name", "duplicate-name", "The input name '" + name + "' is empty, reserved or already used.",
              "Give every input, size and stage a distinct name that is not a function or keyword.");
    std::string dt = r.string_at(r.member(in, ptr, "dtype"), ptr + "/dtype");
    auto dtype = dtype_from_name(dt);
    if (!dtype)
      r.error(ptr + "/dtype", "unknown-dtype", "The dtype '" + dt + "' is not known.",
              "Use f32, f16, bf16, f64, i32, i64 or bool.");
    std::vector<Expr> shape;
    const json& sh = r.array_at(r.member(in, ptr, "shape"), ptr + "/shape");
    for (size_t d = 0; d < sh.size(); ++d) {
      std::string dptr = ptr + "/shape/" + std::to_string(d);
      std::string text = sh[d].is_number_integer() ? std::to_string(sh[d].get<int64_t>()) : r.string_at(sh[d], dptr);
      Expr e = r.at(dptr, [&] { return expr_from_text(text, scope); }, "unbound-size");
      if (dtype_is_float(e.type()) || e.type() == DType::boolean)
        r.error(dptr, "type-error", "A dimension must be an integer expression of sizes.",
                "Write it as a size name or integer arithmetic.");
      shape.push_back(e);
    }
    Tensor t(name, *dtype, shape);
    scope.tensors[name] = t.ptr();
    ProblemInput pi;
    pi.name = name;
    if (in.contains("distribution")) pi.standard = read_distribution(r, in["distribution"], ptr + "/distribution");
    if (in.contains("adversarial") && !in["adversarial"].is_null())
      pi.adversarial = read_distribution(r, in["adversarial"], ptr + "/adversarial");
    p.inputs.push_back(pi);
  }

  std::map<std::string, Func> stages;
  const json& st = r.array_at(r.member(j, "", "stages"), "/stages");
  for (size_t i = 0; i < st.size(); ++i) {
    std::string ptr = "/stages/" + std::to_string(i);
    std::string text = r.string_at(st[i], ptr);
    Func f = r.at(ptr, [&] { return stage_from_text(text, scope); });
    // The stage and the stages split from its reductions (dsl/reduction_split.h): each
    // one's loads are checked against its own domain, and later stages see their names.
    const Pipeline with_producers = r.at(ptr, [&] { return Pipeline({f}); });
    for (const auto& def : with_producers.stages()) {
      if (auto known = scope.stages.find(def->name); known != scope.stages.end()) {
        if (known->second != def)
          r.error(ptr, "duplicate-name",
                  "The stage '" + def->name + "', split from a reduction inside '" + f.name() +
                      "', has the name of an earlier stage.",
                  "Rename the earlier stage: the stages split from a stage S are named S_sum0, S_maximum0, ... "
                  "(docs/problem-files.md).");
        continue;
      }
      Extents e;
      for (size_t v = 0; v < def->vars.size(); ++v) e[def->vars[v]] = def->extents[v];
      check_shapes(r, ptr, def->body, e, p);
      scope.stages[def->name] = def;
    }
    stages[f.name()] = f;
  }
  const json& outs = r.array_at(r.member(j, "", "outputs"), "/outputs");
  if (outs.empty())
    r.error("/outputs", "bad-value", "The problem has no outputs.", "Name the stages the kernel writes, e.g. [\"Y\"].");
  std::vector<Func> outputs;
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string name = r.string_at(outs[i], "/outputs/" + std::to_string(i));
    if (!stages.count(name))
      r.error("/outputs/" + std::to_string(i), "unknown-tensor", "The output '" + name + "' is not a stage.",
              "Name a stage defined in \"stages\".");
    outputs.push_back(stages.at(name));
  }
  p.pipeline = r.at("/outputs", [&] { return Pipeline(outputs); });
  for (const auto& [name, _] : stages)
    if (!p.pipeline.find_stage(name))
      r.error("/stages", "unused-stage", "The stage '" + name + "' is not used by any output.",
              "Remove it, or list it in \"outputs\".");
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (!p.pipeline.find_input(p.inputs[i].name))
      r.error("/inputs/" + std::to_string(i), "unused-input",
              "The input '" + p.inputs[i].name + "' is not read by any stage.", "Remove it, or load it in a stage.");

  if (j.contains("tolerance")) {
    const json& t = r.object_at(j["tolerance"], "/tolerance");
    r.only_keys(t, "/tolerance", {"atol", "rtol", "strict_atol", "strict_rtol"});
    auto tol = [&](const char* key, double& out) {
      if (!t.contains(key)) return;
      out = r.number_at(t[key], std::string("/tolerance/") + key);
      if (!(out > 0))
        r.error(std::string("/tolerance/") + key, "bad-value", "A tolerance must be positive.", "Use e.g. 1e-2.");
    };
    tol("atol", p.atol);
    tol("rtol", p.rtol);
    tol("strict_atol", p.strict_atol);
    tol("strict_rtol", p.strict_rtol);
  }
  if (j.contains("flops")) {
    std::string text = r.string_at(j["flops"], "/flops");
    p.flops = r.at("/flops", [&] { return expr_from_text(text, scope); }, "unbound-size");
    r.at("/flops", [&] { return p.flops(p.sizes.begin()->second); });
  }
  for (const char* key : {"baseline_schedule", "best_schedule"})
    if (j.contains(key) && !j[key].is_null()) {
      r.array_at(j[key], std::string("/") + key);
      (key == std::string("baseline_schedule") ? p.baseline_schedule : p.best_schedule) = j[key];
    }
  if (j.contains("source")) p.source = read_source(r, j["source"], p);
  return p;
}

Problem load_problem_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    fail("unreadable-problem-file", "The problem file '" + path + "' cannot be read.",
         "Check the path; a value of -p that contains '/' or ends in .json is read as a file.");
  std::stringstream ss;
  ss << in.rdbuf();
  json j;
  try {
    j = json::parse(ss.str());
  } catch (const json::parse_error& e) {
    fail("bad-json", "The problem file '" + path + "' is not valid JSON: " + e.what() + ".",
         "Fix the JSON syntax at the byte position named.");
  }
  return problem_from_json(j, path);
}

void save_problem_file(const Problem& p, const std::string& path) {
  std::ofstream out(path);
  if (!out)
    fail("unwritable-file", "The file '" + path + "' cannot be written.",
         "Check that its folder exists and is writable.");
  out << problem_to_json(p).dump(2) << "\n";
}

}  // namespace cusched
