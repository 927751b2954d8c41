#include "dsl/reference_eval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "dsl/error.h"
#include "dsl/math_function.h"
#include "dsl/padded_load.h"
#include "dsl/reference_reduction.h"

namespace cusched {

namespace {

// An expression with variables resolved to slots and loads to targets.
struct RNode {
  ExprOp op = ExprOp::IntImm;
  DType type = DType::f64;
  double imm = 0;
  int slot = -1;                     // Var
  int target = -1;                   // Load
  const MathFunction* fn = nullptr;  // Call
  ReduceOp reduce_op = ReduceOp::Sum;
  std::vector<int> reduce_slots;        // Reduce: one slot per reduction variable, outermost first
  std::vector<int64_t> reduce_extents;  // Scan: the extent of the scanned variable (slot: its slot)
  int64_t scan_flags = 0;               // Scan: kScanReverse | kScanExclusive
  bool padded = false;                  // Load: indices outside the shape read `imm`
  std::vector<RNode> args;
  Expr source;
};

// Something a Load reads: an input tensor, a stage, or a flat buffer.
struct Target {
  std::string name;
  int stage = -1;              // >= 0: a stage of the evaluator
  std::vector<int64_t> shape;  // empty: read flat with a single index
  const std::vector<double>* data = nullptr;
};

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string coords_text(const std::vector<int64_t>& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
  return s + ")";
}

class Compiler {
 public:
  // `extents`: the extents of the pure variables a scan may run along.
  Compiler(const SizeBindings& sizes, std::map<std::string, int> slots, std::function<int(const ExprNode&)> resolve,
           std::map<std::string, int64_t> extents = {})
      : sizes_(sizes), slots_(std::move(slots)), resolve_(std::move(resolve)), extents_(std::move(extents)) {
    for (const auto& [name, s] : slots_) next_slot_ = std::max(next_slot_, s + 1);
  }

  RNode compile(const Expr& e) {
    if (!e.defined())
      fail("undefined-expr", "The reference met an undefined expression.", "Define every Expr before using it.");
    const ExprNode& n = *e;
    RNode r;
    r.op = n.op;
    r.type = n.type;
    r.source = e;
    switch (n.op) {
      case ExprOp::IntImm:
      case ExprOp::BoolImm:
        r.imm = static_cast<double>(n.ival);
        break;
      case ExprOp::FloatImm:
        r.imm = n.fval;
        break;
      case ExprOp::SizeParam:
        r.op = ExprOp::IntImm;
        r.imm = static_cast<double>(eval_int(e, sizes_));
        break;
      case ExprOp::Var: {
        auto it = slots_.find(n.name);
        if (it == slots_.end())
          fail("unbound-variable",
               "The expression '" + to_string(e) + "' uses the variable '" + n.name + "', which has no value.",
               "Use only the stage's own variables and the reduction variables of its reduction.");
        r.slot = it->second;
        break;
      }
      case ExprOp::Call: {
        r.fn = math_function(n.name);
        if (!r.fn || n.args.size() != r.fn->params.size())
          fail("unknown-function", "The reference cannot evaluate the call '" + to_string(e) + "'.",
               "Call the math functions of the language (docs/problem-files.md) with their arguments.");
        break;
      }
      case ExprOp::Load:
        r.target = resolve_(n);
        r.padded = is_padded_load(n);
        r.imm = n.fval;
        break;
      case ExprOp::Reduce: {
        r.reduce_op = n.reduce_op;
        std::map<std::string, int> saved = slots_;
        for (const auto& rv : n.rvars) {
          int64_t extent = rv.extent_expr.defined() ? eval_int(rv.extent_expr, sizes_) : rv.extent;
          slots_[rv.name] = next_slot_;
          r.reduce_slots.push_back(next_slot_++);
          r.reduce_extents.push_back(extent);
        }
        r.args.push_back(compile(n.args.at(0)));
        slots_ = std::move(saved);
        return r;
      }
      case ExprOp::Scan: {
        auto slot = slots_.find(n.name);
        auto extent = extents_.find(n.name);
        if (slot == slots_.end() || extent == extents_.end())
          fail("unbound-variable",
               "The scan '" + to_string(e) + "' runs along '" + n.name + "', which is not a variable of its stage.",
               "Evaluate a scan as the body of the stage whose pure variable it scans.");
        r.reduce_op = n.reduce_op;
        r.slot = slot->second;
        r.reduce_extents = {extent->second};
        r.scan_flags = n.ival;
        r.args.push_back(compile(n.args.at(0)));
        return r;
      }
      default:
        break;
    }
    for (const auto& a : n.args) r.args.push_back(compile(a));
    return r;
  }

