// The interpreter's warp-wide and warpgroup-wide instructions: Mma (mma.sync), Wgmma
// (wgmma.mma_async with its groups in flight) and LdMatrix.
#include <cmath>
#include <limits>

#include "codegen/interp_rounding.h"
#include "codegen/interp_runner.h"
#include "codegen/ldmatrix.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched::interp {

// One product of an Mma: tf32 operands truncated as the tensor core reads them; 3xtf32
// operands split into their tf32 rounding and the tf32 rounding of the rest (lo*hi +
// hi*lo + hi*hi; lo*lo is dropped), as cusched::mma_m16n8k8_3xtf32 computes; others as given.
double KernelRunner::product(double a, double b, Precision precision) {
  if (precision == Precision::tf32) return truncate_to_tf32(a) * truncate_to_tf32(b);
  if (precision != Precision::x3tf32) return a * b;
  const double a_hi = round_to_tf32(a), a_lo = round_to_tf32(a - a_hi);
  const double b_hi = round_to_tf32(b), b_lo = round_to_tf32(b - b_hi);
  return a_lo * b_hi + a_hi * b_lo + a_hi * b_hi;
}

void KernelRunner::mma(const CStmt& s) {
  const MmaLayout& l = *s.layout;
  step(threads_);
  std::vector<double> a(threads_ * l.a_count), b(threads_ * l.b_count), c(threads_ * 4);
  std::vector<int64_t> base(threads_);
  for (int64_t t = 0; t < threads_; ++t) {
    set_thread(t);
    base[t] = static_cast<int64_t>(eval(s.index));
    for (int i = 0; i < l.a_count; ++i) a[t * l.a_count + i] = eval(s.operands[i]);
    for (int i = 0; i < l.b_count; ++i) b[t * l.b_count + i] = eval(s.operands[l.a_count + i]);
    for (int j = 0; j < 4; ++j) c[t * 4 + j] = load(s.buffer, static_cast<double>(base[t] + j));
  }
  std::vector<double> A(l.m * l.k), B(l.k * l.n), C(l.m * l.n);
  for (int64_t w = 0; w < threads_; w += 32) {
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t t = w + lane;
      const int g = lane / 4, q = lane % 4;
      for (int i = 0; i < l.a_count; ++i) A[(g + l.a_row[i]) * l.k + q * l.k_step + l.a_k[i]] = a[t * l.a_count + i];
      for (int i = 0; i < l.b_count; ++i) B[(q * l.k_step + l.b_k[i]) * l.n + g] = b[t * l.b_count + i];
      for (int j = 0; j < 4; ++j) C[(g + l.c_row[j]) * l.n + 2 * q + l.c_col[j]] = c[t * 4 + j];
    }
    for (int lane = 0; lane < 32; ++lane) {
      const int64_t t = w + lane;
      const int g = lane / 4, q = lane % 4;
      set_thread(t);
      for (int j = 0; j < 4; ++j) {
        const int row = g + l.c_row[j], col = 2 * q + l.c_col[j];
        double sum = C[row * l.n + col];
        for (int kk = 0; kk < l.k; ++kk) sum += product(A[row * l.k + kk], B[kk * l.n + col], s.mma_precision);
        store(s.buffer, static_cast<double>(base[t] + j), sum);
      }
    }
  }
}

