// The kernel contract: the signature a problem expects, read from JSON.
#include "audit/audit.h"
#include "dsl/error.h"

namespace cusched::audit {

namespace {
[[noreturn]] void bad_contract(const std::string& what) {
  fail("bad-kernel-contract", "The kernel contract is not valid: " + what + ".",
       "Write it as {\"kernel_name\": \"k\", \"params\": [{\"name\": \"A\", \"type\": \"const float*\", "
       "\"is_output\": false}]}.");
}
}  // namespace

KernelContract KernelContract::from_json(const nlohmann::json& j) {
  if (!j.is_object()) bad_contract("it is not a JSON object");
  if (!j.contains("kernel_name") || !j["kernel_name"].is_string() || j["kernel_name"].get<std::string>().empty())
    bad_contract("\"kernel_name\" is missing or not a non-empty string");
  if (!j.contains("params") || !j["params"].is_array()) bad_contract("\"params\" is missing or not an array");
  KernelContract c;
  c.kernel_name = j["kernel_name"].get<std::string>();
  for (size_t i = 0; i < j["params"].size(); ++i) {
    const auto& p = j["params"][i];
    std::string where = "parameter " + std::to_string(i);
    if (!p.is_object()) bad_contract(where + " is not an object");
    if (!p.contains("name") || !p["name"].is_string()) bad_contract(where + " has no string \"name\"");
    if (!p.contains("type") || !p["type"].is_string()) bad_contract(where + " has no string \"type\"");
    ContractParam cp;
    cp.name = p["name"].get<std::string>();
    cp.type = p["type"].get<std::string>();
    if (p.contains("is_output")) {
      if (!p["is_output"].is_boolean()) bad_contract(where + " has an \"is_output\" that is not true or false");
      cp.is_output = p["is_output"].get<bool>();
    }
    c.params.push_back(std::move(cp));
  }
  return c;
}

std::vector<const KernelContract*> contracts(const AuditOptions& options) {
  std::vector<const KernelContract*> out;
  if (options.contract) out.push_back(&*options.contract);
  for (const auto& c : options.more_contracts) out.push_back(&c);
  return out;
}

nlohmann::json KernelContract::to_json() const {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : this->params) params.push_back({{"name", p.name}, {"type", p.type}, {"is_output", p.is_output}});
  return {{"kernel_name", kernel_name}, {"params", params}};
}

}  // namespace cusched::audit