  // Slots needed to evaluate what was compiled: the given variables and every reduction variable.
  int total_slots() const { return next_slot_; }

 private:
  const SizeBindings& sizes_;
  std::map<std::string, int> slots_;
  std::function<int(const ExprNode&)> resolve_;
  std::map<std::string, int64_t> extents_;
  int next_slot_ = 0;
};

double to_integer(double x, DType t) {
  if (t == DType::boolean) return x != 0 ? 1.0 : 0.0;
  if (std::isnan(x)) return 0;
  return std::trunc(x);
}

// Evaluates compiled expressions; stage loads go through `stage_at`.
class Machine {
 public:
  Machine(const std::vector<Target>& targets, std::function<double(int, const std::vector<int64_t>&)> stage_at)
      : targets_(targets), stage_at_(std::move(stage_at)) {}

  double eval(const RNode& e, std::vector<double>& slots) {
    const RNode* a = e.args.data();
    switch (e.op) {
      case ExprOp::IntImm:
      case ExprOp::FloatImm:
      case ExprOp::BoolImm:
      case ExprOp::SizeParam:
        return e.imm;
      case ExprOp::Var:
        return slots[e.slot];
      case ExprOp::Add:
        return eval(a[0], slots) + eval(a[1], slots);
      case ExprOp::Sub:
        return eval(a[0], slots) - eval(a[1], slots);
      case ExprOp::Mul:
        return eval(a[0], slots) * eval(a[1], slots);
      case ExprOp::Div:
      case ExprOp::Mod: {
        double x = eval(a[0], slots), y = eval(a[1], slots);
        if (dtype_is_float(e.type)) return e.op == ExprOp::Div ? x / y : std::fmod(x, y);
        int64_t xi = static_cast<int64_t>(x), yi = static_cast<int64_t>(y);
        if (yi == 0)
          fail("division-by-zero", "The integer expression '" + to_string(e.source) + "' divides by zero.",
               "Guard the division or fix the divisor.");
        return static_cast<double>(e.op == ExprOp::Div ? xi / yi : xi % yi);
      }
      case ExprOp::Min:
      case ExprOp::Max: {
        double x = eval(a[0], slots), y = eval(a[1], slots);
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
        return e.op == ExprOp::Min ? (y < x ? y : x) : (y > x ? y : x);
      }
      case ExprOp::Pow:
        return std::pow(eval(a[0], slots), eval(a[1], slots));
      case ExprOp::BitXor:
        return static_cast<double>(static_cast<int64_t>(eval(a[0], slots)) ^ static_cast<int64_t>(eval(a[1], slots)));
      case ExprOp::EQ:
        return eval(a[0], slots) == eval(a[1], slots) ? 1 : 0;
      case ExprOp::NE:
        return eval(a[0], slots) != eval(a[1], slots) ? 1 : 0;
      case ExprOp::LT:
        return eval(a[0], slots) < eval(a[1], slots) ? 1 : 0;
      case ExprOp::LE:
        return eval(a[0], slots) <= eval(a[1], slots) ? 1 : 0;
      case ExprOp::GT:
        return eval(a[0], slots) > eval(a[1], slots) ? 1 : 0;
      case ExprOp::GE:
        return eval(a[0], slots) >= eval(a[1], slots) ? 1 : 0;
      case ExprOp::And:
        return (eval(a[0], slots) != 0 && eval(a[1], slots) != 0) ? 1 : 0;
      case ExprOp::Or:
        return (eval(a[0], slots) != 0 || eval(a[1], slots) != 0) ? 1 : 0;
      case ExprOp::Not:
        return eval(a[0], slots) == 0 ? 1 : 0;
      case ExprOp::Neg:
        return -eval(a[0], slots);
      case ExprOp::Select:
        return eval(a[0], slots) != 0 ? eval(a[1], slots) : eval(a[2], slots);
      case ExprOp::Cast: {
        double x = eval(a[0], slots);
        return dtype_is_float(e.type) ? x : to_integer(x, e.type);
      }
      case ExprOp::Call: {
        double x[kMaxMathParams] = {};
        for (size_t i = 0; i < e.args.size(); ++i) x[i] = eval(a[i], slots);
        return e.fn->exact(x);
      }
      case ExprOp::Load:
        return load(e, slots);
      case ExprOp::Reduce:
        return reduce(e, slots);
      case ExprOp::Scan: {
        double result = 0;
        scan_line(e, slots, [&](int64_t position, double v) {
          if (position == static_cast<int64_t>(slots[e.slot])) result = v;
        });
        return result;
      }
    }
    return 0;
  }

