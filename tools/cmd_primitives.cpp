// `cusched primitives`: the primitive reference (docs/primitives.md is its output).
#include <iostream>

#include "dsl/schedule.h"
#include "tools/command.h"

namespace cusched::tools {
namespace {

CommandRegistration reg{
    {"primitives", "Print the schedule primitive reference as Markdown", [](CLI::App&) -> std::function<int()> {
       return [] {
         std::cout << primitive_reference_markdown();
         return kExitOk;
       };
     }}};

}  // namespace
}  // namespace cusched::tools
