#include "search/cost_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "codegen/linear_form.h"
#include "codegen/mma_layout.h"

namespace cusched::search {
namespace {

constexpr double kBandwidth = 4.2e12;  // bytes/s, measured copy bandwidth
constexpr double kF32Rate = 51e12;     // FLOP/s on CUDA cores
constexpr double kTf32Rate = 364e12;   // FLOP/s of dense TF32 mma
constexpr double kHalfRate = 730e12;   // FLOP/s of dense BF16/F16 mma
constexpr double kLaunchMs = 0.003;
constexpr double kMachineThreads = 132.0 * 2048.0;

struct Walker {
  std::set<std::string> globals;
  double bytes = 0, flops = 0;

  void expr(const Expr& e, double mult, const std::string& tx_var, const std::string& vec_var) {
    if (!e.defined()) return;
    if (e->op == ExprOp::Load && globals.count(e->name)) access(e->args[0], mult, tx_var, vec_var, dtype_bytes(e.type()));
    if (dtype_is_float(e.type()) && e->op != ExprOp::Load && e->op != ExprOp::FloatImm && e->op != ExprOp::Cast) flops += mult;
    for (const auto& a : e->args) expr(a, mult, tx_var, vec_var);
  }

  void access(const Expr& index, double mult, const std::string& tx_var, const std::string& vec_var, int elem) {
    auto a = linear_form(index);
    double cost = 32;  // one sector per access when uncoalesced or unknown
    if (a) {
      auto coeff = [&](const std::string& v) {
        auto it = a->coeff.find(v);
        return it == a->coeff.end() ? 0 : it->second;
      };
      int64_t ct = tx_var.empty() ? 0 : coeff(tx_var);
      int64_t cv = vec_var.empty() ? 0 : coeff(vec_var);
      if (!vec_var.empty() && cv == 1) cost = elem;  // contiguous vector
      else if (ct == 0) cost = tx_var.empty() ? elem : elem / 32.0;  // broadcast across the warp
      else if (std::abs(ct) == 1) cost = elem;
      else cost = std::min<double>(32, elem * std::abs(ct));
    }
    bytes += mult * cost;
  }

  void stmt(const Stmt& s, double mult, std::string tx_var, std::string vec_var) {
    switch (s->kind) {
      case StmtKind::For: {
        int64_t e = 1;
        is_const_int(s->extent, &e);
        if (s->axis == GpuAxis::ThreadX) tx_var = s->var;
        if (s->loop_kind == LoopKind::Vectorized) vec_var = s->var;
        stmt(s->body[0], mult * static_cast<double>(e), tx_var, vec_var);
        return;
      }
      case StmtKind::Store:
        expr(s->value, mult, tx_var, vec_var);
        if (globals.count(s->buffer)) access(s->index, mult, tx_var, vec_var, 4);
        return;
      case StmtKind::If:
        expr(s->cond, mult, tx_var, vec_var);
        break;
      case StmtKind::AsyncCopy:
        expr(s->value, mult, tx_var, vec_var);
        return;
      case StmtKind::Mma: {
        // Each lane's share of the warp's 2*m*n*k, in CUDA-core-equivalent FLOP (the
        // tensor-core rate relative to the f32 rate; 3xtf32 does three products).
        const MmaLayout& l = mma_layout(s->mma_shape);
        for (const auto& o : s->operands) expr(o, mult, tx_var, vec_var);
        double rate = s->mma_precision == "bf16" || s->mma_precision == "f16" ? kHalfRate : kTf32Rate;
        double products = s->mma_precision == "3xtf32" ? 3 : 1;
        flops += mult * products * 2.0 * l.m * l.n * l.k / 32.0 * kF32Rate / rate;
        return;
      }
      default:
        break;
    }
    for (const auto& c : s->body) stmt(c, mult, tx_var, vec_var);
  }
};

}  // namespace

CostBreakdown estimate_cost(const LoweredProgram& program) {
  CostBreakdown c;
  double occ_sum = 0;
  for (const auto& k : program.kernels) {
    Walker w;
    for (const auto& p : k.params) w.globals.insert(p);
    w.stmt(k.body, 1.0, "", "");
    double threads = static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2] * k.block[0] * k.block[1] * k.block[2]);
    double occupancy = std::min(1.0, threads / kMachineThreads);
    // Small blocks and tiny grids cannot keep enough memory requests in flight.
    double block = static_cast<double>(k.block[0] * k.block[1] * k.block[2]);
    double efficiency = std::max(0.02, occupancy) * (block < 64 ? 0.5 : 1.0);
    double ms = std::max(w.bytes / (kBandwidth * efficiency), w.flops / (kF32Rate * std::max(0.02, occupancy))) * 1e3 + kLaunchMs;
    c.ms += ms;
    c.global_bytes += w.bytes;
    c.flops += w.flops;
    occ_sum += occupancy;
    ++c.kernels;
  }
  c.occupancy = c.kernels ? occ_sum / c.kernels : 0;
  return c;
}

}  // namespace cusched::search
