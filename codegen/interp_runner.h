#pragma once
// The interpreter's run of one compiled kernel over its whole grid (KernelRunner): the
// state of the running block's threads and buffers, and the member functions, defined by
// concern: interpreter.cpp (blocks, threads, expressions, per-thread statements),
// interp_memory.cpp (loads, stores, bounds, initialisation and race checks),
// interp_mbarrier.cpp (mbarriers and bulk copies), interp_collective.cpp (statements
// that all threads run together: barriers, AllReduce), interp_tensor_cores.cpp (Mma,
// Wgmma, LdMatrix).
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "codegen/gpu_axis.h"
#include "codegen/interp_kernel.h"
#include "codegen/interpreter.h"

namespace cusched::interp {

// Who last wrote and read an element, and in which barrier interval (epoch).
struct AccessRecord {
  int64_t writer = -1, writer_epoch = -1;
  int64_t reader = -1, reader_epoch = -1;  // reader -2: several threads read in reader_epoch
};

struct BufferState {
  double* data = nullptr;
  uint8_t* init = nullptr;  // shared and register buffers: element written
  std::vector<double> own;  // shared: size elements; register: threads * size
  std::vector<uint8_t> own_init;
  std::vector<AccessRecord> access;   // race tracking, one record per element
  std::vector<int32_t> pending;       // shared: asynchronous copies in flight into each element
  std::vector<int32_t> bulk_barrier;  // shared: the mbarrier of the element's last bulk copy, or -1
  std::vector<int64_t> bulk_phase;    // shared: the phase of that mbarrier the copy belongs to
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
  std::string name;  // for messages: buffer[element]
  int64_t arrivals = 1;
  int64_t arrivals_left = 1;
  int64_t tx = 0;         // bytes announced minus bytes copied in the current phase
  int64_t completed = 0;  // phases completed so far
  int64_t init_thread = -1, init_epoch = -1;
  std::vector<PendingCopy> copies;
};

inline std::string triple(int64_t x, int64_t y, int64_t z) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

inline std::string number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// Runs one compiled kernel over its whole grid.

class KernelRunner {
 public:
  KernelRunner(const CompiledKernel& k, HostBuffers& host, const InterpOptions& opt, InterpStats& stats);

  // A cluster's blocks (all of grid.x) run together as one group of threads, each
  // block with its own shared memory; without a cluster, blocks run one by one.
  void run();

 private:
  void run_block(int64_t bx, int64_t by, int64_t bz);

  void set_thread(int64_t t);

  // ---- where things happen, for messages ----
  // threadIdx.x, .y and .z of the thread with linear index `lt` in its block.
  std::array<int64_t, 3> thread_xyz(int64_t lt) const;
  std::string thread_triple(int64_t lt) const;
  std::string block_text() const { return triple(bidx_[0] + t_ / tpb_, bidx_[1], bidx_[2]); }
  // Thread t of the running group: its index in its block, and its block when the
  // group is a cluster.
  std::string thread_text(int64_t t) const;
  std::string where() const;

  void step(int64_t n = 1);

  // ---- memory ----
  // Where element i of shared buffer b lives for the running thread's block.
  int64_t shared_slot(int b, int64_t i) const { return (t_ / tpb_) * k_.buffers[b].size + i; }

  int64_t checked_index(int b, double index, const char* access);

  [[noreturn, gnu::noinline]] void out_of_bounds(int b, double index, const char* access);

  [[noreturn, gnu::noinline]] void uninitialized(int b, int64_t i);

  [[noreturn, gnu::noinline]] void not_waited(int b, int64_t i);

  // A read of an element that a bulk copy writes: the reading thread must have waited
  // on the mbarrier phase that copy belongs to.
  void check_bulk_copy_waited(int b, int64_t i);

  // ---- mbarriers and bulk copies ----
  int mbarrier_id(int b, double index, bool create);

  // Completes the mbarrier's current phase when every arrival happened and every
  // announced byte was copied: its bulk copies land.
  void complete_phase_if_done(int id);

  void bulk_copy(const CStmt& s);
  // A TensorCopy: the box's elements (zeros outside the source) land in the destination,
  // swizzled where asked, when the mbarrier phase completes.
  void tensor_copy(const CStmt& s);

  void mbarrier_init(const CStmt& s);

  void mbarrier_expect(const CStmt& s);

  void mbarrier_wait(const CStmt& s);

  [[noreturn, gnu::noinline]] void race(int b, int64_t i, const std::string& other, const char* other_access,
                                        const char* access, bool global);

  // A write of shared element i of buffer `b` (state `st`) races with another thread's
  // write or read of it since the last barrier.
  void check_shared_write(int b, const BufferState& st, int64_t i, const char* access);

  std::string shared_thread_text(int64_t t) const;
  std::string global_thread_text(int64_t g) const;

