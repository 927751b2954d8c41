#include "codegen/interpreter.h"

#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <sstream>

#include "codegen/interp_kernel.h"
#include "codegen/interp_rounding.h"
#include "codegen/ldmatrix.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched {

namespace {

// Who last wrote and read an element, and in which barrier interval (epoch).
struct AccessRecord {
  int64_t writer = -1, writer_epoch = -1;
  int64_t reader = -1, reader_epoch = -1;   // reader -2: several threads read in reader_epoch
};

struct BufferState {
  double* data = nullptr;
  uint8_t* init = nullptr;           // shared and register buffers: element written
  std::vector<double> own;           // shared: size elements; register: threads * size
  std::vector<uint8_t> own_init;
  std::vector<AccessRecord> access;  // race tracking, one record per element
  std::vector<int32_t> pending;      // shared: asynchronous copies in flight into each element
  std::vector<int32_t> bulk_barrier; // shared: the mbarrier of the element's last bulk copy, or -1
  std::vector<int64_t> bulk_phase;   // shared: the phase of that mbarrier the copy belongs to
};

// An asynchronous copy in flight: its value was read at issue, its write lands at a wait
// (cp.async) or when its mbarrier phase completes (bulk copy).
struct PendingCopy {
  int buffer;
  int64_t index;
  double value;
};

// An mbarrier of the block: arrivals per phase, what its current phase still waits for,
// and the bulk copies that land when that phase completes.
struct Mbarrier {
  std::string name;                  // for messages: buffer[element]
  int64_t arrivals = 1;
  int64_t arrivals_left = 1;
  int64_t tx = 0;                    // bytes announced minus bytes copied in the current phase
  int64_t completed = 0;             // phases completed so far
  int64_t init_thread = -1, init_epoch = -1;
  std::vector<PendingCopy> copies;
};

int axis_index(GpuAxis a) {
  switch (a) {
    case GpuAxis::ThreadX: case GpuAxis::BlockX: return 0;
    case GpuAxis::ThreadY: case GpuAxis::BlockY: return 1;
    case GpuAxis::ThreadZ: case GpuAxis::BlockZ: return 2;
    default: return -1;
  }
}

std::string triple(int64_t x, int64_t y, int64_t z) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// Runs one compiled kernel over its whole grid.
class KernelRunner {
 public:
  KernelRunner(const CompiledKernel& k, HostBuffers& host, const InterpOptions& opt, InterpStats& stats)
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

  // A cluster's blocks (all of grid.x) run together as one group of threads, each
  // block with its own shared memory; without a cluster, blocks run one by one.
  void run() {
    for (int64_t bz = 0; bz < k_.grid[2]; ++bz)
      for (int64_t by = 0; by < k_.grid[1]; ++by)
        for (int64_t bx = 0; bx < k_.grid[0]; bx += cluster_) run_block(bx, by, bz);
  }

 private:
  void run_block(int64_t bx, int64_t by, int64_t bz) {
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
           "Kernel '" + k_.name + "', block " + block_text() + " ends with warpgroup tensor-core instructions in flight (" +
               std::to_string(wgmma_groups_.size()) + " committed groups, " + std::to_string(open_wgmma_.size()) +
               " uncommitted instructions).",
           "Commit every wgmma and wait for all groups (wgmma_wait 0) before the accumulators are read and the kernel ends.");
  }

  void set_thread(int64_t t) {
    t_ = t;
    tenv_ = &env_[t * nslots_];
  }

  // ---- where things happen, for messages ----
  // threadIdx.x, .y and .z of the thread with linear index `lt` in its block.
  std::array<int64_t, 3> thread_xyz(int64_t lt) const {
    return {lt % k_.block[0], (lt / k_.block[0]) % k_.block[1], lt / (k_.block[0] * k_.block[1])};
  }
  std::string thread_triple(int64_t lt) const {
    const std::array<int64_t, 3> xyz = thread_xyz(lt);
    return triple(xyz[0], xyz[1], xyz[2]);
  }
  std::string block_text() const { return triple(bidx_[0] + t_ / tpb_, bidx_[1], bidx_[2]); }
  // Thread t of the running group: its index in its block, and its block when the
  // group is a cluster.
  std::string thread_text(int64_t t) const {
    const int64_t lt = t % tpb_;
    std::string s = thread_triple(lt);
    if (cluster_ > 1) s += " of block " + triple(bidx_[0] + t / tpb_, bidx_[1], bidx_[2]);
    return s;
  }
  std::string where() const {
    return "kernel '" + k_.name + "', block " + block_text() + ", thread " + thread_text(t_);
  }

