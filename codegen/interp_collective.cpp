// The interpreter's statements that every thread of the block (the cluster) runs
// together: loops and Ifs around barriers, Barrier, AllReduce within the block and
// across a cluster, and the dispatch of the warp-wide tensor-core statements.
#include <cmath>
#include <limits>

#include "codegen/interp_rounding.h"
#include "codegen/interp_runner.h"
#include "codegen/ldmatrix.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched::interp {

void KernelRunner::divergent(const std::string& what) {
  fail("divergent-barrier",
       "In kernel '" + k_.name + "', block " + block_text() + ", " + what +
           ", so a barrier or all-reduce inside it is not reached by every thread of the block.",
       "Move the barrier out of thread-dependent control flow: make loop bounds and conditions around it the same "
       "in all threads, and give thread loops around it the block's full extent.");
}

double KernelRunner::uniform(const CExpr& e, const std::string& what) {
  double first = 0;
  for (int64_t t = 0; t < threads_; ++t) {
    set_thread(t);
    double v = eval(e);
    if (t == 0)
      first = v;
    else if (!(v == first))
      divergent(what + " is " + number(first) + " in thread " + thread_text(0) + " but " + number(v) + " in thread " +
                thread_text(t));
  }
  return first;
}

void KernelRunner::exec_collective(const CStmt& s) {
  switch (s.kind) {
    case StmtKind::Block:
      for (const auto& c : s.body) {
        if (c.collective) {
          exec_collective(c);
        } else {
          for (int64_t t = 0; t < threads_; ++t) {
            set_thread(t);
            exec_thread(c);
          }
        }
      }
      return;
    case StmtKind::For: {
      const std::string& var = k_.slot_names[s.slot];
      int ax = gpu_axis_dimension(s.axis);
      if (is_block_axis(s.axis)) {
        double extent = uniform(s.extent, "the extent of block loop '" + var + "'");
        if (static_cast<double>(bidx_[ax]) >= extent) return;
        for (int64_t t = 0; t < threads_; ++t) {
          set_thread(t);
          tenv_[s.slot] = eval(s.min) + static_cast<double>(bidx_[ax]);
        }
        exec_collective(s.body[0]);
        return;
      }
      if (s.axis == GpuAxis::ClusterX) {
        double extent = uniform(s.extent, "the extent of cluster loop '" + var + "'");
        if (extent != static_cast<double>(cluster_))
          divergent("cluster loop '" + var + "' has extent " + number(extent) + " but the cluster has " +
                    std::to_string(cluster_) + " blocks");
        for (int64_t t = 0; t < threads_; ++t) {
          set_thread(t);
          tenv_[s.slot] = eval(s.min) + tenv_[kBlockX];
        }
        exec_collective(s.body[0]);
        return;
      }
      if (is_thread_axis(s.axis)) {
        double extent = uniform(s.extent, "the extent of thread loop '" + var + "'");
        if (extent != static_cast<double>(k_.block[ax]))
          divergent("thread loop '" + var + "' has extent " + number(extent) + " but the block has " +
                    std::to_string(k_.block[ax]) + " threads on " + gpu_axis_name(s.axis));
        for (int64_t t = 0; t < threads_; ++t) {
          set_thread(t);
          tenv_[s.slot] = eval(s.min) + tenv_[kThreadX + ax];
        }
        exec_collective(s.body[0]);
        return;
      }
      double lo = uniform(s.min, "the lower bound of loop '" + var + "'");
      double extent = uniform(s.extent, "the extent of loop '" + var + "'");
      for (double v = 0; v < extent; ++v) {
        step(threads_);
        for (int64_t t = 0; t < threads_; ++t) env_[t * nslots_ + s.slot] = lo + v;
        exec_collective(s.body[0]);
      }
      return;
    }
    case StmtKind::If: {
      double c = uniform(s.cond, "the condition '" + to_string(s.source->cond) + "'");
      if (c != 0)
        exec_collective(s.body[0]);
      else if (s.body.size() > 1)
        exec_collective(s.body[1]);
      return;
    }
    case StmtKind::Allocate:
      if (k_.buffers[s.buffer].scope == MemScope::Register)
        std::fill(bufs_[s.buffer].own_init.begin(), bufs_[s.buffer].own_init.end(), 0);
      exec_collective(s.body[0]);
      return;
    case StmtKind::Barrier:
      ++stats_.barriers;
      ++epoch_;
      return;
    case StmtKind::AllReduce:
      allreduce(s);
      return;
    case StmtKind::Scan:
      scan(s);
      return;
    case StmtKind::Mma:
      mma(s);
      return;
    case StmtKind::LdMatrix:
      ldmatrix(s);
      return;
    case StmtKind::Wgmma:
      wgmma(s);
      return;
    case StmtKind::WgmmaFence:
      return;
    case StmtKind::WgmmaCommit:
      wgmma_groups_.push_back(std::move(open_wgmma_));
      open_wgmma_.clear();
      return;
    case StmtKind::WgmmaWait:
      while (static_cast<int64_t>(wgmma_groups_.size()) > s.width) {
        retire_wgmma_group(wgmma_groups_.front());
        wgmma_groups_.pop_front();
      }
      return;
    case StmtKind::AsyncProxyFence:
    case StmtKind::Store:
    case StmtKind::AsyncCopy:
    case StmtKind::AsyncCommit:
    case StmtKind::AsyncWait:
    case StmtKind::BulkCopy:
    case StmtKind::TensorCopy:
    case StmtKind::MbarrierInit:
    case StmtKind::MbarrierExpect:
    case StmtKind::MbarrierWait:
      fail("internal-error", "The interpreter ran a per-thread statement as a collective statement.",
           "Report this as a bug in the interpreter.");
  }
}

