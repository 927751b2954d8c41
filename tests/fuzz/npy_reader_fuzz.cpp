// libFuzzer target: arbitrary bytes as a .npy file. read_npy must answer with an array
// whose data matches its shape and dtype, or with the structured error "bad-npy";
// any other exception, an abort or an ASan report is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#include "dsl/error.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/cusched-npy-fuzz-" + std::to_string(getpid()) + ".npy";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    cusched::runtime::NpyArray a = cusched::runtime::read_npy(path);
    if (a.data.size() != static_cast<size_t>(a.elements()) * static_cast<size_t>(cusched::dtype_bytes(a.dtype))) {
      std::fprintf(stderr, "npy fuzz: data of %zu bytes does not match the shape\n", a.data.size());
      std::abort();
    }
  } catch (const cusched::UserError& e) {
    if (e.error().code != "bad-npy") {
      std::fprintf(stderr, "npy fuzz: unexpected error code %s\n", e.error().code.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "npy fuzz: read_npy threw something other than a structured error: %s\n", e.what());
    std::abort();
  }
  return 0;
}