  void step(int64_t n = 1) {
    stats_.steps += n;
    if (stats_.steps > opt_.max_steps)
      fail("interp-step-limit",
           "The interpreter stopped after " + std::to_string(opt_.max_steps) +
               " steps (loop iterations and stores) in kernel '" + k_.name + "'.",
           "Interpret a smaller problem size, or raise InterpOptions::max_steps.");
  }

  // ---- memory ----
  // Where element i of shared buffer b lives for the running thread's block.
  int64_t shared_slot(int b, int64_t i) const { return (t_ / tpb_) * k_.buffers[b].size + i; }

  int64_t checked_index(int b, double index, const char* access) {
    if (!(index >= 0 && index < static_cast<double>(k_.buffers[b].size))) [[unlikely]]
      out_of_bounds(b, index, access);
    return static_cast<int64_t>(index);
  }

  [[noreturn, gnu::noinline]] void out_of_bounds(int b, double index, const char* access) {
    const InterpBuffer& info = k_.buffers[b];
    fail("out-of-bounds",
         "In " + where() + ", a " + access + " of " + mem_scope_name(info.scope) + " buffer '" + info.name +
             "' at element " + number(index) + " is outside its " + std::to_string(info.size) + " elements.",
         "Guard the access with the loop's bounds (a tail If) or fix its index expression.");
  }

  [[noreturn, gnu::noinline]] void uninitialized(int b, int64_t i) {
    const InterpBuffer& info = k_.buffers[b];
    fail("uninitialized-read",
         "In " + where() + ", a read of " + mem_scope_name(info.scope) + " buffer '" + info.name + "' at element " +
             std::to_string(i) + " finds a value no thread has written" +
             (info.scope == MemScope::Shared ? " in this block." : " in this thread."),
         info.scope == MemScope::Shared
             ? "Write the element before it is read, and put a barrier between a write and other threads' reads."
             : "Initialize the register array (for example the reduction's identity) before accumulating into it.");
  }

  [[noreturn, gnu::noinline]] void not_waited(int b, int64_t i) {
    fail("async-copy-not-waited",
         "In " + where() + ", a read of shared buffer '" + k_.buffers[b].name + "' at element " + std::to_string(i) +
             " comes while an asynchronous copy into it is still in flight.",
         "Wait for the copy's group (async_wait) and put a barrier between the wait and other threads' reads.");
  }

  // A read of an element that a bulk copy writes: the reading thread must have waited
  // on the mbarrier phase that copy belongs to.
  void check_bulk_copy_waited(int b, int64_t i) {
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

  // ---- mbarriers and bulk copies ----
  int mbarrier_id(int b, double index, bool create) {
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
           "In " + where() + ", mbarrier " + k_.buffers[b].name + "[" + std::to_string(i) + "] is used before any thread of the block initialised it.",
           "Initialise every mbarrier (mbarrier_init) once per block, then a barrier, before it is used.");
    const int id = static_cast<int>(mbarriers_.size());
    mbarrier_ids_[key] = id;
    mbarriers_.push_back({});
    mbarriers_.back().name = k_.buffers[b].name + "[" + std::to_string(i) + "]";
    return id;
  }

