#include "problems/contract.h"

namespace cusched {

nlohmann::json kernel_contract(const Problem& p) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& in : p.pipeline.inputs())
    params.push_back({{"name", in->name},
                      {"type", "const " + dtype_c_name(in->dtype) + "*"},
                      {"dtype", dtype_name(in->dtype)},
                      {"is_output", false}});
  for (const auto& out : p.pipeline.outputs()) {
    const FuncDef* f = p.pipeline.find_stage(out);
    params.push_back(
        {{"name", out}, {"type", dtype_c_name(f->dtype) + "*"}, {"dtype", dtype_name(f->dtype)}, {"is_output", true}});
  }
  return {{"kernel_name", p.name + "_kernel"}, {"params", params}};
}

}  // namespace cusched
