// LayerNorm over the last three dims of (B, C, H, W), affine weight and bias as inputs.
#include "dsl/dsl.h"
#include "problems/baseline_steps.h"
#include "problems/problem_set.h"

namespace cusched {

Problem make_layernorm() {
  Size B("B"), C("C"), H("H"), W("W");
  Tensor X("X", DType::f32, {B, C, H, W});
  Tensor G("weight", DType::f32, {C, H, W}), Bt("bias", DType::f32, {C, H, W});
  Var b("b", B), c("c", C), h("h", H), w("w", W);
  RVar rc("rc", C), rh("rh", H), rw("rw", W);
  Expr n = cast(DType::f32, Expr(C) * Expr(H) * Expr(W));
  Func Mean = compute("Mean", {b}, sum({rc, rh, rw}, X(b, rc, rh, rw)));
  Func Var2 = compute("Var", {b}, sum({rc, rh, rw}, (X(b, rc, rh, rw) - Mean(b) / n) * (X(b, rc, rh, rw) - Mean(b) / n)));
  Func Y = compute("Y", {b, c, h, w},
                   (X(b, c, h, w) - Mean(b) / n) * rsqrt(Var2(b) / n + 1e-5f) * G(c, h, w) + Bt(c, h, w));
  Problem p;
  p.name = "layernorm";
  p.level = "1";
  p.title = "LayerNorm over the last three dimensions";
  p.torch_semantics = "torch.nn.functional.layer_norm(X, X.shape[1:], weight, bias, eps=1e-5)";
  p.notes = "Biased variance, eps = 1e-5, elementwise affine weight and bias given as inputs.";
  p.pipeline = Pipeline({Y});
  p.sizes = {{"small", {{"B", 2}, {"C", 4}, {"H", 6}, {"W", 8}}},
             {"bench", {{"B", 16}, {"C", 64}, {"H", 256}, {"W", 256}}}};
  p.inputs = {{"X", {"normal", 0, 1}, InputDistribution{"normal", 100, 0.5}},
              {"weight", {"normal", 1, 0.1}, std::nullopt},
              {"bias", {"normal", 0, 0.1}, std::nullopt}};
  p.flops = [](const SizeBindings& s) { return 8.0 * s.at("B") * s.at("C") * s.at("H") * s.at("W"); };
  p.baseline_schedule = nlohmann::json::parse(R"([
    {"op": "split", "stage": "Mean", "loop": "b", "factor": 16},
    {"op": "bind", "stage": "Mean", "loop": "bo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Mean", "loop": "bi", "axis": "threadIdx.x"},
    {"op": "split", "stage": "Var", "loop": "b", "factor": 16},
    {"op": "bind", "stage": "Var", "loop": "bo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Var", "loop": "bi", "axis": "threadIdx.x"},
    {"op": "fuse", "stage": "Y", "outer": "h", "inner": "w", "fused": "hw"},
    {"op": "split", "stage": "Y", "loop": "hw", "factor": 256},
    {"op": "bind", "stage": "Y", "loop": "b", "axis": "blockIdx.z"},
    {"op": "bind", "stage": "Y", "loop": "c", "axis": "blockIdx.y"},
    {"op": "bind", "stage": "Y", "loop": "hwo", "axis": "blockIdx.x"},
    {"op": "bind", "stage": "Y", "loop": "hwi", "axis": "threadIdx.x"}
  ])");
  p.best_schedule = concat_steps({nlohmann::json::parse(R"([
    {"op": "rfactor", "stage": "Mean", "loop": "rc", "name": "Mean_rf"},
    {"op": "fuse", "stage": "Mean_rf", "outer": "rc", "inner": "b", "fused": "rcb"},
    {"op": "bind", "stage": "Mean_rf", "loop": "rcb", "axis": "blockIdx.x"},
    {"op": "cross_thread_reduce", "stage": "Mean_rf", "loop": "rw", "kind": "block"},
    {"op": "bind", "stage": "Mean", "loop": "b", "axis": "blockIdx.x"},
    {"op": "cross_thread_reduce", "stage": "Mean", "loop": "rc", "kind": "block"},
    {"op": "rfactor", "stage": "Var", "loop": "rc", "name": "Var_rf"},
    {"op": "fuse", "stage": "Var_rf", "outer": "rc", "inner": "b", "fused": "rcb"},
    {"op": "bind", "stage": "Var_rf", "loop": "rcb", "axis": "blockIdx.x"},
    {"op": "cross_thread_reduce", "stage": "Var_rf", "loop": "rw", "kind": "block"},
    {"op": "bind", "stage": "Var", "loop": "b", "axis": "blockIdx.x"},
    {"op": "cross_thread_reduce", "stage": "Var", "loop": "rc", "kind": "block"}
  ])"),
                                   vector4_grid_steps("Y", "b", "c", "h", "w")});
  return p;
}

}  // namespace cusched