KernelRunner::Pair KernelRunner::combine(const Pair& a, const Pair& b, ReduceOp op, DType dtype) const {
  switch (op) {
    case ReduceOp::Sum:
      return {convert_to_dtype(a.value + b.value, dtype), 0};
    case ReduceOp::Product:
      return {convert_to_dtype(a.value * b.value, dtype), 0};
    case ReduceOp::Min:
      return {std::fmin(a.value, b.value), 0};
    case ReduceOp::Max:
      return {std::fmax(a.value, b.value), 0};
    case ReduceOp::ArgMax:
      return (b.value > a.value || (b.value == a.value && b.second < a.second)) ? b : a;
    case ReduceOp::ArgMin:
      return (b.value < a.value || (b.value == a.value && b.second < a.second)) ? b : a;
    case ReduceOp::Variance: {
      // Chan's rule on (mean, squares, count), as the device library's VarianceOp combines
      // them: the operands in one order first, f32 arithmetic.
      const bool swap = b.third > a.third ||
                        (b.third == a.third && (b.value < a.value || (b.value == a.value && b.second < a.second)));
      const Pair& x = swap ? b : a;
      const Pair& y = swap ? a : b;
      const double n = convert_to_dtype(x.third + y.third, dtype);
      if (n == 0) return a;
      const double d = convert_to_dtype(y.value - x.value, dtype), f = convert_to_dtype(y.third / n, dtype);
      const double mean = convert_to_dtype(x.value + convert_to_dtype(d * f, dtype), dtype);
      const double dd = convert_to_dtype(convert_to_dtype(convert_to_dtype(d * d, dtype) * x.third, dtype) * f, dtype);
      return {mean, convert_to_dtype(convert_to_dtype(x.second + y.second, dtype) + dd, dtype), n};
    }
    case ReduceOp::LogSumExp: {
      // The running maxima and the sums of exp(v - maximum), as the device library's
      // LogSumExpOp combines them (f32 arithmetic, the same expression in every order).
      if (std::isnan(a.value) || std::isnan(b.value)) return {std::nan(""), std::nan("")};
      const double m = std::fmax(a.value, b.value);
      auto scaled = [&](const Pair& p) {
        return p.value == m ? p.second
                            : convert_to_dtype(p.second * convert_to_dtype(std::exp(p.value - m), dtype), dtype);
      };
      return {m, convert_to_dtype(scaled(a) + scaled(b), dtype)};
    }
  }
  return a;
}

void KernelRunner::butterfly(std::vector<Pair>& v, ReduceOp op, DType dtype) const {
  size_t n = v.size();
  bool power_of_two = (n & (n - 1)) == 0;
  if (!power_of_two) {
    Pair acc = v[0];
    for (size_t j = 1; j < n; ++j) acc = combine(acc, v[j], op, dtype);
    std::fill(v.begin(), v.end(), acc);
    return;
  }
  std::vector<Pair> next(n);
  auto exchange = [&](size_t offset) {
    for (size_t j = 0; j < n; ++j) next[j] = combine(v[j], v[j ^ offset], op, dtype);
    v.swap(next);
  };
  size_t chunk = n < 32 ? n : 32;
  for (size_t off = chunk / 2; off >= 1; off /= 2) exchange(off);
  for (size_t off = n / 2; off >= chunk; off /= 2) exchange(off);
}

