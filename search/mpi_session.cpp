#include "search/mpi_session.h"

#include <chrono>
#include <cstring>
#include <thread>

#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include "dsl/error.h"
#include "runtime/cuda_driver.h"
#include "runtime/device_info.h"
#include "search/mpi_protocol.h"

namespace cusched::search {
namespace {

constexpr int kHostChars = 64;

struct WireInfo {
  int device;
  int cpus;
  char host[kHostChars];
};

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fail("mpi-init-failed", std::string("MPI failed while ") + what + ": " + std::string(text, len) + ".",
       "Launch with mpirun (see docs/search.md, \"Several GPUs and MPI\") and check that every rank runs the same "
       "build.");
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "starting");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "asking for this rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "asking for the job size");

  // This rank's index among the evaluator ranks of its host: its local rank, less
  // one on the host that also runs rank 0.
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local), "grouping ranks by host");
  int local_rank = 0, is_rank0 = rank_ == 0, host_has_rank0 = 0;
  MPI_Comm_rank(local, &local_rank);
  check(MPI_Allreduce(&is_rank0, &host_has_rank0, 1, MPI_INT, MPI_MAX, local), "finding rank 0's host");
  MPI_Comm_free(&local);
  int index_on_host = local_rank - host_has_rank0;

  self_.rank = rank_;
  char host[kHostChars] = {};
  gethostname(host, sizeof host - 1);
  self_.host = host;
  const int gpus = runtime::driver_available() ? 0 : runtime::device_count();
  if (gpus > 0 && rank_ != 0) self_.device = index_on_host % gpus;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) self_.cpus = CPU_COUNT(&allowed);

  WireInfo mine{};
  mine.device = self_.device;
  mine.cpus = self_.cpus;
  std::memcpy(mine.host, host, kHostChars);  // host is NUL-terminated: gethostname got one byte less
  std::vector<WireInfo> all(rank_ == 0 ? size_ : 0);
  check(MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD),
        "gathering the ranks' GPUs");
  for (int r = 0; r < static_cast<int>(all.size()); ++r)
    ranks_.push_back({r, std::string(all[r].host, strnlen(all[r].host, kHostChars)), all[r].device, all[r].cpus});
}

void MpiSession::stop_ranks() {
  if (rank_ != 0 || stopped_) return;
  stopped_ = true;
  static const char kStop = 0;
  std::vector<MPI_Request> requests;
  for (int r = 1; r < size_; ++r) {
    MPI_Request q;
    if (MPI_Isend(&kStop, 1, MPI_CHAR, r, mpi_protocol::kTagStop, MPI_COMM_WORLD, &q) == MPI_SUCCESS)
      requests.push_back(q);
  }
  // A lost rank may never take its message: wait a few seconds, not for ever.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (auto& q : requests) {
    int done = 0;
    while (!done && std::chrono::steady_clock::now() < deadline) {
      if (MPI_Test(&q, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
      if (!done) std::this_thread::sleep_for(std::chrono::microseconds(mpi_protocol::kPollMicroseconds));
    }
  }
}

MpiSession::~MpiSession() {
  stop_ranks();
  MPI_Finalize();
}

}  // namespace cusched::search
