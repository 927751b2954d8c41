// The CPU interpreter of the loop IR: each kernel compiled (interp_kernel.h) and run
// over its grid by a KernelRunner (interp_runner.h).
#include "codegen/interpreter.h"

#include <cmath>
#include <limits>

#include "codegen/interp_rounding.h"
#include "codegen/interp_runner.h"
#include "dsl/error.h"

namespace cusched {

namespace interp {

KernelRunner::KernelRunner(const CompiledKernel& k, HostBuffers& host, const InterpOptions& opt, InterpStats& stats)
    : k_(k), opt_(opt), stats_(stats) {
  tpb_ = k.block[0] * k.block[1] * k.block[2];
  cluster_ = k.cluster;
  threads_ = tpb_ * cluster_;
  nslots_ = static_cast<int>(k.slot_names.size());
  env_.assign(threads_ * nslots_, 0.0);
  bufs_.resize(k.buffers.size());
  for (size_t b = 0; b < k.buffers.size(); ++b) {
    const InterpBuffer& info = k.buffers[b];
    BufferState& s = bufs_[b];
    switch (info.scope) {
      case MemScope::Global:
        s.data = host.at(info.name).data();
        // Inputs are never written (the compiler rejects it), so their reads cannot race.
        if (opt.detect_races && info.role != BufferRole::Input) s.access.assign(info.size, AccessRecord{});
        break;
      case MemScope::Shared: {
        const int64_t n = info.size * cluster_;  // one copy per block of the cluster
        s.own.assign(n, 0.0);
        s.own_init.assign(n, 0);
        s.pending.assign(n, 0);
        s.bulk_barrier.assign(n, -1);
        s.bulk_phase.assign(n, 0);
        if (opt.detect_races) s.access.assign(n, AccessRecord{});
        break;
      }
      case MemScope::Register:
        s.own.assign(info.size * threads_, 0.0);
        s.own_init.assign(info.size * threads_, 0);
        break;
    }
    if (info.scope != MemScope::Global) {
      s.data = s.own.data();
      s.init = s.own_init.data();
    }
  }
}

void KernelRunner::run() {
  for (int64_t bz = 0; bz < k_.grid[2]; ++bz)
    for (int64_t by = 0; by < k_.grid[1]; ++by)
      for (int64_t bx = 0; bx < k_.grid[0]; bx += cluster_) run_block(bx, by, bz);
}

void KernelRunner::run_block(int64_t bx, int64_t by, int64_t bz) {
  bidx_ = {bx, by, bz};
  block_linear_ = bx + k_.grid[0] * (by + k_.grid[1] * bz);
  ++epoch_;
  for (int64_t t = 0; t < threads_; ++t) {
    double* e = &env_[t * nslots_];
    const int64_t lt = t % tpb_;
    const std::array<int64_t, 3> xyz = thread_xyz(lt);
    e[kThreadX] = static_cast<double>(xyz[0]);
    e[kThreadY] = static_cast<double>(xyz[1]);
    e[kThreadZ] = static_cast<double>(xyz[2]);
    e[kBlockX] = static_cast<double>(bx + t / tpb_);
    e[kBlockY] = static_cast<double>(by);
    e[kBlockZ] = static_cast<double>(bz);
    e[kTid] = static_cast<double>(lt);
  }
  for (size_t b = 0; b < k_.buffers.size(); ++b)
    if (k_.buffers[b].scope == MemScope::Shared) {
      std::fill(bufs_[b].own_init.begin(), bufs_[b].own_init.end(), 0);
      std::fill(bufs_[b].pending.begin(), bufs_[b].pending.end(), 0);
      std::fill(bufs_[b].bulk_barrier.begin(), bufs_[b].bulk_barrier.end(), -1);
    }
  open_copies_.assign(threads_, {});
  copy_groups_.assign(threads_, {});
  mbarrier_ids_.clear();
  mbarriers_.clear();
  observed_phases_.assign(threads_, {});
  open_wgmma_.clear();
  wgmma_groups_.clear();
  wgmma_acc_.clear();
  stats_.blocks += cluster_;
  stats_.threads += threads_;
  if (k_.body.collective) {
    exec_collective(k_.body);
  } else {
    for (int64_t t = 0; t < threads_; ++t) {
      set_thread(t);
      exec_thread(k_.body);
    }
  }
  if (!open_wgmma_.empty() || !wgmma_groups_.empty())
    fail("wgmma-not-waited",
         "Kernel '" + k_.name + "', block " + block_text() +
             " ends with warpgroup tensor-core instructions in flight (" + std::to_string(wgmma_groups_.size()) +
             " committed groups, " + std::to_string(open_wgmma_.size()) + " uncommitted instructions).",
         "Commit every wgmma and wait for all groups (wgmma_wait 0) before the accumulators are read and the kernel "
         "ends.");
}

void KernelRunner::set_thread(int64_t t) {
  t_ = t;
  tenv_ = &env_[t * nslots_];
}

std::array<int64_t, 3> KernelRunner::thread_xyz(int64_t lt) const {
  return {lt % k_.block[0], (lt / k_.block[0]) % k_.block[1], lt / (k_.block[0] * k_.block[1])};
}

std::string KernelRunner::thread_triple(int64_t lt) const {
  const std::array<int64_t, 3> xyz = thread_xyz(lt);
  return triple(xyz[0], xyz[1], xyz[2]);
}

std::string KernelRunner::thread_text(int64_t t) const {
  const int64_t lt = t % tpb_;
  std::string s = thread_triple(lt);
  if (cluster_ > 1) s += " of block " + triple(bidx_[0] + t / tpb_, bidx_[1], bidx_[2]);
  return s;
}

std::string KernelRunner::where() const {
  return "kernel '" + k_.name + "', block " + block_text() + ", thread " + thread_text(t_);
}

void KernelRunner::step(int64_t n) {
  stats_.steps += n;
  if (stats_.steps > opt_.max_steps)
    fail("interp-step-limit",
         "The interpreter stopped after " + std::to_string(opt_.max_steps) +
             " steps (loop iterations and stores) in kernel '" + k_.name + "'.",
         "Interpret a smaller problem size, or raise InterpOptions::max_steps.");
}

void KernelRunner::division_by_zero(const CExpr& e) {
  fail("division-by-zero", "In " + where() + ", the integer expression '" + to_string(e.source) + "' divides by zero.",
       "Guard the division or fix the divisor.");
}

double KernelRunner::eval(const CExpr& e) {
  const CExpr* a = e.args.data();
  double r = 0;
  switch (e.op) {
    case IOp::Const:
      return e.imm;
    case IOp::Var:
      return tenv_[e.slot];
    case IOp::Add:
      r = eval(a[0]) + eval(a[1]);
      break;
    case IOp::Sub:
      r = eval(a[0]) - eval(a[1]);
      break;
    case IOp::Mul:
      r = eval(a[0]) * eval(a[1]);
      break;
    case IOp::FloatDiv:
      r = eval(a[0]) / eval(a[1]);
      break;
    case IOp::IntDiv: {
      int64_t x = static_cast<int64_t>(eval(a[0])), y = static_cast<int64_t>(eval(a[1]));
      if (y == 0) division_by_zero(e);
      r = static_cast<double>(x / y);
      break;
    }
    case IOp::FloatMod:
      r = std::fmod(eval(a[0]), eval(a[1]));
      break;
    case IOp::IntMod: {
      int64_t x = static_cast<int64_t>(eval(a[0])), y = static_cast<int64_t>(eval(a[1]));
      if (y == 0) division_by_zero(e);
      r = static_cast<double>(x % y);
      break;
    }
    case IOp::FloatMin:
      r = std::fmin(eval(a[0]), eval(a[1]));
      break;
    case IOp::FloatMax:
      r = std::fmax(eval(a[0]), eval(a[1]));
      break;
    case IOp::IntMin: {
      double x = eval(a[0]), y = eval(a[1]);
      r = y < x ? y : x;
      break;
    }
    case IOp::IntMax: {
      double x = eval(a[0]), y = eval(a[1]);
      r = y > x ? y : x;
      break;
    }
    case IOp::Pow:
      r = std::pow(eval(a[0]), eval(a[1]));
      break;
    case IOp::IntXor:
      r = static_cast<double>(static_cast<int64_t>(eval(a[0])) ^ static_cast<int64_t>(eval(a[1])));
      break;
    case IOp::EQ:
      return eval(a[0]) == eval(a[1]) ? 1.0 : 0.0;
    case IOp::NE:
      return eval(a[0]) != eval(a[1]) ? 1.0 : 0.0;
    case IOp::LT:
      return eval(a[0]) < eval(a[1]) ? 1.0 : 0.0;
    case IOp::LE:
      return eval(a[0]) <= eval(a[1]) ? 1.0 : 0.0;
    case IOp::GT:
      return eval(a[0]) > eval(a[1]) ? 1.0 : 0.0;
    case IOp::GE:
      return eval(a[0]) >= eval(a[1]) ? 1.0 : 0.0;
    case IOp::And:
      return (eval(a[0]) != 0 && eval(a[1]) != 0) ? 1.0 : 0.0;
    case IOp::Or:
      return (eval(a[0]) != 0 || eval(a[1]) != 0) ? 1.0 : 0.0;
    case IOp::Not:
      return eval(a[0]) == 0 ? 1.0 : 0.0;
    case IOp::Neg:
      r = -eval(a[0]);
      break;
    case IOp::Select:
      r = eval(a[0]) != 0 ? eval(a[1]) : eval(a[2]);
      break;
    case IOp::Cast:
      return convert_to_dtype(eval(a[0]), e.type);
    case IOp::Math: {
      double x[kMaxMathParams] = {};
      for (size_t i = 0; i < e.args.size(); ++i) x[i] = eval(a[i]);
      r = e.fn->exact(x);
      break;
    }
    case IOp::RoundTf32:
      r = round_to_tf32(eval(a[0]));
      break;
    case IOp::RoundBf16:
      r = round_to_bf16(eval(a[0]));
      break;
    case IOp::RoundF16:
      r = round_to_f16(eval(a[0]));
      break;
    case IOp::Load:
      r = load(e.buffer, eval(a[0]));
      break;
    case IOp::Affine: {
      r = e.imm;
      for (const auto& [slot, coef] : e.slot_terms) r += coef * tenv_[slot];
      for (size_t i = 0; i < e.args.size(); ++i) r += e.arg_coefs[i] * eval(a[i]);
      return r;
    }
  }
  switch (e.rounding) {
    case Rounding::None:
      return r;
    case Rounding::F32:
      return static_cast<double>(static_cast<float>(r));
    case Rounding::F16:
      return round_to_f16(r);
    case Rounding::BF16:
      return round_to_bf16(r);
  }
  return r;
}

void KernelRunner::exec_thread(const CStmt& s) {
  switch (s.kind) {
    case StmtKind::Block:
      for (const auto& c : s.body) exec_thread(c);
      return;
    case StmtKind::For: {
      if (s.axis != GpuAxis::None) {
        int ax = gpu_axis_dimension(s.axis);
        double coord = s.axis == GpuAxis::ClusterX ? tenv_[kBlockX]
                       : is_block_axis(s.axis)     ? static_cast<double>(bidx_[ax])
                                                   : tenv_[kThreadX + ax];
        if (coord < eval(s.extent)) {
          tenv_[s.slot] = eval(s.min) + coord;
          exec_thread(s.body[0]);
        }
        return;
      }
      double lo = eval(s.min), extent = eval(s.extent);
      for (double v = 0; v < extent; ++v) {
        step();
        tenv_[s.slot] = lo + v;
        exec_thread(s.body[0]);
      }
      return;
    }
    case StmtKind::Store: {
      step();
      double index = eval(s.index);
      store(s.buffer, index, eval(s.value));
      return;
    }
    case StmtKind::Allocate:
      if (k_.buffers[s.buffer].scope == MemScope::Register) clear_registers(s.buffer, t_);
      exec_thread(s.body[0]);
      return;
    case StmtKind::If:
      if (eval(s.cond) != 0)
        exec_thread(s.body[0]);
      else if (s.body.size() > 1)
        exec_thread(s.body[1]);
      return;
    case StmtKind::AsyncCopy: {
      step();
      const int64_t lanes = s.copy_bytes / 4;  // 4 or 16 bytes, checked when the kernel was compiled
      const double first = eval(s.index);
      const double src = lanes > 1 ? eval(s.value.args[0]) : 0;
      if (lanes > 1 &&
          (std::fmod(first, static_cast<double>(lanes)) != 0 || std::fmod(src, static_cast<double>(lanes)) != 0))
        fail("async-copy-misaligned",
             "In " + where() + ", a " + std::to_string(s.copy_bytes) + "-byte asynchronous copy from '" +
                 k_.buffers[s.value.buffer].name + "' element " + number(src) + " into '" + k_.buffers[s.buffer].name +
                 "' element " + number(first) + " is not 16-byte aligned.",
             "Copy 16 bytes only from and to element indices that are multiples of 4.");
      BufferState& b = bufs_[s.buffer];
      for (int64_t k = 0; k < lanes; ++k) {
        const int64_t i =
            shared_slot(s.buffer, checked_index(s.buffer, first + static_cast<double>(k), "asynchronous write"));
        const double v = lanes > 1 ? load(s.value.buffer, src + static_cast<double>(k)) : eval(s.value);
        check_shared_write(s.buffer, b, i, "asynchronous write");  // it may land at any moment until the wait
        ++b.pending[i];
        open_copies_[t_].push_back({s.buffer, i, v});
      }
      return;
    }
    case StmtKind::BulkCopy:
      bulk_copy(s);
      return;
    case StmtKind::TensorCopy:
      tensor_copy(s);
      return;
    case StmtKind::MbarrierInit:
      mbarrier_init(s);
      return;
    case StmtKind::MbarrierExpect:
      mbarrier_expect(s);
      return;
    case StmtKind::MbarrierWait:
      mbarrier_wait(s);
      return;
    case StmtKind::AsyncCommit:
      copy_groups_[t_].push_back(std::move(open_copies_[t_]));
      open_copies_[t_].clear();
      return;
    case StmtKind::AsyncWait:
      while (static_cast<int64_t>(copy_groups_[t_].size()) > s.width) {
        for (const PendingCopy& c : copy_groups_[t_].front()) {
          --bufs_[c.buffer].pending[c.index];
          store_shared(c.buffer, c.index, convert_to_dtype(c.value, k_.buffers[c.buffer].dtype));
        }
        copy_groups_[t_].pop_front();
      }
      return;
    case StmtKind::AsyncProxyFence:
      return;
    case StmtKind::Barrier:
    case StmtKind::AllReduce:
    case StmtKind::Scan:
    case StmtKind::Mma:
    case StmtKind::LdMatrix:
    case StmtKind::Wgmma:
    case StmtKind::WgmmaFence:
    case StmtKind::WgmmaCommit:
    case StmtKind::WgmmaWait:
      fail("internal-error", "The interpreter reached a collective statement in per-thread mode.",
           "Report this as a bug in the interpreter.");
  }
}

void KernelRunner::clear_registers(int b, int64_t t) {
  int64_t size = k_.buffers[b].size;
  std::fill_n(bufs_[b].own_init.begin() + t * size, size, 0);
}

}  // namespace interp

namespace {

void prepare_buffers(const LoweredProgram& program, HostBuffers& buffers) {
  for (const BufferSpec& spec : program.buffers) {
    const size_t n = static_cast<size_t>(spec.elements());
    auto it = buffers.find(spec.name);
    if (it == buffers.end()) {
      if (spec.role == BufferRole::Input)
        fail("missing-buffer", "The input buffer '" + spec.name + "' was not given to the interpreter.",
             "Fill buffers[\"" + spec.name + "\"] with its " + std::to_string(n) + " elements.");
      it = buffers.emplace(spec.name, std::vector<double>(n, std::numeric_limits<double>::quiet_NaN())).first;
    }
    if (it->second.size() != n)
      fail("buffer-size-mismatch",
           "The buffer '" + spec.name + "' has " + std::to_string(it->second.size()) +
               " elements but the program expects " + std::to_string(n) + ".",
           "Size every buffer by its BufferSpec shape.");
    if (spec.zero_before_launch) std::fill(it->second.begin(), it->second.end(), 0.0);
  }
}

}  // namespace

InterpStats interpret(const LoweredProgram& program, HostBuffers& buffers, const InterpOptions& options) {
  prepare_buffers(program, buffers);
  std::vector<CompiledKernel> kernels;
  for (const Kernel& k : program.kernels) kernels.push_back(compile_kernel(k, program));
  InterpStats stats;
  for (const CompiledKernel& k : kernels) interp::KernelRunner(k, buffers, options, stats).run();
  return stats;
}

}  // namespace cusched