  // Completes the mbarrier's current phase when every arrival happened and every
  // announced byte was copied: its bulk copies land.
  void complete_phase_if_done(int id) {
    Mbarrier& m = mbarriers_[id];
    if (m.arrivals_left > 0 || m.tx > 0) return;
    if (m.tx < 0)
      fail("mbarrier-tx-mismatch",
           "In " + where() + ", the bulk copies of phase " + std::to_string(m.completed) + " of mbarrier " + m.name + " move " +
               std::to_string(-m.tx) + " more bytes than were announced for it.",
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

  void bulk_copy(const CStmt& s) {
    step();
    const int id = mbarrier_id(s.barrier, eval(s.barrier_index), false);
    const InterpBuffer& dst = k_.buffers[s.buffer];
    const int64_t esize = dtype_bytes(dst.dtype);
    const double bytes = eval(s.extent);
    const double di = eval(s.index), si = eval(s.value.args[0]);
    const int64_t d0 = checked_index(s.buffer, di, "bulk-copy write"), s0 = checked_index(s.value.buffer, si, "bulk-copy read");
    if (!(bytes > 0) || static_cast<int64_t>(bytes) % 16 != 0 || (d0 * esize) % 16 != 0 || (s0 * esize) % 16 != 0)
      fail("bulk-copy-alignment",
           "In " + where() + ", a bulk copy of " + number(bytes) + " bytes from '" + k_.buffers[s.value.buffer].name + "' element " +
               std::to_string(s0) + " into '" + dst.name + "' element " + std::to_string(d0) +
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

  void mbarrier_init(const CStmt& s) {
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

  void mbarrier_expect(const CStmt& s) {
    const int id = mbarrier_id(s.buffer, eval(s.index), false);
    const double bytes = eval(s.value);
    if (!(bytes >= 0))
      fail("mbarrier-tx-mismatch", "In " + where() + ", mbarrier " + mbarriers_[id].name + " is announced " + number(bytes) + " bytes.",
           "Announce a non-negative byte count.");
    Mbarrier& m = mbarriers_[id];
    --m.arrivals_left;
    m.tx += static_cast<int64_t>(bytes);
    complete_phase_if_done(id);
  }

  void mbarrier_wait(const CStmt& s) {
    const int id = mbarrier_id(s.buffer, eval(s.index), false);
    const int64_t parity = static_cast<int64_t>(eval(s.value)) & 1;
    const Mbarrier& m = mbarriers_[id];
    if ((m.completed & 1) == parity)
      fail("mbarrier-wait-not-complete",
           "In " + where() + ", a wait on mbarrier " + m.name + " for its phase of parity " + std::to_string(parity) +
               " finds phase " + std::to_string(m.completed) + " incomplete (" + std::to_string(m.arrivals_left) +
               " arrivals missing, " + std::to_string(m.tx) + " announced bytes not copied), so the thread would block.",
           "Issue a phase's copies and announce exactly their bytes (mbarrier_arrive_expect) before any thread waits on it.");
    observed_phases_[t_][id] = m.completed;
  }

  [[noreturn, gnu::noinline]] void race(int b, int64_t i, const std::string& other, const char* other_access, const char* access,
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

  // A write of shared element i of buffer `b` (state `st`) races with another thread's
  // write or read of it since the last barrier.
  void check_shared_write(int b, const BufferState& st, int64_t i, const char* access) {
    if (st.access.empty()) return;
    const AccessRecord& r = st.access[i];
    if (r.writer_epoch == epoch_ && r.writer != t_) race(b, i, shared_thread_text(r.writer), "write", access, false);
    if (r.reader_epoch == epoch_ && r.reader != t_) race(b, i, shared_thread_text(r.reader), "read", access, false);
  }

  std::string shared_thread_text(int64_t t) const {
    return t == -2 ? "several threads" : "thread " + thread_text(t);
  }
  std::string global_thread_text(int64_t g) const {
    int64_t b = g / tpb_, t = g % tpb_;
    int64_t bx = b % k_.grid[0], by = (b / k_.grid[0]) % k_.grid[1], bz = b / (k_.grid[0] * k_.grid[1]);
    return "thread " + thread_triple(t) + " of block " + triple(bx, by, bz);
  }

  // Two accesses to global memory conflict when they come from different threads and
  // no barrier orders them: different blocks (also of one cluster), or the same
  // barrier interval.
  bool global_conflict(int64_t other, int64_t other_epoch, int64_t me) const {
    return other >= 0 && other != me && (other_epoch == epoch_ || other / tpb_ != me / tpb_);
  }
  // A thread's identity across the launch: its block's linear index and its index in it.
  int64_t global_thread_id() const { return block_linear_ * tpb_ + t_; }

  double load(int b, double index) {
    BufferState& s = bufs_[b];
    const InterpBuffer& info = k_.buffers[b];
    int64_t i = checked_index(b, index, "read");
    switch (info.scope) {
      case MemScope::Global:
        if (!s.access.empty()) {
          AccessRecord& r = s.access[i];
          int64_t me = global_thread_id();
          if (global_conflict(r.writer, r.writer_epoch, me)) race(b, i, global_thread_text(r.writer), "write", "read", true);
          r.reader = me;
          r.reader_epoch = epoch_;
        }
        return s.data[i];
      case MemScope::Shared: {
        const int64_t j = shared_slot(b, i);
        if (s.pending[j]) [[unlikely]] not_waited(b, i);
        if (s.bulk_barrier[j] >= 0) [[unlikely]] check_bulk_copy_waited(b, j);
        if (!s.init[j]) uninitialized(b, i);
        if (!s.access.empty()) {
          AccessRecord& r = s.access[j];
          if (r.writer_epoch == epoch_ && r.writer != t_) race(b, i, shared_thread_text(r.writer), "write", "read", false);
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

  void store(int b, double index, double value) {
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

  // A write of v (already in the buffer's type) to slot j of shared buffer b.
  void store_shared(int b, int64_t j, double v) {
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

  // ---- expressions ----
  [[noreturn, gnu::noinline]] void division_by_zero(const CExpr& e) {
    fail("division-by-zero", "In " + where() + ", the integer expression '" + to_string(e.source) + "' divides by zero.",
         "Guard the division or fix the divisor.");
  }

  double eval(const CExpr& e) {
    const CExpr* a = e.args.data();
    double r = 0;
    switch (e.op) {
      case IOp::Const: return e.imm;
      case IOp::Var: return tenv_[e.slot];
      case IOp::Add: r = eval(a[0]) + eval(a[1]); break;
      case IOp::Sub: r = eval(a[0]) - eval(a[1]); break;
      case IOp::Mul: r = eval(a[0]) * eval(a[1]); break;
      case IOp::FloatDiv: r = eval(a[0]) / eval(a[1]); break;
      case IOp::IntDiv: {
        int64_t x = static_cast<int64_t>(eval(a[0])), y = static_cast<int64_t>(eval(a[1]));
        if (y == 0) division_by_zero(e);
        r = static_cast<double>(x / y);
        break;
      }
      case IOp::FloatMod: r = std::fmod(eval(a[0]), eval(a[1])); break;
      case IOp::IntMod: {
        int64_t x = static_cast<int64_t>(eval(a[0])), y = static_cast<int64_t>(eval(a[1]));
        if (y == 0) division_by_zero(e);
        r = static_cast<double>(x % y);
        break;
      }
      case IOp::FloatMin: r = std::fmin(eval(a[0]), eval(a[1])); break;
      case IOp::FloatMax: r = std::fmax(eval(a[0]), eval(a[1])); break;
      case IOp::IntMin: { double x = eval(a[0]), y = eval(a[1]); r = y < x ? y : x; break; }
      case IOp::IntMax: { double x = eval(a[0]), y = eval(a[1]); r = y > x ? y : x; break; }
      case IOp::Pow: r = std::pow(eval(a[0]), eval(a[1])); break;
      case IOp::IntXor: r = static_cast<double>(static_cast<int64_t>(eval(a[0])) ^ static_cast<int64_t>(eval(a[1]))); break;
      case IOp::EQ: return eval(a[0]) == eval(a[1]) ? 1.0 : 0.0;
      case IOp::NE: return eval(a[0]) != eval(a[1]) ? 1.0 : 0.0;
      case IOp::LT: return eval(a[0]) < eval(a[1]) ? 1.0 : 0.0;
      case IOp::LE: return eval(a[0]) <= eval(a[1]) ? 1.0 : 0.0;
      case IOp::GT: return eval(a[0]) > eval(a[1]) ? 1.0 : 0.0;
      case IOp::GE: return eval(a[0]) >= eval(a[1]) ? 1.0 : 0.0;
      case IOp::And: return (eval(a[0]) != 0 && eval(a[1]) != 0) ? 1.0 : 0.0;
      case IOp::Or: return (eval(a[0]) != 0 || eval(a[1]) != 0) ? 1.0 : 0.0;
      case IOp::Not: return eval(a[0]) == 0 ? 1.0 : 0.0;
      case IOp::Neg: r = -eval(a[0]); break;
      case IOp::Select: r = eval(a[0]) != 0 ? eval(a[1]) : eval(a[2]); break;
      case IOp::Cast: return convert_to_dtype(eval(a[0]), e.type);
      case IOp::Exp: r = std::exp(eval(a[0])); break;
      case IOp::Log: r = std::log(eval(a[0])); break;
      case IOp::Sqrt: r = std::sqrt(eval(a[0])); break;
      case IOp::Rsqrt: r = 1.0 / std::sqrt(eval(a[0])); break;
      case IOp::Tanh: r = std::tanh(eval(a[0])); break;
      case IOp::Erf: r = std::erf(eval(a[0])); break;
      case IOp::Abs: r = std::fabs(eval(a[0])); break;
      case IOp::RoundTf32: r = round_to_tf32(eval(a[0])); break;
      case IOp::RoundBf16: r = round_to_bf16(eval(a[0])); break;
      case IOp::RoundF16: r = round_to_f16(eval(a[0])); break;
      case IOp::Load: r = load(e.buffer, eval(a[0])); break;
      case IOp::Affine: {
        r = e.imm;
        for (const auto& [slot, coef] : e.slot_terms) r += coef * tenv_[slot];
        for (size_t i = 0; i < e.args.size(); ++i) r += e.arg_coefs[i] * eval(a[i]);
        return r;
      }
    }
    switch (e.rounding) {
      case Rounding::None: return r;
      case Rounding::F32: return static_cast<double>(static_cast<float>(r));
      case Rounding::F16: return round_to_f16(r);
      case Rounding::BF16: return round_to_bf16(r);
    }
    return r;
  }

  // ---- statements run by one thread ----
  void exec_thread(const CStmt& s) {
    switch (s.kind) {
      case StmtKind::Block:
        for (const auto& c : s.body) exec_thread(c);
        return;
      case StmtKind::For: {
        if (s.axis != GpuAxis::None) {
          int ax = axis_index(s.axis);
          double coord = s.axis == GpuAxis::ClusterX ? tenv_[kBlockX]
                         : is_block_axis(s.axis)       ? static_cast<double>(bidx_[ax])
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
        if (eval(s.cond) != 0) exec_thread(s.body[0]);
        else if (s.body.size() > 1) exec_thread(s.body[1]);
        return;
      case StmtKind::AsyncCopy: {
        step();
        const int64_t lanes = s.copy_bytes / 4;  // 4 or 16 bytes, checked when the kernel was compiled
        const double first = eval(s.index);
        const double src = lanes > 1 ? eval(s.value.args[0]) : 0;
        if (lanes > 1 && (std::fmod(first, static_cast<double>(lanes)) != 0 || std::fmod(src, static_cast<double>(lanes)) != 0))
          fail("async-copy-misaligned",
               "In " + where() + ", a " + std::to_string(s.copy_bytes) + "-byte asynchronous copy from '" +
                   k_.buffers[s.value.buffer].name + "' element " + number(src) + " into '" + k_.buffers[s.buffer].name +
                   "' element " + number(first) + " is not 16-byte aligned.",
               "Copy 16 bytes only from and to element indices that are multiples of 4.");
        BufferState& b = bufs_[s.buffer];
        for (int64_t k = 0; k < lanes; ++k) {
          const int64_t i = shared_slot(s.buffer, checked_index(s.buffer, first + static_cast<double>(k), "asynchronous write"));
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

  void clear_registers(int b, int64_t t) {
    int64_t size = k_.buffers[b].size;
    std::fill_n(bufs_[b].own_init.begin() + t * size, size, 0);
  }

  // ---- statements that hold a Barrier or AllReduce: run by all threads together ----
  [[noreturn, gnu::noinline]] void divergent(const std::string& what) {
    fail("divergent-barrier",
         "In kernel '" + k_.name + "', block " + block_text() + ", " + what +
             ", so a barrier or all-reduce inside it is not reached by every thread of the block.",
         "Move the barrier out of thread-dependent control flow: make loop bounds and conditions around it the same "
         "in all threads, and give thread loops around it the block's full extent.");
  }

  // The value of `e` in every thread, which must be the same.
  double uniform(const CExpr& e, const std::string& what) {
    double first = 0;
    for (int64_t t = 0; t < threads_; ++t) {
      set_thread(t);
      double v = eval(e);
      if (t == 0) first = v;
      else if (!(v == first))
        divergent(what + " is " + number(first) + " in thread " + thread_text(0) + " but " + number(v) + " in thread " +
                  thread_text(t));
    }
    return first;
  }

  void exec_collective(const CStmt& s) {
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
        int ax = axis_index(s.axis);
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
        if (c != 0) exec_collective(s.body[0]);
        else if (s.body.size() > 1) exec_collective(s.body[1]);
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
      case StmtKind::MbarrierInit:
      case StmtKind::MbarrierExpect:
      case StmtKind::MbarrierWait:
        fail("internal-error", "The interpreter ran a per-thread statement as a collective statement.",
             "Report this as a bug in the interpreter.");
    }
  }

  // ---- AllReduce ----
  struct Pair {
    double value, index;
  };

  Pair combine(const Pair& a, const Pair& b, ReduceOp op, DType dtype) const {
    switch (op) {
      case ReduceOp::Sum: return {convert_to_dtype(a.value + b.value, dtype), 0};
      case ReduceOp::Product: return {convert_to_dtype(a.value * b.value, dtype), 0};
      case ReduceOp::Min: return {std::fmin(a.value, b.value), 0};
      case ReduceOp::Max: return {std::fmax(a.value, b.value), 0};
      case ReduceOp::ArgMax:
        return (b.value > a.value || (b.value == a.value && b.index < a.index)) ? b : a;
      case ReduceOp::ArgMin:
        return (b.value < a.value || (b.value == a.value && b.index < a.index)) ? b : a;
    }
    return a;
  }

  // Combines the group's values as shuffles do: a butterfly (xor partner) within
  // each warp of 32 members, then a butterfly across the warps' partial results.
  void butterfly(std::vector<Pair>& v, ReduceOp op, DType dtype) const {
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

  void allreduce(const CStmt& s) {
    ++stats_.allreduces;
    step(threads_);
    const bool arg = s.index_buffer >= 0;
    const InterpBuffer& vinfo = k_.buffers[s.buffer];
    std::vector<int64_t> element(threads_);
    std::vector<Pair> contrib(threads_);
    for (int64_t t = 0; t < threads_; ++t) {
      set_thread(t);
      double index = eval(s.index);
      contrib[t].value = load(s.buffer, index);
      contrib[t].index = arg ? load(s.index_buffer, index) : 0;
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
          fail("warp-allreduce-spans-warps",
               "In kernel '" + k_.name + "', a warp all-reduce over " + std::to_string(s.width) + " threads along " +
                   gpu_axis_name(static_cast<GpuAxis>(static_cast<int>(GpuAxis::ThreadX) + ax)) +
                   " groups threads " + thread_text(t) + " and " + thread_text(member) + " of different warps.",
               "Use the block kind for groups that span warps, or reduce over threadIdx.x with a width that fits a warp.");
        group[j] = contrib[member];
      }
      butterfly(group, s.reduce_op, vinfo.dtype);
      for (int64_t j = 0; j < s.width; ++j) {
        int64_t member = t + j * stride;
        set_thread(member);
        store(s.buffer, static_cast<double>(element[member]), group[j].value);
        if (arg) store(s.index_buffer, static_cast<double>(element[member]), group[j].index);
      }
    }
    if (s.block_kind) ++epoch_;  // a block all-reduce synchronizes the block through shared memory
  }

  // Across the blocks of the cluster: thread lt of every block receives the values of
  // thread lt of all blocks combined in the order of the blocks, as the device library
  // does; the cluster barriers order everything before it against everything after.
  void cluster_allreduce(const CStmt& s, const std::vector<Pair>& contrib, const std::vector<int64_t>& element, DType dtype) {
    const bool arg = s.index_buffer >= 0;
    for (int64_t lt = 0; lt < tpb_; ++lt) {
      Pair acc = contrib[lt];
      for (int64_t r = 1; r < cluster_; ++r) acc = combine(acc, contrib[r * tpb_ + lt], s.reduce_op, dtype);
      for (int64_t r = 0; r < cluster_; ++r) {
        const int64_t member = r * tpb_ + lt;
        set_thread(member);
        store(s.buffer, static_cast<double>(element[member]), acc.value);
        if (arg) store(s.index_buffer, static_cast<double>(element[member]), acc.index);
      }
    }
    ++epoch_;
  }

  // ---- Mma ----
  // One product of the tile. 3xtf32 splits each f32 operand into TF32 high and low
  // parts and keeps lo*hi + hi*lo + hi*hi, as the device library does.
  static double product(double a, double b, bool split_tf32) {
    if (!split_tf32) return a * b;
    const double a_hi = round_to_tf32(a), a_lo = round_to_tf32(a - a_hi);
    const double b_hi = round_to_tf32(b), b_lo = round_to_tf32(b - b_hi);
    return a_lo * b_hi + a_hi * b_lo + a_hi * b_hi;
  }

  // Each warp's lanes supply their fragments; the warp's tile D = C + A x B is formed
  // from them through the instruction's layout and handed back lane by lane. Products
  // of the (already rounded) operands are exact in double; the sum is rounded to f32
  // once, as the tensor core's wide accumulation does up to its final rounding.
  void mma(const CStmt& s) {
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
          for (int kk = 0; kk < l.k; ++kk) sum += product(A[row * l.k + kk], B[kk * l.n + col], s.split_tf32);
          store(s.buffer, static_cast<double>(base[t] + j), sum);
        }
      }
    }
  }

  // ---- Wgmma ----
  // An element that an in-flight wgmma reads or writes: buffer, slot in the buffer's
  // storage (register slots are per thread), and its value.
  struct WgmmaAccess {
    int buffer;
    int64_t slot;
    double value;
  };
  struct WgmmaOp {
    std::vector<WgmmaAccess> reads;    // A registers and B shared elements, with the values read at issue
    std::vector<WgmmaAccess> results;  // accumulators, written when the group retires
    int64_t warpgroup = 0;
  };

  int64_t register_slot(int b, int64_t t, double index) {
    const int64_t i = checked_index(b, index, "wgmma access");
    return t * k_.buffers[b].size + i;
  }

  // Each warpgroup's threads supply their A elements; B is read from shared memory
  // through the descriptor (codegen/wgmma_layout.h). The f32 values of both are
  // truncated to tf32 as the tensor cores read them. D = C + A x B is computed now, from the
  // accumulators an earlier in-flight wgmma leaves (or the registers), and lands in
  // the registers when the group retires; the elements read must not change before.
  void wgmma(const CStmt& s) {
    step(threads_);
    const int64_t N = s.width, NA = N / 2;
    const InterpBuffer& bb = k_.buffers[s.source_buffer];
    for (int64_t w0 = 0; w0 < threads_; w0 += kWgmmaThreads) {
      WgmmaOp op;
      op.warpgroup = w0 / kWgmmaThreads;
      std::vector<double> A(kWgmmaM * kWgmmaK), C(kWgmmaM * N), B(kWgmmaK * N);
      std::vector<int64_t> acc_slot(kWgmmaThreads * NA);
      double start = 0;
      for (int lane = 0; lane < kWgmmaThreads; ++lane) {
        const int64_t t = w0 + lane;
        set_thread(t);
        const double st = eval(s.value);
        if (lane == 0) start = st;
        else if (st != start)
          fail("wgmma-descriptor-divergent",
               "In " + where() + ", the wgmma's B descriptor starts at element " + number(st) + " of '" + bb.name + "' but at " +
                   number(start) + " in the warpgroup's first thread.",
               "Give every thread of a warpgroup the same B descriptor.");
        for (int i = 0; i < kWgmmaAElements; ++i) {
          const CExpr& o = s.operands[i];
          const double v = eval(o);
          if (o.op == IOp::Load && k_.buffers[o.buffer].scope == MemScope::Register)
            op.reads.push_back({o.buffer, register_slot(o.buffer, t, eval(o.args[0])), v});
          const WgmmaElement e = wgmma_a_element(lane, i);
          A[e.row * kWgmmaK + e.col] = truncate_to_tf32(v);
        }
        const double base = eval(s.index);
        for (int64_t j = 0; j < NA; ++j) {
          const int64_t slot = register_slot(s.buffer, t, base + static_cast<double>(j));
          acc_slot[lane * NA + j] = slot;
          auto pending = wgmma_acc_.find({s.buffer, slot});
          const WgmmaElement e = wgmma_accumulator(lane, static_cast<int>(j));
          C[e.row * N + e.col] = pending != wgmma_acc_.end() ? pending->second : load(s.buffer, base + static_cast<double>(j));
        }
      }
      set_thread(w0);
      const int64_t start_bytes = static_cast<int64_t>(start) * 4;
      if (start < 0 || start_bytes % 16 != 0)
        fail("wgmma-b-misaligned",
             "In " + where() + ", the wgmma's B descriptor starts at element " + number(start) + " of '" + bb.name +
                 "', which is not a 16-byte boundary.",
             "Start B's descriptor at a 16-byte aligned element.");
      for (int k = 0; k < kWgmmaK; ++k)
        for (int64_t n = 0; n < N; ++n) {
          const int64_t address = wgmma_b_address(start_bytes, k, static_cast<int>(n));
          const double v = load(s.source_buffer, static_cast<double>(address / 4));
          op.reads.push_back({s.source_buffer, shared_slot(s.source_buffer, address / 4), v});
          B[k * N + n] = truncate_to_tf32(v);
        }
      for (int lane = 0; lane < kWgmmaThreads; ++lane)
        for (int64_t j = 0; j < NA; ++j) {
          const WgmmaElement e = wgmma_accumulator(lane, static_cast<int>(j));
          double sum = C[e.row * N + e.col];
          for (int k = 0; k < kWgmmaK; ++k) sum += A[e.row * kWgmmaK + k] * B[k * N + e.col];
          const double v = convert_to_dtype(sum, DType::f32);
          const int64_t slot = acc_slot[lane * NA + j];
          wgmma_acc_[{s.buffer, slot}] = v;
          op.results.push_back({s.buffer, slot, v});
        }
      open_wgmma_.push_back(std::move(op));
    }
  }

  void retire_wgmma_group(const std::vector<WgmmaOp>& group) {
    for (const WgmmaOp& op : group) {
      for (const WgmmaAccess& r : op.reads)
        if (!(bufs_[r.buffer].data[r.slot] == r.value) && !(std::isnan(r.value) && std::isnan(bufs_[r.buffer].data[r.slot])))
          fail("wgmma-operand-overwritten",
               "In kernel '" + k_.name + "', block " + block_text() + ", warpgroup " + std::to_string(op.warpgroup) + ", the " +
                   mem_scope_name(k_.buffers[r.buffer].scope) + " buffer '" + k_.buffers[r.buffer].name +
                   "' that an in-flight wgmma reads changed (slot " + std::to_string(r.slot) + ": " + number(r.value) + " -> " +
                   number(bufs_[r.buffer].data[r.slot]) + ") before its group was waited for.",
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

  // ---- LdMatrix ----
  // Each warp's lanes give their row addresses; every lane then reads the elements the
  // instruction hands it (codegen/ldmatrix.h) and writes them to its fragment.
  void ldmatrix(const CStmt& s) {
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
             "Give every row address of an ldmatrix a 16-byte aligned element index, or load the fragment with scalar loads.");
    }
    std::vector<double> values(static_cast<size_t>(s.matrices * per_word));
    for (int64_t w = 0; w < threads_; w += 32)
      for (int lane = 0; lane < 32; ++lane) {
        set_thread(w + lane);
        for (int j = 0; j < s.matrices; ++j)
          for (int e = 0; e < per_word; ++e) {
            const LdMatrixSource from = ldmatrix_source(j, lane, e, per_word, s.transpose);
            values[j * per_word + e] = load(s.source_buffer, static_cast<double>(address[w + from.address_lane] + from.column));
          }
        for (size_t i = 0; i < values.size(); ++i) store(s.buffer, static_cast<double>(base[w + lane] + static_cast<int64_t>(i)), values[i]);
      }
  }

  std::vector<WgmmaOp> open_wgmma_;                                // the block's uncommitted wgmma instructions
  std::deque<std::vector<WgmmaOp>> wgmma_groups_;                  // committed groups in flight, oldest first
  std::map<std::pair<int, int64_t>, double> wgmma_acc_;            // accumulator slot -> value an in-flight wgmma leaves
  std::vector<std::vector<PendingCopy>> open_copies_;              // per thread: the open copy group
  std::vector<std::deque<std::vector<PendingCopy>>> copy_groups_;  // per thread: committed groups in flight
  std::map<std::pair<int, int64_t>, int> mbarrier_ids_;            // (buffer, element) -> index into mbarriers_
  std::vector<Mbarrier> mbarriers_;                                // the block's initialised mbarriers
  std::vector<std::map<int, int64_t>> observed_phases_;            // per thread: mbarrier -> phases seen complete

  const CompiledKernel& k_;
  const InterpOptions& opt_;
  InterpStats& stats_;
  int64_t tpb_ = 1;       // threads per block
  int64_t cluster_ = 1;   // blocks run together (the cluster along x)
  int64_t threads_ = 1;   // threads run together: tpb_ * cluster_
  int nslots_ = 0;
  std::vector<double> env_;
  std::vector<BufferState> bufs_;
  std::array<int64_t, 3> bidx_{0, 0, 0};
  int64_t block_linear_ = 0;
  int64_t epoch_ = 0;
  int64_t t_ = 0;
  double* tenv_ = nullptr;
};

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
           "The buffer '" + spec.name + "' has " + std::to_string(it->second.size()) + " elements but the program expects " +
               std::to_string(n) + ".",
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
  for (const CompiledKernel& k : kernels) KernelRunner(k, buffers, options, stats).run();
  return stats;
}

}  // namespace cusched
