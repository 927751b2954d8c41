// The interpreter's mbarriers and bulk copies: phases, arrivals, announced bytes, and
// the copies that land when a phase completes.
#include <cmath>
#include <limits>

#include "codegen/interp_rounding.h"
#include "codegen/interp_runner.h"
#include "codegen/ldmatrix.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched::interp {

void KernelRunner::check_bulk_copy_waited(int b, int64_t i) {
  const BufferState& s = bufs_[b];
  const int id = s.bulk_barrier[i];
  const auto& seen = observed_phases_[t_];
  auto it = seen.find(id);
  if (it != seen.end() && it->second > s.bulk_phase[i]) return;
  fail("async-copy-not-waited",
       "In " + where() + ", a read of shared buffer '" + k_.buffers[b].name + "' at element " + std::to_string(i) +
           " comes before this thread waited for the bulk copy into it (phase " + std::to_string(s.bulk_phase[i]) +
           " of mbarrier " + mbarriers_[id].name + ").",
       "Wait on the copy's mbarrier phase (mbarrier_wait) in every thread that reads the data, and do not refill a "
       "buffer before all threads are done reading it.");
}

int KernelRunner::mbarrier_id(int b, double index, bool create) {
  const int64_t i = checked_index(b, index, "mbarrier access");
  auto key = std::make_pair(b, shared_slot(b, i));
  auto it = mbarrier_ids_.find(key);
  if (it != mbarrier_ids_.end()) {
    const Mbarrier& m = mbarriers_[it->second];
    if (!create && m.init_epoch == epoch_ && m.init_thread != t_)
      fail("mbarrier-not-initialized",
           "In " + where() + ", mbarrier " + m.name + " is used in the same barrier interval in which thread " +
               thread_text(m.init_thread) + " initialises it.",
           "Put a barrier between the mbarrier's initialisation and its first use by other threads.");
    return it->second;
  }
  if (!create)
    fail("mbarrier-not-initialized",
         "In " + where() + ", mbarrier " + k_.buffers[b].name + "[" + std::to_string(i) +
             "] is used before any thread of the block initialised it.",
         "Initialise every mbarrier (mbarrier_init) once per block, then a barrier, before it is used.");
  const int id = static_cast<int>(mbarriers_.size());
  mbarrier_ids_[key] = id;
  mbarriers_.push_back({});
  mbarriers_.back().name = k_.buffers[b].name + "[" + std::to_string(i) + "]";
  return id;
}

void KernelRunner::complete_phase_if_done(int id) {
  Mbarrier& m = mbarriers_[id];
  if (m.arrivals_left > 0 || m.tx > 0) return;
  if (m.tx < 0)
    fail("mbarrier-tx-mismatch",
         "In " + where() + ", the bulk copies of phase " + std::to_string(m.completed) + " of mbarrier " + m.name +
             " move " + std::to_string(-m.tx) + " more bytes than were announced for it.",
         "Announce (mbarrier_arrive_expect) exactly the bytes that the phase's copies move.");
  for (const PendingCopy& c : m.copies) {
    BufferState& s = bufs_[c.buffer];
    s.data[c.index] = convert_to_dtype(c.value, k_.buffers[c.buffer].dtype);
    s.init[c.index] = 1;
    if (!s.access.empty()) s.access[c.index].writer_epoch = -1;  // ordered by the mbarrier wait, not by a barrier
  }
  m.copies.clear();
  ++m.completed;
  m.arrivals_left = m.arrivals;
  m.tx = 0;
}

void KernelRunner::bulk_copy(const CStmt& s) {
  step();
  const int id = mbarrier_id(s.barrier, eval(s.barrier_index), false);
  const InterpBuffer& dst = k_.buffers[s.buffer];
  const int64_t esize = dtype_bytes(dst.dtype);
  const double bytes = eval(s.extent);
  const double di = eval(s.index), si = eval(s.value.args[0]);
  const int64_t d0 = checked_index(s.buffer, di, "bulk-copy write"),
                s0 = checked_index(s.value.buffer, si, "bulk-copy read");
  if (!(bytes > 0) || static_cast<int64_t>(bytes) % 16 != 0 || (d0 * esize) % 16 != 0 || (s0 * esize) % 16 != 0)
    fail("bulk-copy-alignment",
         "In " + where() + ", a bulk copy of " + number(bytes) + " bytes from '" + k_.buffers[s.value.buffer].name +
             "' element " + std::to_string(s0) + " into '" + dst.name + "' element " + std::to_string(d0) +
             " is not a positive multiple of 16 bytes between 16-byte aligned addresses.",
         "Copy whole 16-byte chunks: pad rows to a multiple of 16 bytes, or use the cp.async engine.");
  const int64_t n = static_cast<int64_t>(bytes) / esize;
  checked_index(s.buffer, static_cast<double>(d0 + n - 1), "bulk-copy write");
  checked_index(s.value.buffer, static_cast<double>(s0 + n - 1), "bulk-copy read");
  Mbarrier& m = mbarriers_[id];
  BufferState& b = bufs_[s.buffer];
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = shared_slot(s.buffer, d0 + k);
    check_shared_write(s.buffer, b, i, "bulk-copy write");  // it may land at any moment until the phase completes
    m.copies.push_back({s.buffer, i, load(s.value.buffer, static_cast<double>(s0 + k))});
    b.bulk_barrier[i] = id;
    b.bulk_phase[i] = m.completed;
  }
  m.tx -= static_cast<int64_t>(bytes);
  complete_phase_if_done(id);
}

