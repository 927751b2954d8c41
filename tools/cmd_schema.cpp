// `cusched schema`: the JSON Schema of a schedule, from the primitive registry.
#include <iostream>

#include "dsl/schedule.h"
#include "tools/command.h"

namespace cusched::tools {
namespace {

CommandRegistration schema_command{{"schema", "Print the JSON Schema of a schedule (usable for LLM structured outputs)",
                                    [](CLI::App& sub) -> std::function<int()> {
                                      static bool json = false;
                                      sub.add_flag("--json", json,
                                                   "Accepted for uniformity: the schema is JSON already");
                                      return [] {
                                        std::cout << schedule_json_schema().dump(2) << "\n";
                                        return kExitOk;
                                      };
                                    }}};

}  // namespace
}  // namespace cusched::tools
