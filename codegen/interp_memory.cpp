// The interpreter's memory: loads and stores with bounds, initialisation, copy-in-flight
// and race checks.
#include <cmath>
#include <limits>

#include "codegen/interp_rounding.h"
#include "codegen/interp_runner.h"
#include "codegen/ldmatrix.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched::interp {

int64_t KernelRunner::checked_index(int b, double index, const char* access) {
  if (!(index >= 0 && index < static_cast<double>(k_.buffers[b].size))) [[unlikely]]
    out_of_bounds(b, index, access);
  return static_cast<int64_t>(index);
}

void KernelRunner::out_of_bounds(int b, double index, const char* access) {
  const InterpBuffer& info = k_.buffers[b];
  fail("out-of-bounds",
       "In " + where() + ", a " + access + " of " + mem_scope_name(info.scope) + " buffer '" + info.name +
           "' at element " + number(index) + " is outside its " + std::to_string(info.size) + " elements.",
       "Guard the access with the loop's bounds (a tail If) or fix its index expression.");
}

void KernelRunner::uninitialized(int b, int64_t i) {
  const InterpBuffer& info = k_.buffers[b];
  fail("uninitialized-read",
       "In " + where() + ", a read of " + mem_scope_name(info.scope) + " buffer '" + info.name + "' at element " +
           std::to_string(i) + " finds a value no thread has written" +
           (info.scope == MemScope::Shared ? " in this block." : " in this thread."),
       info.scope == MemScope::Shared
           ? "Write the element before it is read, and put a barrier between a write and other threads' reads."
           : "Initialize the register array (for example the reduction's identity) before accumulating into it.");
}

void KernelRunner::not_waited(int b, int64_t i) {
  fail("async-copy-not-waited",
       "In " + where() + ", a read of shared buffer '" + k_.buffers[b].name + "' at element " + std::to_string(i) +
           " comes while an asynchronous copy into it is still in flight.",
       "Wait for the copy's group (async_wait) and put a barrier between the wait and other threads' reads.");
}

void KernelRunner::race(int b, int64_t i, const std::string& other, const char* other_access, const char* access,
                        bool global) {
  const InterpBuffer& info = k_.buffers[b];
  fail(global ? "global-memory-race" : "shared-memory-race",
       "In " + where() + ", a " + access + " of " + mem_scope_name(info.scope) + " buffer '" + info.name +
           "' at element " + std::to_string(i) + " races with a " + other_access + " by " + other +
           (global ? " in the same launch." : " with no barrier between them."),
       global ? "Let each element be written by one thread per launch, or split producer and consumer into "
                "separate kernels."
              : "Put a barrier between the write and the other threads' accesses, or give each thread its own "
                "element.");
}

void KernelRunner::check_shared_write(int b, const BufferState& st, int64_t i, const char* access) {
  if (st.access.empty()) return;
  const AccessRecord& r = st.access[i];
  if (r.writer_epoch == epoch_ && r.writer != t_) race(b, i, shared_thread_text(r.writer), "write", access, false);
  if (r.reader_epoch == epoch_ && r.reader != t_) race(b, i, shared_thread_text(r.reader), "read", access, false);
}

std::string KernelRunner::shared_thread_text(int64_t t) const {
  return t == -2 ? "several threads" : "thread " + thread_text(t);
}

std::string KernelRunner::global_thread_text(int64_t g) const {
  int64_t b = g / tpb_, t = g % tpb_;
  int64_t bx = b % k_.grid[0], by = (b / k_.grid[0]) % k_.grid[1], bz = b / (k_.grid[0] * k_.grid[1]);
  return "thread " + thread_triple(t) + " of block " + triple(bx, by, bz);
}

bool KernelRunner::global_conflict(int64_t other, int64_t other_epoch, int64_t me) const {
  return other >= 0 && other != me && (other_epoch == epoch_ || other / tpb_ != me / tpb_);
}

double KernelRunner::load(int b, double index) {
  BufferState& s = bufs_[b];
  const InterpBuffer& info = k_.buffers[b];
  int64_t i = checked_index(b, index, "read");
  switch (info.scope) {
    case MemScope::Global:
      if (!s.access.empty()) {
        AccessRecord& r = s.access[i];
        int64_t me = global_thread_id();
        if (global_conflict(r.writer, r.writer_epoch, me))
          race(b, i, global_thread_text(r.writer), "write", "read", true);
        r.reader = me;
        r.reader_epoch = epoch_;
      }
      return s.data[i];
    case MemScope::Shared: {
      const int64_t j = shared_slot(b, i);
      if (s.pending[j]) [[unlikely]]
        not_waited(b, i);
      if (s.bulk_barrier[j] >= 0) [[unlikely]]
        check_bulk_copy_waited(b, j);
      if (!s.init[j]) uninitialized(b, i);
      if (!s.access.empty()) {
        AccessRecord& r = s.access[j];
        if (r.writer_epoch == epoch_ && r.writer != t_)
          race(b, i, shared_thread_text(r.writer), "write", "read", false);
        if (r.reader_epoch != epoch_) {
          r.reader = t_;
          r.reader_epoch = epoch_;
        } else if (r.reader != t_) {
          r.reader = -2;
        }
      }
      return s.data[j];
    }
    case MemScope::Register: {
      int64_t j = t_ * info.size + i;
      if (!s.init[j]) uninitialized(b, i);
      return s.data[j];
    }
  }
  return 0;
}

void KernelRunner::store(int b, double index, double value) {
  BufferState& s = bufs_[b];
  const InterpBuffer& info = k_.buffers[b];
  int64_t i = checked_index(b, index, "write");
  double v = convert_to_dtype(value, info.dtype);
  switch (info.scope) {
    case MemScope::Global:
      if (!s.access.empty()) {
        AccessRecord& r = s.access[i];
        int64_t me = global_thread_id();
        bool changes = !(s.data[i] == v);  // rewriting the value an element already holds is benign
        if (changes && global_conflict(r.writer, r.writer_epoch, me))
          race(b, i, global_thread_text(r.writer), "write", "write", true);
        if (changes && global_conflict(r.reader, r.reader_epoch, me))
          race(b, i, global_thread_text(r.reader), "read", "write", true);
        r.writer = me;
        r.writer_epoch = epoch_;
      }
      s.data[i] = v;
      return;
    case MemScope::Shared:
      store_shared(b, shared_slot(b, i), v);
      return;
    case MemScope::Register: {
      int64_t j = t_ * info.size + i;
      s.data[j] = v;
      s.init[j] = 1;
      return;
    }
  }
}

void KernelRunner::store_shared(int b, int64_t j, double v) {
  BufferState& s = bufs_[b];
  check_shared_write(b, s, j, "write");
  if (!s.access.empty()) {
    AccessRecord& r = s.access[j];
    r.writer = t_;
    r.writer_epoch = epoch_;
  }
  s.data[j] = v;
  s.init[j] = 1;
  s.bulk_barrier[j] = -1;
}

int64_t KernelRunner::register_slot(int b, int64_t t, double index) {
  const int64_t i = checked_index(b, index, "wgmma access");
  return t * k_.buffers[b].size + i;
}

}  // namespace cusched::interp
