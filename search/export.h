#pragma once
// Turns a kernel bundle into one standalone .cu file: the kernel source with
// its headers inlined, a host launcher `cusched_launch(<input and output
// pointers in buffer order>, cudaStream_t)`, and a PyTorch snippet (in a
// trailing comment) that loads the file with load_inline and checks it.
#include <cstdint>
#include <optional>
#include <string>

#include "codegen/kernel_bundle.h"

namespace cusched::search {

class Store;

struct ExportOptions {
  // PyTorch expression computing the outputs from the inputs, naming inputs by
  // their buffer names, e.g. "torch.softmax(x, dim=1)". Empty: the snippet
  // leaves a marked line for it.
  std::string torch_op;
  double atol = 1e-2, rtol = 1e-2;
  std::string title;                    // first comment line, e.g. "softmax, candidate 42, 0.61 ms"
  std::string file_name = "kernel.cu";  // the name the snippet reads the file back from
  // The problem size the bundle was lowered at ("small" after a CPU search); any size
  // but "bench" is stated in the header and by the snippet.
  std::string size = "bench";
};

std::string export_kernel(const KernelBundle& bundle, const ExportOptions& options = {});

// The source of `bundle` with every #include of one of its headers replaced by
// the header's text (each header once; #pragma once lines dropped).
std::string inline_headers(const KernelBundle& bundle);

// Exports a stored candidate: the given one, or the best verified candidate of
// `run` (default: the latest run). Throws UserError when there is none or it
// has no kernel bundle. Uses the run config's "torch_op" when options has none.
std::string export_candidate(const Store& store, std::optional<int64_t> candidate, std::optional<int64_t> run,
                             ExportOptions options = {});

}  // namespace cusched::search