void KernelRunner::allreduce(const CStmt& s) {
  ++stats_.allreduces;
  step(threads_);
  const bool pair = s.pair_buffer >= 0;
  const InterpBuffer& vinfo = k_.buffers[s.buffer];
  std::vector<int64_t> element(threads_);
  std::vector<Pair> contrib(threads_);
  for (int64_t t = 0; t < threads_; ++t) {
    set_thread(t);
    double index = eval(s.index);
    contrib[t].value = load(s.buffer, index);
    contrib[t].second = pair ? load(s.pair_buffer, index) : 0;
    contrib[t].third = s.third_buffer >= 0 ? load(s.third_buffer, index) : 0;
    element[t] = static_cast<int64_t>(index);
  }
  if (s.cluster_kind) {
    cluster_allreduce(s, contrib, element, vinfo.dtype);
    return;
  }
  const int ax = s.reduce_axis;
  const int64_t stride = ax == 0 ? 1 : ax == 1 ? k_.block[0] : k_.block[0] * k_.block[1];
  std::vector<Pair> group(s.width);
  for (int64_t t = 0; t < threads_; ++t) {
    int64_t coord = static_cast<int64_t>(env_[t * nslots_ + kThreadX + ax]);
    if (coord % s.width != 0) continue;  // t leads its group
    for (int64_t j = 0; j < s.width; ++j) {
      int64_t member = t + j * stride;
      if (!s.block_kind && (member % tpb_) / 32 != (t % tpb_) / 32)
        fail(
            "warp-allreduce-spans-warps",
            "In kernel '" + k_.name + "', a warp all-reduce over " + std::to_string(s.width) + " threads along " +
                gpu_axis_name(static_cast<GpuAxis>(static_cast<int>(GpuAxis::ThreadX) + ax)) + " groups threads " +
                thread_text(t) + " and " + thread_text(member) + " of different warps.",
            "Use the block kind for groups that span warps, or reduce over threadIdx.x with a width that fits a warp.");
      group[j] = contrib[member];
    }
    butterfly(group, s.reduce_op, vinfo.dtype);
    for (int64_t j = 0; j < s.width; ++j) {
      int64_t member = t + j * stride;
      set_thread(member);
      store(s.buffer, static_cast<double>(element[member]), group[j].value);
      if (pair) store(s.pair_buffer, static_cast<double>(element[member]), group[j].second);
      if (s.third_buffer >= 0) store(s.third_buffer, static_cast<double>(element[member]), group[j].third);
    }
  }
  if (s.block_kind) ++epoch_;  // a block all-reduce synchronizes the block through shared memory
}

// Each aligned group of `width` threads along x in thread order: every thread's value
// becomes the combination of the values before it (the identity for the first), and
// the total goes to every thread's source[0]. Values are rounded to the buffer's type
// after every combination, as the device's shuffles would.
void KernelRunner::scan(const CStmt& s) {
  ++stats_.allreduces;
  step(threads_);
  const DType dtype = k_.buffers[s.buffer].dtype;
  std::vector<int64_t> element(threads_);
  std::vector<double> value(threads_);
  for (int64_t t = 0; t < threads_; ++t) {
    set_thread(t);
    element[t] = static_cast<int64_t>(eval(s.index));
    value[t] = load(s.buffer, static_cast<double>(element[t]));
  }
  const double identity = s.reduce_op == ReduceOp::Product ? 1 : 0;
  for (int64_t t = 0; t < threads_; ++t) {
    const int64_t coord = static_cast<int64_t>(env_[t * nslots_ + kThreadX]);
    if (coord % s.width != 0) continue;  // t leads its group
    double acc = identity;
    std::vector<double> prefix(s.width);
    for (int64_t j = 0; j < s.width; ++j) {
      prefix[j] = acc;
      acc = combine({acc, 0}, {value[t + j], 0}, s.reduce_op, dtype).value;
    }
    for (int64_t j = 0; j < s.width; ++j) {
      set_thread(t + j);
      store(s.buffer, static_cast<double>(element[t + j]), prefix[j]);
      store(s.source_buffer, 0, acc);
    }
  }
  if (s.width > 32) ++epoch_;  // a scan across warps synchronizes the block through shared memory
}

void KernelRunner::cluster_allreduce(const CStmt& s, const std::vector<Pair>& contrib,
                                     const std::vector<int64_t>& element, DType dtype) {
  const bool pair = s.pair_buffer >= 0;
  for (int64_t lt = 0; lt < tpb_; ++lt) {
    Pair acc = contrib[lt];
    for (int64_t r = 1; r < cluster_; ++r) acc = combine(acc, contrib[r * tpb_ + lt], s.reduce_op, dtype);
    for (int64_t r = 0; r < cluster_; ++r) {
      const int64_t member = r * tpb_ + lt;
      set_thread(member);
      store(s.buffer, static_cast<double>(element[member]), acc.value);
      if (pair) store(s.pair_buffer, static_cast<double>(element[member]), acc.second);
      if (s.third_buffer >= 0) store(s.third_buffer, static_cast<double>(element[member]), acc.third);
    }
  }
  ++epoch_;
}

}  // namespace cusched::interp
