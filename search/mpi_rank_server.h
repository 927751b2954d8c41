#pragma once
// What ranks 1..N-1 of `cusched search --mpi` do: take tasks from rank 0, verify
// each (on the rank's GPU through a worker process, or in the interpreter), send
// the result back, until rank 0 says stop.
#include <ostream>

#include "search/mpi_session.h"

namespace cusched::search {

// Serves until rank 0 sends stop; returns the process exit code. Problems with
// one task become that task's verdict; `log` gets only what rank 0 cannot see.
//
// Test hook: CUSCHED_TEST_MPI_RANK_DIES=R:K makes rank R kill itself (SIGKILL)
// when task K+1 arrives, after answering K tasks. CUSCHED_MPI_TRACE (any value)
// logs each task's start, verdict and duration.
int serve_rank(MpiSession& session, std::ostream& log);

}  // namespace cusched::search
