#pragma once
// Where a command takes its problem and its size: `-p NAME` (a built-in problem) or
// `-p path/to/problem.json` (a problem file: a value containing '/' or ending in
// .json), `--size NAME` (one of the problem's size tables) and `--shape NAME=V,...`
// (sizes given on the command line, over the chosen table).
#include <string>

#include "problems/problem.h"
#include "search/store.h"

namespace cusched::tools {

bool names_problem_file(const std::string& spec);

// Run `run` of `store`, or its latest run when `run` is 0; fails with `code` (the
// command's own, e.g. status-no-run) when the store has no such run.
search::RunInfo resolve_run(const search::Store& store, int64_t run, const std::string& code);

// The problem a stored run searched: its stored definition, else the built-in of its name.
Problem problem_of_run(const search::RunInfo& run);

// The built-in problem named `spec`, or the problem file at `spec`. UserErrors:
// unknown-problem, unreadable-problem-file, bad-json and the problem-file codes.
Problem resolve_problem(const std::string& spec);

// The size a command works at. `size` empty: `fallback`, or the problem's default size
// when `fallback` is empty. `shape` non-empty ("N=4096,D=999"): those values over that
// size table, added to `problem` as a table named after the shape; the kernels are
// specialised to it. Every size is checked: codes bad-shape, unknown-shape-size and
// shape-overflow.
std::string resolve_size(Problem& problem, const std::string& size, const std::string& shape,
                         const std::string& fallback = "");

// Bytes every input and output of `problem` takes at `size` (the same count as
// Problem::min_bytes, in exact integers); fails with shape-overflow past 2^63.
int64_t buffer_bytes(const Problem& problem, const std::string& size);

// On the GPU path: fails with shape-exceeds-device-memory when the buffers at `size`
// (the candidate's and the reference's outputs, the inputs once) exceed
// `device_memory_bytes` (0: not known, nothing is checked).
void require_fits_device(const Problem& problem, const std::string& size, int64_t device_memory_bytes);

// The total memory of GPU 0 when a driver is present, else 0.
int64_t device_memory_bytes();

}  // namespace cusched::tools