void KernelRunner::wgmma(const CStmt& s) {
  step(threads_);
  const int64_t N = s.width, NA = N / 2;
  const InterpBuffer& bb = k_.buffers[s.source_buffer];
  // tf32: k8, operands truncated to tf32 as the tensor cores read them; bf16 and f16: k16,
  // A rounded to the operand type as its registers are packed, B already of that type.
  const Precision precision = s.wgmma_precision;
  const DType type = wgmma_operand_type(precision);
  const bool k16 = type != DType::f32;
  const int K = wgmma_k(precision), AE = wgmma_a_elements(precision), esize = dtype_bytes(type);
  auto operand = [&](double v) { return k16 ? convert_to_dtype(v, type) : truncate_to_tf32(v); };
  for (int64_t w0 = 0; w0 < threads_; w0 += kWgmmaThreads) {
    WgmmaOp op;
    op.warpgroup = w0 / kWgmmaThreads;
    std::vector<double> A(kWgmmaM * K), C(kWgmmaM * N), B(K * N);
    std::vector<int64_t> acc_slot(kWgmmaThreads * NA);
    double start = 0;
    for (int lane = 0; lane < kWgmmaThreads; ++lane) {
      const int64_t t = w0 + lane;
      set_thread(t);
      const double st = eval(s.value);
      if (lane == 0)
        start = st;
      else if (st != start)
        fail("wgmma-descriptor-divergent",
             "In " + where() + ", the wgmma's B descriptor starts at element " + number(st) + " of '" + bb.name +
                 "' but at " + number(start) + " in the warpgroup's first thread.",
             "Give every thread of a warpgroup the same B descriptor.");
      for (int i = 0; i < AE; ++i) {
        const CExpr& o = s.operands[i];
        const double v = eval(o);
        if (o.op == IOp::Load && k_.buffers[o.buffer].scope == MemScope::Register)
          op.reads.push_back({o.buffer, register_slot(o.buffer, t, eval(o.args[0])), v});
        const WgmmaElement e = wgmma_a_element(lane, i, precision);
        A[e.row * K + e.col] = operand(v);
      }
      const double base = eval(s.index);
      for (int64_t j = 0; j < NA; ++j) {
        const int64_t slot = register_slot(s.buffer, t, base + static_cast<double>(j));
        acc_slot[lane * NA + j] = slot;
        auto pending = wgmma_acc_.find({s.buffer, slot});
        const WgmmaElement e = wgmma_accumulator(lane, static_cast<int>(j));
        C[e.row * N + e.col] =
            pending != wgmma_acc_.end() ? pending->second : load(s.buffer, base + static_cast<double>(j));
      }
    }
    set_thread(w0);
    const int64_t start_bytes = static_cast<int64_t>(start) * esize;
    if (start < 0 || start_bytes % 16 != 0)
      fail("wgmma-b-misaligned",
           "In " + where() + ", the wgmma's B descriptor starts at element " + number(start) + " of '" + bb.name +
               "', which is not a 16-byte boundary.",
           "Start B's descriptor at a 16-byte aligned element.");
    for (int k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        const int64_t address = wgmma_b_address(start_bytes, k, static_cast<int>(n), esize);
        const double v = load(s.source_buffer, static_cast<double>(address / esize));
        op.reads.push_back({s.source_buffer, shared_slot(s.source_buffer, address / esize), v});
        B[k * N + n] = operand(v);
      }
    for (int lane = 0; lane < kWgmmaThreads; ++lane)
      for (int64_t j = 0; j < NA; ++j) {
        const WgmmaElement e = wgmma_accumulator(lane, static_cast<int>(j));
        double sum = C[e.row * N + e.col];
        for (int k = 0; k < K; ++k) sum += A[e.row * K + k] * B[k * N + e.col];
        const double v = convert_to_dtype(sum, DType::f32);
        const int64_t slot = acc_slot[lane * NA + j];
        wgmma_acc_[{s.buffer, slot}] = v;
        op.results.push_back({s.buffer, slot, v});
      }
    open_wgmma_.push_back(std::move(op));
  }
}

void KernelRunner::retire_wgmma_group(const std::vector<WgmmaOp>& group) {
  for (const WgmmaOp& op : group) {
    for (const WgmmaAccess& r : op.reads)
      if (!(bufs_[r.buffer].data[r.slot] == r.value) &&
          !(std::isnan(r.value) && std::isnan(bufs_[r.buffer].data[r.slot])))
        fail("wgmma-operand-overwritten",
             "In kernel '" + k_.name + "', block " + block_text() + ", warpgroup " + std::to_string(op.warpgroup) +
                 ", the " + mem_scope_name(k_.buffers[r.buffer].scope) + " buffer '" + k_.buffers[r.buffer].name +
                 "' that an in-flight wgmma reads changed (slot " + std::to_string(r.slot) + ": " + number(r.value) +
                 " -> " + number(bufs_[r.buffer].data[r.slot]) + ") before its group was waited for.",
             "Wait for the wgmma's group (wgmma_wait) before overwriting its A registers or its shared B tile: keep "
             "fragments double-buffered and refill a staged buffer only after the k-step that reads it has retired.");
    for (const WgmmaAccess& r : op.results) {
      bufs_[r.buffer].data[r.slot] = r.value;
      bufs_[r.buffer].init[r.slot] = 1;
      auto it = wgmma_acc_.find({r.buffer, r.slot});
      if (it != wgmma_acc_.end() && it->second == r.value) wgmma_acc_.erase(it);
    }
  }
}

void KernelRunner::ldmatrix(const CStmt& s) {
  step(threads_);
  const InterpBuffer& src = k_.buffers[s.source_buffer];
  const int bytes = dtype_bytes(src.dtype), per_word = 4 / bytes;
  std::vector<int64_t> address(threads_), base(threads_);
  for (int64_t t = 0; t < threads_; ++t) {
    set_thread(t);
    const double a = eval(s.value);
    address[t] = static_cast<int64_t>(a);
    base[t] = static_cast<int64_t>(eval(s.index));
    const int lane = static_cast<int>(t % 32);
    if ((lane / 8) < s.matrices && (a < 0 || (address[t] * bytes) % 16 != 0))
      fail("ldmatrix-misaligned",
           "In " + where() + ", the ldmatrix row address " + number(a) + " of shared buffer '" + src.name +
               "' is not 16-byte aligned.",
           "Give every row address of an ldmatrix a 16-byte aligned element index, or load the fragment with scalar "
           "loads.");
  }
  std::vector<double> values(static_cast<size_t>(s.matrices * per_word));
  for (int64_t w = 0; w < threads_; w += 32)
    for (int lane = 0; lane < 32; ++lane) {
      set_thread(w + lane);
      for (int j = 0; j < s.matrices; ++j)
        for (int e = 0; e < per_word; ++e) {
          const LdMatrixSource from = ldmatrix_source(j, lane, e, per_word, s.transpose);
          values[j * per_word + e] =
              load(s.source_buffer, static_cast<double>(address[w + from.address_lane] + from.column));
        }
      for (size_t i = 0; i < values.size(); ++i)
        store(s.buffer, static_cast<double>(base[w + lane] + static_cast<int64_t>(i)), values[i]);
    }
}

}  // namespace cusched::interp