void KernelRunner::tensor_copy(const CStmt& s) {
  step();
  const int id = mbarrier_id(s.barrier, eval(s.barrier_index), false);
  const InterpBuffer &dst = k_.buffers[s.buffer], &src = k_.buffers[s.source_buffer];
  const int64_t esize = dtype_bytes(dst.dtype), rank = static_cast<int64_t>(s.box.size());
  const int64_t d0 = checked_index(s.buffer, eval(s.index), "tensor-copy write");
  const int64_t align = s.swizzle_bytes ? kTensorCopySwizzledAlignment : kTensorCopyAlignment;
  if (dst.alignment % align != 0 || (d0 * esize) % align != 0)
    fail("tensor-copy-alignment",
         "In " + where() + ", a tensor copy into '" + dst.name + "' element " + std::to_string(d0) +
             " starts at a byte offset that is not a multiple of " + std::to_string(align) +
             " bytes in an array aligned to " + std::to_string(dst.alignment) + " bytes.",
         "Align tensor copies' destinations to 128 bytes (1024 with the 128-byte swizzle).");
  std::vector<int64_t> at(rank);
  for (int64_t d = 0; d < rank; ++d) at[d] = static_cast<int64_t>(eval(s.operands[d]));
  // The accelerator reads each box row from a 16-byte aligned global address (a row that
  // starts elsewhere is an illegal instruction on the device).
  if (((at[rank - 1] * esize) % 16 + 16) % 16 != 0)
    fail("tensor-copy-alignment",
         "In " + where() + ", a tensor copy from '" + src.name + "' starts its rows at column " +
             std::to_string(at[rank - 1]) + ", " + std::to_string(at[rank - 1] * esize) +
             " bytes from the row's start, not a multiple of 16 bytes.",
         "Start tensor copies' rows at multiples of 16 bytes: copy from the aligned column before the region.");
  int64_t n = 1;
  for (auto e : s.box) n *= e;
  checked_index(s.buffer, static_cast<double>(d0 + n - 1), "tensor-copy write");
  Mbarrier& m = mbarriers_[id];
  BufferState& b = bufs_[s.buffer];
  for (int64_t l = 0; l < n; ++l) {
    // The box element l (row-major) at its coordinates in the source; zero outside it.
    int64_t rest = l, flat = 0, stride = 1;
    bool inside = true;
    for (int64_t d = rank; d-- > 0;) {
      const int64_t c = at[d] + rest % s.box[d];
      rest /= s.box[d];
      inside &= c >= 0 && c < src.shape[d];
      flat += c * stride;
      stride *= src.shape[d];
    }
    const double v = inside ? load(s.source_buffer, static_cast<double>(flat)) : 0.0;
    int64_t byte = l * esize;
    if (s.swizzle_bytes) {
      const int64_t chunk = byte / 16 % 8, row = byte / 128 % 8;
      byte += ((chunk ^ row) - chunk) * 16;
    }
    const int64_t i = shared_slot(s.buffer, d0 + byte / esize);
    check_shared_write(s.buffer, b, i, "tensor-copy write");  // it may land at any moment until the phase completes
    m.copies.push_back({s.buffer, i, v});
    b.bulk_barrier[i] = id;
    b.bulk_phase[i] = m.completed;
  }
  m.tx -= n * esize;
  complete_phase_if_done(id);
}

void KernelRunner::mbarrier_init(const CStmt& s) {
  const int id = mbarrier_id(s.buffer, eval(s.index), true);
  Mbarrier& m = mbarriers_[id];
  m.arrivals = m.arrivals_left = s.width;
  m.tx = 0;
  m.completed = 0;
  m.copies.clear();
  m.init_thread = t_;
  m.init_epoch = epoch_;
  for (auto& seen : observed_phases_) seen.erase(id);
}

void KernelRunner::mbarrier_expect(const CStmt& s) {
  const int id = mbarrier_id(s.buffer, eval(s.index), false);
  const double bytes = eval(s.value);
  if (!(bytes >= 0))
    fail("mbarrier-tx-mismatch",
         "In " + where() + ", mbarrier " + mbarriers_[id].name + " is announced " + number(bytes) + " bytes.",
         "Announce a non-negative byte count.");
  Mbarrier& m = mbarriers_[id];
  --m.arrivals_left;
  m.tx += static_cast<int64_t>(bytes);
  complete_phase_if_done(id);
}

void KernelRunner::mbarrier_wait(const CStmt& s) {
  const int id = mbarrier_id(s.buffer, eval(s.index), false);
  const int64_t parity = static_cast<int64_t>(eval(s.value)) & 1;
  const Mbarrier& m = mbarriers_[id];
  if ((m.completed & 1) == parity)
    fail("mbarrier-wait-not-complete",
         "In " + where() + ", a wait on mbarrier " + m.name + " for its phase of parity " + std::to_string(parity) +
             " finds phase " + std::to_string(m.completed) + " incomplete (" + std::to_string(m.arrivals_left) +
             " arrivals missing, " + std::to_string(m.tx) + " announced bytes not copied), so the thread would block.",
         "Issue a phase's copies and announce exactly their bytes (mbarrier_arrive_expect) before any thread waits on "
         "it.");
  observed_phases_[t_][id] = m.completed;
}

}  // namespace cusched::interp
