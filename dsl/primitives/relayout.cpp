// relayout: a stage of its own that copies an input with its dimensions in another order,
// read by the stage instead of the input.
#include <algorithm>

#include "dsl/error.h"
#include "dsl/expr_substitute.h"
#include "dsl/primitives/arg_helpers.h"

namespace cusched {

namespace {

void apply_relayout(ScheduleState& st, StepJson& step) {
  const std::string stage = step["stage"], source = step["source"];
  st.stage(stage);
  const FuncDef* f = st.stage_def(stage);
  const TensorDef* in = st.ctx.pipeline.find_input(source);
  if (!in)
    fail("relayout-not-input", "relayout copies an input of the pipeline, but '" + source + "' is not one.",
         "Name an input tensor that stage '" + stage + "' reads.");
  if (!loads_from(f->body, source))
    fail("relayout-not-read", "Stage '" + stage + "' does not read '" + source + "'.",
         "Name an input that the stage reads.");
  const auto& order_json = step["order"];
  const size_t rank = in->shape.size();
  std::vector<size_t> order;
  for (const auto& v : order_json)
    order.push_back(static_cast<size_t>(v.get<int64_t>()));  // negatives wrap: never a dimension
  std::vector<size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == rank;
  for (size_t i = 0; permutation && i < rank; ++i) permutation = sorted[i] == i;
  if (!permutation)
    fail("bad-relayout-order",
         "relayout's order " + order_json.dump() + " is not a permutation of the " + std::to_string(rank) +
             " dimensions of '" + source + "'.",
         "List each dimension of '" + source + "' once, 0 to " + std::to_string(rank - 1) +
             ", outermost first in the new layout.");
  for (const auto& cr : st.schedules.at(stage).cache_reads)
    if (cr.source == source)
      fail("relayout-after-cache-read",
           "Stage '" + stage + "' already stages '" + source +
               "' (cache_read), which would then read a tensor the "
               "stage no longer reads.",
           "Apply relayout before the cache_read of '" + source + "', and stage the new tensor instead.");
  if (step["name"].is_null()) step["name"] = source + "_relayout";
  const std::string name = step["name"];
  require_new_stage_name(st, name);

  // The new stage: name(d0, ..., dn-1) = source(...) with source dimension order[i] at di.
  auto copy = std::make_shared<FuncDef>();
  copy->name = name;
  copy->dtype = in->dtype;
  std::vector<Expr> at(rank);
  for (size_t i = 0; i < rank; ++i) {
    const std::string v = "d" + std::to_string(i);
    copy->vars.push_back(v);
    copy->extents.push_back(in->shape[order[i]]);
    at[order[i]] = make_var(v);
  }
  copy->body = make_load(source, in->dtype, at);

  // The stage reads the new tensor: source(a0, ..., an-1) becomes name(a[order[0]], ...),
  // padded loads staying padded.
  auto reader = std::make_shared<FuncDef>(*f);
  reader->body = rewrite(f->body, [&](const Expr& x) {
    if (x->op != ExprOp::Load || x->name != source) return x;
    ExprNode n = *x;
    n.name = name;
    n.tensor = nullptr;
    n.func = nullptr;
    n.args.clear();
    for (size_t i = 0; i < rank; ++i) n.args.push_back(x->args[order[i]]);
    return make_node(n);
  });
  for (auto& sd : st.stages)
    if (sd->name == stage) sd = reader;
  auto pos = std::find_if(st.stages.begin(), st.stages.end(), [&](const auto& sd) { return sd->name == stage; });
  st.stages.insert(pos, copy);
  st.schedules[name] = ScheduleState::initial_schedule(*copy, st.ctx.sizes);
}

}  // namespace

PrimitiveDef relayout_primitive() {
  PrimitiveDef p;
  p.name = "relayout";
  p.summary =
      "Copies an input into a new tensor with its dimensions in another order, as a stage of its own (computed at "
      "root, its own kernel, before the stage), and makes the stage read the copy instead of the input: say a "
      "convolution's weights (o, rc, kh, kw) as (kh, kw, o, rc), so that each tap's slice is rows that run along "
      "the reduction, which staged copies move 16 bytes at a time and tensor cores read as K-major rows. Schedule "
      "the new stage like any other (a flat grid).";
  ArgSpec order;
  order.name = "order";
  order.type = ArgType::IntList;
  order.doc =
      "The input's dimensions (0 = outermost) in the new tensor's order, outermost first: a permutation of all of "
      "them.";
  p.args = {stage_arg(true), name_arg("source", "The input to copy."), order,
            name_arg("name", "Name of the new stage (default source + \"_relayout\").", false)};
  p.before = "C(o, y) = sum(rc, kh: W(o, rc, kh) * X(rc, y + kh))";
  p.after =
      "W_relayout(d0, d1, d2) = W(d1, d2, d0)   (its own kernel)\nC(o, y) = sum(rc, kh: W_relayout(kh, o, rc) * "
      "X(rc, y + kh))";
  p.example = R"({"op": "relayout", "stage": "C", "source": "W", "order": [2, 0, 1]})";
  p.apply = apply_relayout;
  return p;
}

}  // namespace cusched