  // Every value of the scan `e` along its variable, the other variables as in `slots`:
  // `out(position, value)` in scan order (the variable restored afterwards).
  void scan_line(const RNode& e, std::vector<double>& slots, const std::function<void(int64_t, double)>& out) {
    const double saved = slots[e.slot];
    const int64_t n = e.reduce_extents[0];
    const bool reverse = e.scan_flags & kScanReverse, exclusive = e.scan_flags & kScanExclusive;
    double acc = e.reduce_op == ReduceOp::Product ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t position = reverse ? n - 1 - k : k;
      slots[e.slot] = static_cast<double>(position);
      const double v = eval(e.args[0], slots);
      if (exclusive) out(position, acc);
      acc = e.reduce_op == ReduceOp::Product ? acc * v : acc + v;
      if (!exclusive) out(position, acc);
    }
    slots[e.slot] = saved;
  }

 private:
  double load(const RNode& e, std::vector<double>& slots) {
    const Target& t = targets_[e.target];
    std::vector<int64_t> coords;
    coords.reserve(e.args.size());
    for (const auto& a : e.args) {
      double v = eval(a, slots);
      if (!(v >= -9.0e18 && v <= 9.0e18))
        fail("out-of-bounds", "The load '" + to_string(e.source) + "' has the index " + number(v) + ".",
             "Index tensors and stages with integer expressions inside their shapes.");
      coords.push_back(static_cast<int64_t>(v));
    }
    if (t.shape.empty()) {
      if (coords[0] < 0 || coords[0] >= static_cast<int64_t>(t.data->size()))
        fail("out-of-bounds",
             "The load '" + to_string(e.source) + "' reads '" + t.name + "' at element " + std::to_string(coords[0]) +
                 ", outside its " + std::to_string(t.data->size()) + " elements.",
             "Keep indices inside the buffer.");
      return (*t.data)[coords[0]];
    }
    int64_t flat = 0;
    for (size_t d = 0; d < coords.size(); ++d) {
      if (coords[d] < 0 || coords[d] >= t.shape[d]) {
        if (e.padded) return e.imm;
        std::vector<int64_t> shape = t.shape;
        fail("out-of-bounds",
             "The load '" + to_string(e.source) + "' reads '" + t.name + "' at " + coords_text(coords) +
                 ", outside its shape " + coords_text(shape) + ".",
             "Keep every index inside the shape, or read the source through padded(...), which reads 0 (or a given "
             "value) outside it.");
      }
      flat = flat * t.shape[d] + coords[d];
    }
    if (t.stage >= 0) return stage_at_(t.stage, coords);
    return (*t.data)[flat];
  }

  double reduce(const RNode& e, std::vector<double>& slots) {
    const size_t m = e.reduce_slots.size();
    int64_t total = 1;
    for (int64_t x : e.reduce_extents) total *= x;
    ReferenceReduction reduction(e.reduce_op);
    std::vector<int64_t> idx(m, 0);
    for (size_t r = 0; r < m; ++r) slots[e.reduce_slots[r]] = 0;
    for (int64_t flat = 0; flat < total; ++flat) {
      reduction.add(eval(e.args[0], slots), flat);
      // Advance the reduction variables, the last one fastest.
      for (size_t r = m; r-- > 0;) {
        if (++idx[r] < e.reduce_extents[r]) {
          slots[e.reduce_slots[r]] = static_cast<double>(idx[r]);
          break;
        }
        idx[r] = 0;
        slots[e.reduce_slots[r]] = 0;
      }
    }
    return reduction.result();
  }

  const std::vector<Target>& targets_;
  std::function<double(int, const std::vector<int64_t>&)> stage_at_;
};

}  // namespace

struct ReferenceEvaluator::Impl {
  struct Stage {
    const FuncDef* def = nullptr;
    std::vector<int64_t> shape;
    RNode body;
    int slots = 0;
    std::vector<double> values;
    std::vector<uint8_t> done;
    bool complete = false;
  };

  SizeBindings sizes;
  HostBuffers inputs;
  std::vector<Target> targets;
  std::map<std::string, int> target_ids;
  std::vector<Stage> stages;
  std::map<std::string, int> stage_ids;
  Machine machine;

