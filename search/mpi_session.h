#pragma once
// One MPI job of `cusched search --mpi`: MPI started with errors returned rather
// than fatal (so a lost rank is a condition the search handles), and what every
// rank brought: its host and the GPU it evaluates on. Rank 0 runs the search;
// ranks 1..N-1 evaluate. Only the thread that built the session calls MPI.
#include <string>
#include <vector>

namespace cusched::search {

struct RankInfo {
  int rank = 0;
  std::string host;
  int device = -1;  // the GPU it evaluates on: its index among the evaluator ranks of its host, modulo the
                    // GPUs the host shows it; -1: none (rank 0, or no GPU)
  int cpus = 0;     // CPUs it may run on (mpirun binds ranks to one core by default for -n 2 or less)
};

class MpiSession {
 public:
  // MPI_Init_thread and a gather of every rank's RankInfo (collective: every
  // rank of the job must build one). Throws UserError ("mpi-init-failed").
  MpiSession();
  // Rank 0 first tells every other rank to stop; then MPI_Finalize.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const RankInfo& self() const { return self_; }
  // Rank 0: every rank's info, in rank order (rank 0 included). Others: empty.
  const std::vector<RankInfo>& ranks() const { return ranks_; }

  // Rank 0: sends "stop" to every other rank (once; later calls do nothing).
  void stop_ranks();

 private:
  int rank_ = 0, size_ = 1;
  RankInfo self_;
  std::vector<RankInfo> ranks_;
  bool stopped_ = false;
};

}  // namespace cusched::search
