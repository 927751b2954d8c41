#pragma once
// The device header library (codegen/device/*.cuh) as embedded text: the headers a
// generated kernel includes, to hand to NVRTC (or write next to a .cu file).
#include <map>
#include <string>

namespace cusched {

// Include name ("cusched_device.cuh", "cusched_reduce.cuh", ...) -> contents.
const std::map<std::string, std::string>& device_headers();

}  // namespace cusched