  Impl(const Pipeline& p, const SizeBindings& s, const HostBuffers& in)
      : sizes(s), machine(targets, [this](int stage, const std::vector<int64_t>& c) { return point(stage, c); }) {
    for (const auto& t : p.inputs()) {
      std::vector<int64_t> shape = eval_shape(t->shape, sizes);
      int64_t n = 1;
      for (int64_t d : shape) n *= d;
      auto it = in.find(t->name);
      if (it == in.end())
        fail("missing-input", "The reference needs the input '" + t->name + "', which was not given.",
             "Pass its " + std::to_string(n) + " values in the inputs map under the name '" + t->name + "'.");
      if (static_cast<int64_t>(it->second.size()) != n)
        fail("input-size-mismatch",
             "The input '" + t->name + "' has " + std::to_string(it->second.size()) + " values but its shape " +
                 coords_text(shape) + " holds " + std::to_string(n) + ".",
             "Pass exactly one value per element, row-major.");
      inputs[t->name] = it->second;
      Target target;
      target.name = t->name;
      target.shape = shape;
      target_ids[t->name] = static_cast<int>(targets.size());
      targets.push_back(target);
    }
    for (auto& t : targets) t.data = &inputs.at(t.name);
    for (const auto& f : p.stages()) {
      Stage st;
      st.def = f.get();
      st.shape = eval_shape(f->extents, sizes);
      int64_t n = 1;
      for (int64_t d : st.shape) n *= d;
      st.values.assign(n, 0.0);
      st.done.assign(n, 0);
      Target target;
      target.name = f->name;
      target.shape = st.shape;
      target.stage = static_cast<int>(stages.size());
      stage_ids[f->name] = target.stage;
      target_ids[f->name] = static_cast<int>(targets.size());
      targets.push_back(target);
      stages.push_back(std::move(st));
    }
    for (auto& st : stages) {
      std::map<std::string, int> slots;
      std::map<std::string, int64_t> extents;
      for (size_t v = 0; v < st.def->vars.size(); ++v) {
        slots[st.def->vars[v]] = static_cast<int>(v);
        extents[st.def->vars[v]] = st.shape[v];
      }
      Compiler c(sizes, slots, [this](const ExprNode& n) { return resolve(n); }, extents);
      st.body = c.compile(st.def->body);
      st.slots = c.total_slots();
    }
  }

  int resolve(const ExprNode& n) {
    auto it = target_ids.find(n.name);
    if (it == target_ids.end())
      fail("unknown-buffer",
           "The reference reads '" + n.name + "', which is neither an input nor a stage of the pipeline.",
           "Build the pipeline from the stages that are evaluated.");
    const Target& t = targets[it->second];
    if (n.args.size() != t.shape.size())
      fail("wrong-index-count",
           "'" + n.name + "' has " + std::to_string(t.shape.size()) + " dimensions but is read with " +
               std::to_string(n.args.size()) + " indices.",
           "Index it with one expression per dimension.");
    return it->second;
  }

  int stage_id(const std::string& name) const {
    auto it = stage_ids.find(name);
    if (it == stage_ids.end())
      fail("unknown-stage", "The pipeline has no stage named '" + name + "'.", "Ask for one of the pipeline's stages.");
    return it->second;
  }

  double point(int id, const std::vector<int64_t>& coords) {
    Stage& st = stages[id];
    int64_t flat = 0;
    for (size_t d = 0; d < coords.size(); ++d) flat = flat * st.shape[d] + coords[d];
    if (!st.done[flat] && st.def->is_scan()) {
      // The whole line along the scanned dimension at once, in one pass.
      std::vector<double> slots(st.slots, 0.0);
      for (size_t d = 0; d < coords.size(); ++d) slots[d] = static_cast<double>(coords[d]);
      const int sd = st.body.slot;
      int64_t stride = 1;
      for (size_t d = sd + 1; d < coords.size(); ++d) stride *= st.shape[d];
      const int64_t line = flat - coords[sd] * stride;
      machine.scan_line(st.body, slots, [&](int64_t position, double v) {
        if (!dtype_is_float(st.def->dtype)) v = to_integer(v, st.def->dtype);
        st.values[line + position * stride] = v;
        st.done[line + position * stride] = 1;
      });
    }
    if (!st.done[flat]) {
      std::vector<double> slots(st.slots, 0.0);
      for (size_t d = 0; d < coords.size(); ++d) slots[d] = static_cast<double>(coords[d]);
      double v = machine.eval(st.body, slots);
      if (!dtype_is_float(st.def->dtype)) v = to_integer(v, st.def->dtype);
      st.values[flat] = v;
      st.done[flat] = 1;
    }
    return st.values[flat];
  }

