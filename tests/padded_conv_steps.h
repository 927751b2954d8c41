#pragma once
// The tensor-copy schedule of tests/legality/problems/padded_relu_conv.json that the CPU
// and GPU tests share: images on blockIdx.x, the channel sum in pairs, each pair's region of
// R (rows and columns widened by the taps, so it starts in the padding at -1) staged in
// shared memory and pipelined 2 deep on the tensor memory accelerator. With
// `column_tile` > 0 the columns are split into tiles of that many, one per blockIdx.y.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/source_tree.h"

namespace cusched::test {

inline std::string padded_conv_file() { return source_tree() + "/tests/legality/problems/padded_relu_conv.json"; }

inline nlohmann::json padded_conv_tensor_steps(int column_tile = 0) {
  using nlohmann::json;
  json s = json::array();
  const bool tiled = column_tile > 0;
  if (tiled)
    s.push_back(
        {{"op", "split"}, {"stage", "Y"}, {"loop", "ow"}, {"factor", column_tile}, {"outer", "owo"}, {"inner", "owi"}});
  s.push_back({{"op", "split"}, {"stage", "Y"}, {"loop", "rc"}, {"factor", 2}, {"outer", "rco"}, {"inner", "rci"}});
  s.push_back({{"op", "reorder"},
               {"stage", "Y"},
               {"loops", tiled ? json{"n", "owo", "o", "rco", "oh", "owi", "rci", "kh", "kw"}
                               : json{"n", "o", "rco", "oh", "ow", "rci", "kh", "kw"}}});
  s.push_back({{"op", "bind"}, {"stage", "Y"}, {"loop", "n"}, {"axis", "blockIdx.x"}});
  if (tiled) s.push_back({{"op", "bind"}, {"stage", "Y"}, {"loop", "owo"}, {"axis", "blockIdx.y"}});
  s.push_back({{"op", "bind"}, {"stage", "Y"}, {"loop", "oh"}, {"axis", "threadIdx.y"}});
  s.push_back({{"op", "bind"}, {"stage", "Y"}, {"loop", tiled ? "owi" : "ow"}, {"axis", "threadIdx.x"}});
  s.push_back({{"op", "cache_read"}, {"stage", "Y"}, {"source", "R"}, {"scope", "shared"}, {"at", "rco"}, {"pad", 0}});
  s.push_back({{"op", "pipeline"}, {"stage", "Y"}, {"loop", "rco"}, {"depth", 2}, {"engine", "tensor"}});
  return s;
}

}  // namespace cusched::test