  // Two accesses to global memory conflict when they come from different threads and
  // no barrier orders them: different blocks (also of one cluster), or the same
  // barrier interval.
  bool global_conflict(int64_t other, int64_t other_epoch, int64_t me) const;
  // A thread's identity across the launch: its block's linear index and its index in it.
  int64_t global_thread_id() const { return block_linear_ * tpb_ + t_; }

  double load(int b, double index);

  void store(int b, double index, double value);

  // A write of v (already in the buffer's type) to slot j of shared buffer b.
  void store_shared(int b, int64_t j, double v);

  // ---- expressions ----
  [[noreturn, gnu::noinline]] void division_by_zero(const CExpr& e);

  double eval(const CExpr& e);

  // ---- statements run by one thread ----
  void exec_thread(const CStmt& s);

  void clear_registers(int b, int64_t t);

  // ---- statements that hold a Barrier or AllReduce: run by all threads together ----
  [[noreturn, gnu::noinline]] void divergent(const std::string& what);

  // The value of `e` in every thread, which must be the same.
  double uniform(const CExpr& e, const std::string& what);

  void exec_collective(const CStmt& s);

  // ---- AllReduce ----
  // A thread's accumulator: the value and, for a pair reduction, the second value
  // (argmin/argmax: the index; logsumexp: the sum of exp(v - value); variance: the sum of
  // squared deviations from the mean in value) and, for variance, the count in third.
  struct Pair {
    double value, second, third = 0;
  };

  Pair combine(const Pair& a, const Pair& b, ReduceOp op, DType dtype) const;

  // Combines the group's values as shuffles do: a butterfly (xor partner) within
  // each warp of 32 members, then a butterfly across the warps' partial results.
  void butterfly(std::vector<Pair>& v, ReduceOp op, DType dtype) const;

  void allreduce(const CStmt& s);
  void scan(const CStmt& s);

  // Across the blocks of the cluster: thread lt of every block receives the values of
  // thread lt of all blocks combined in the order of the blocks, as the device library
  // does; the cluster barriers order everything before it against everything after.
  void cluster_allreduce(const CStmt& s, const std::vector<Pair>& contrib, const std::vector<int64_t>& element,
                         DType dtype);

  // ---- Mma ----
  // One product of the tile at the Mma's operand precision: tf32 truncates both operands,
  // 3xtf32 splits each into TF32 high and low parts and keeps lo*hi + hi*lo + hi*hi, as
  // the device library does; bf16 / f16 operands come rounded.
  static double product(double a, double b, Precision precision);

  // Each warp's lanes supply their fragments; the warp's tile D = C + A x B is formed
  // from them through the instruction's layout and handed back lane by lane. Products
  // of the (already rounded) operands are exact in double; the sum is rounded to f32
  // once, as the tensor core's wide accumulation does up to its final rounding.
  void mma(const CStmt& s);

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

  int64_t register_slot(int b, int64_t t, double index);

  // Each warpgroup's threads supply their A elements; B is read from shared memory
  // through the descriptor (codegen/wgmma_layout.h). The f32 values of both are
  // truncated to tf32 as the tensor cores read them. D = C + A x B is computed now, from the
  // accumulators an earlier in-flight wgmma leaves (or the registers), and lands in
  // the registers when the group retires; the elements read must not change before.
  void wgmma(const CStmt& s);

  void retire_wgmma_group(const std::vector<WgmmaOp>& group);

  // ---- LdMatrix ----
  // Each warp's lanes give their row addresses; every lane then reads the elements the
  // instruction hands it (codegen/ldmatrix.h) and writes them to its fragment.
  void ldmatrix(const CStmt& s);

  std::vector<WgmmaOp> open_wgmma_;                      // the block's uncommitted wgmma instructions
  std::deque<std::vector<WgmmaOp>> wgmma_groups_;        // committed groups in flight, oldest first
  std::map<std::pair<int, int64_t>, double> wgmma_acc_;  // accumulator slot -> value an in-flight wgmma leaves
  std::vector<std::vector<PendingCopy>> open_copies_;    // per thread: the open copy group
  std::vector<std::deque<std::vector<PendingCopy>>> copy_groups_;  // per thread: committed groups in flight
  std::map<std::pair<int, int64_t>, int> mbarrier_ids_;            // (buffer, element) -> index into mbarriers_
  std::vector<Mbarrier> mbarriers_;                                // the block's initialised mbarriers
  std::vector<std::map<int, int64_t>> observed_phases_;            // per thread: mbarrier -> phases seen complete

  const CompiledKernel& k_;
  const InterpOptions& opt_;
  InterpStats& stats_;
  int64_t tpb_ = 1;      // threads per block
  int64_t cluster_ = 1;  // blocks run together (the cluster along x)
  int64_t threads_ = 1;  // threads run together: tpb_ * cluster_
  int nslots_ = 0;
  std::vector<double> env_;
  std::vector<BufferState> bufs_;
  std::array<int64_t, 3> bidx_{0, 0, 0};
  int64_t block_linear_ = 0;
  int64_t epoch_ = 0;
  int64_t t_ = 0;
  double* tenv_ = nullptr;
};

}  // namespace cusched::interp