  const std::vector<double>& all(int id) {
    Stage& st = stages[id];
    if (st.complete) return st.values;
    const size_t rank = st.shape.size();
    std::vector<int64_t> coords(rank, 0);
    for (size_t flat = 0; flat < st.values.size(); ++flat) {
      point(id, coords);
      for (size_t d = rank; d-- > 0;) {
        if (++coords[d] < st.shape[d]) break;
        coords[d] = 0;
      }
    }
    st.complete = true;
    return st.values;
  }
};

ReferenceEvaluator::ReferenceEvaluator(const Pipeline& pipeline, const SizeBindings& sizes, const HostBuffers& inputs)
    : impl_(std::make_unique<Impl>(pipeline, sizes, inputs)) {}

ReferenceEvaluator::~ReferenceEvaluator() = default;

double ReferenceEvaluator::at(const std::string& stage, const std::vector<int64_t>& coords) {
  int id = impl_->stage_id(stage);
  const auto& shape = impl_->stages[id].shape;
  bool inside = coords.size() == shape.size();
  for (size_t d = 0; inside && d < coords.size(); ++d) inside = coords[d] >= 0 && coords[d] < shape[d];
  if (!inside)
    fail("out-of-bounds",
         "The point " + coords_text(coords) + " is outside stage '" + stage + "' of shape " + coords_text(shape) + ".",
         "Give one coordinate per dimension, each inside the stage's shape.");
  return impl_->point(id, coords);
}

const std::vector<double>& ReferenceEvaluator::values(const std::string& stage) {
  return impl_->all(impl_->stage_id(stage));
}

std::vector<int64_t> ReferenceEvaluator::shape(const std::string& stage) const {
  return impl_->stages[impl_->stage_id(stage)].shape;
}

double ReferenceEvaluator::eval(const Expr& e, const std::map<std::string, int64_t>& vars) {
  std::map<std::string, int> slots;
  for (const auto& [name, v] : vars) slots[name] = static_cast<int>(slots.size());
  Compiler c(impl_->sizes, slots, [this](const ExprNode& n) { return impl_->resolve(n); });
  RNode r = c.compile(e);
  std::vector<double> values(c.total_slots(), 0.0);
  for (const auto& [name, v] : vars) values[slots[name]] = static_cast<double>(v);
  return impl_->machine.eval(r, values);
}

HostBuffers evaluate_reference(const Pipeline& pipeline, const SizeBindings& sizes, const HostBuffers& inputs) {
  ReferenceEvaluator ev(pipeline, sizes, inputs);
  HostBuffers out;
  for (const auto& f : pipeline.stages()) out[f->name] = ev.values(f->name);
  return out;
}

double eval_expr_f64(const Expr& e, const std::map<std::string, double>& vars, const SizeBindings& sizes,
                     const HostBuffers& buffers) {
  std::vector<Target> targets;
  std::map<std::string, int> slots;
  for (const auto& [name, v] : vars) slots[name] = static_cast<int>(slots.size());
  auto resolve = [&](const ExprNode& n) {
    auto it = buffers.find(n.name);
    if (it == buffers.end())
      fail("missing-buffer", "The expression reads '" + n.name + "', which is not among the given buffers.",
           "Pass its values in the buffers map under the name '" + n.name + "'.");
    Target t;
    t.name = n.name;
    t.data = &it->second;
    std::vector<int64_t> shape;
    if (n.tensor)
      shape = eval_shape(n.tensor->shape, sizes);
    else if (n.func)
      shape = eval_shape(n.func->extents, sizes);
    if (n.args.size() == shape.size())
      t.shape = shape;
    else if (n.args.size() != 1)
      fail("wrong-index-count",
           "'" + n.name + "' is read with " + std::to_string(n.args.size()) + " indices but has " +
               std::to_string(shape.size()) + " dimensions.",
           "Index it with one expression per dimension, or with one flat index.");
    int64_t n_elems = 1;
    for (int64_t d : t.shape) n_elems *= d;
    if (!t.shape.empty() && n_elems != static_cast<int64_t>(it->second.size()))
      fail("input-size-mismatch",
           "The buffer '" + n.name + "' has " + std::to_string(it->second.size()) + " values but its shape holds " +
               std::to_string(n_elems) + ".",
           "Pass exactly one value per element, row-major.");
    targets.push_back(t);
    return static_cast<int>(targets.size()) - 1;
  };
  Compiler c(sizes, slots, resolve);
  RNode r = c.compile(e);
  std::vector<double> values(c.total_slots(), 0.0);
  for (const auto& [name, v] : vars) values[slots[name]] = v;
  Machine m(targets, [](int, const std::vector<int64_t>&) -> double { return 0; });
  return m.eval(r, values);
}

}  // namespace cusched
