#pragma once
// The message tags between MPI rank 0 and its evaluator ranks, and how long a
// rank waits between polls (ranks poll with a short sleep instead of spinning in
// a blocking receive, so oversubscribed ranks leave the CPU to the search).
namespace cusched::search::mpi_protocol {

constexpr int kTagTask = 11;    // rank 0 -> rank: one task (mpi_task_codec.h)
constexpr int kTagResult = 12;  // rank -> rank 0: the result of that task
constexpr int kTagStop = 13;    // rank 0 -> rank: no more work; finalize and exit
constexpr int kPollMicroseconds = 2000;

}  // namespace cusched::search::mpi_protocol
