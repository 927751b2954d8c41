#include "dsl/pipeline.h"

#include <functional>
#include <map>
#include <set>

#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched {

Pipeline::Pipeline(std::vector<Func> outputs) {
  std::set<std::string> seen_stages, seen_inputs;
  std::set<std::string> visiting;
  std::map<std::string, const void*> defs;  // name -> the one definition it may have
  auto claim = [&](const std::string& name, const void* def) {
    auto [it, fresh] = defs.emplace(name, def);
    if (!fresh && it->second != def)
      fail("duplicate-name", "Two different tensors or stages are named '" + name + "'.",
           "Give every tensor and stage a distinct name.");
  };
  std::function<void(const std::shared_ptr<const FuncDef>&)> visit_stage;
  std::function<void(const Expr&)> visit_expr = [&](const Expr& e) {
    if (!e.defined()) return;
    if (e->op == ExprOp::Load) {
      if (e->func) visit_stage(e->func);
      if (e->tensor) claim(e->tensor->name, e->tensor.get());
      if (e->tensor && !seen_inputs.count(e->tensor->name)) {
        seen_inputs.insert(e->tensor->name);
        inputs_.push_back(e->tensor);
      }
    }
    for (const auto& a : e->args) visit_expr(a);
  };
  visit_stage = [&](const std::shared_ptr<const FuncDef>& f) {
    claim(f->name, f.get());
    if (seen_stages.count(f->name)) return;
    if (visiting.count(f->name))
      fail("cyclic-pipeline", "Stage '" + f->name + "' depends on itself.", "Break the cycle with a new stage.");
    visiting.insert(f->name);
    visit_expr(f->body);
    visiting.erase(f->name);
    seen_stages.insert(f->name);
    stages_.push_back(f);
  };
  for (const auto& o : outputs) {
    visit_stage(o.ptr());
    outputs_.push_back(o.name());
  }
  for (const auto& in : inputs_)
    if (seen_stages.count(in->name))
      fail("duplicate-name", "The name '" + in->name + "' is used by both an input and a stage.",
           "Give every tensor and stage a distinct name.");
}

const FuncDef* Pipeline::find_stage(const std::string& name) const {
  for (const auto& s : stages_)
    if (s->name == name) return s.get();
  return nullptr;
}

const TensorDef* Pipeline::find_input(const std::string& name) const {
  for (const auto& t : inputs_)
    if (t->name == name) return t.get();
  return nullptr;
}

bool Pipeline::is_output(const std::string& name) const {
  for (const auto& o : outputs_)
    if (o == name) return true;
  return false;
}

std::vector<const FuncDef*> Pipeline::consumers(const std::string& name) const {
  std::vector<const FuncDef*> out;
  for (const auto& s : stages_)
    if (loads_from(s->body, name)) out.push_back(s.get());
  return out;
}

int64_t eval_int(const Expr& e, const SizeBindings& sizes) {
  if (!e.defined()) fail("undefined-expr", "A size expression is undefined.", "Give every extent a value.");
  const ExprNode& n = *e;
  switch (n.op) {
    case ExprOp::IntImm:
      return n.ival;
    case ExprOp::SizeParam: {
      auto it = sizes.find(n.name);
      if (it == sizes.end())
        fail("unbound-size", "The size '" + n.name + "' has no value.", "Bind it in the problem's size table.");
      return it->second;
    }
    case ExprOp::Add:
      return eval_int(n.args[0], sizes) + eval_int(n.args[1], sizes);
    case ExprOp::Sub:
      return eval_int(n.args[0], sizes) - eval_int(n.args[1], sizes);
    case ExprOp::Mul:
      return eval_int(n.args[0], sizes) * eval_int(n.args[1], sizes);
    case ExprOp::Div: {
      int64_t d = eval_int(n.args[1], sizes);
      if (d == 0) fail("division-by-zero", "A size expression divides by zero.", "Check the size bindings.");
      return eval_int(n.args[0], sizes) / d;
    }
    default:
      fail("bad-size-expr", "The size expression '" + to_string(e) + "' is not made of integers and sizes.",
           "Use only integer literals, Size names, +, -, * and / in extents and shapes.");
  }
}

std::vector<int64_t> eval_shape(const std::vector<Expr>& shape, const SizeBindings& sizes) {
  std::vector<int64_t> out;
  for (const auto& s : shape) out.push_back(eval_int(s, sizes));
  return out;
}

int64_t rvar_extent(const ReductionVar& r, const SizeBindings& sizes) {
  return r.extent ? r.extent : eval_int(r.extent_expr, sizes);
}

int64_t reduction_extent(const FuncDef& f, const SizeBindings& sizes) {
  int64_t n = 1;
  for (const auto& r : f.body->rvars) n *= rvar_extent(r, sizes);
  return n;
}

int64_t stage_points(const FuncDef& f, const SizeBindings& sizes) {
  int64_t n = 1;
  for (const auto& e : f.extents) n *= eval_int(e, sizes);
  return n;
}

}  // namespace cusched
