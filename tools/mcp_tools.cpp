#include "tools/mcp_tools.h"

#include <algorithm>
#include <filesystem>

#include "tools/mcp_searches.h"
#include "tools/mcp_tool_support.h"

namespace cusched::tools::mcp {
namespace {

using nlohmann::json;

json text(const std::string& description) { return {{"type", "string"}, {"description", description}}; }
json integer(const std::string& description, int64_t lo = 0) {
  return {{"type", "integer"}, {"minimum", lo}, {"description", description}};
}
json number(const std::string& description) {
  return {{"type", "number"}, {"minimum", 0}, {"description", description}};
}
json flag(const std::string& description) { return {{"type", "boolean"}, {"description", description}}; }
json one_of_words(std::vector<std::string> words, const std::string& description) {
  return {{"type", "string"}, {"enum", words}, {"description", description}};
}
json problem_property() {
  return {{"anyOf", json::array({{{"type", "string"}}, {{"type", "object"}}})},
          {"description",
           "A built-in problem name (list_problems), a path to a problem file, or a problem file's JSON object"}};
}
json schedule_property() {
  return {{"anyOf", json::array({{{"type", "array"}, {"items", {{"type", "object"}}}}, {{"type", "string"}}})},
          {"description",
           "The schedule: a JSON array of steps (schedule_schema), or \"baseline\", \"best\", or a path to a "
           "schedule file"}};
}
json size_property() {
  return text("Size table: \"small\" (CPU-sized) or the problem's bench size name (describe_problem lists them)");
}
json shape_property() { return text("Sizes NAME=V,NAME=V,... over the chosen size, e.g. \"N=1024,D=512\""); }
json timeout_property() { return number("Seconds before the call is stopped (default depends on the tool)"); }

json object_schema(json properties, std::vector<std::string> required = {}) {
  json s = {{"type", "object"},
            {"properties", properties.is_null() ? json::object() : properties},
            {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

double timeout_of(const json& a, double fallback) {
  return a.contains("timeout_s") && a["timeout_s"].is_number() && a["timeout_s"].get<double>() > 0
             ? a["timeout_s"].get<double>()
             : fallback;
}

// The common problem/schedule/size flags of validate, lower and run.
std::vector<std::string> schedule_command(ToolEnv& env, const std::string& command, const json& a) {
  std::vector<std::string> argv = {command, "--problem", problem_argument(env, a["problem"])};
  if (a.contains("schedule")) argv.insert(argv.end(), {"--schedule", schedule_argument(env, a["schedule"])});
  append_flags(argv, a, {"size", "shape", "strict"});
  return argv;
}

std::string store_of(const json& a) { return std::filesystem::absolute(a["store"].get<std::string>()).string(); }

std::string default_store(const json& a) {
  std::string name = a["problem"].is_string() ? a["problem"].get<std::string>() : "problem";
  if (name.find('/') != std::string::npos || name.ends_with(".json"))
    name = std::filesystem::path(name).stem().string();
  return std::filesystem::absolute("cusched-" + name + ".db").string();
}

std::vector<ToolSpec> make_table() {
  std::vector<ToolSpec> t;
  t.push_back({"list_problems", "List problems",
               "The built-in problems with their sizes, inputs, outputs, FLOPs, bytes, tolerance and kernel "
               "contract.",
               object_schema(nullptr), true,
               [](const json&, ToolEnv& env) { return run_cli(env, {"problems", "--json"}, 60); }});
  t.push_back({"describe_problem", "Describe a problem",
               "One problem's algorithm: its stages with their loops (names and extents at each size), the "
               "reduction loops, the kernel contract and the baseline schedule. Read it before writing a schedule: "
               "schedules name these stages and loops.",
               object_schema({{"problem", problem_property()}}, {"problem"}), true, [](const json& a, ToolEnv& env) {
                 return run_cli(env, {"problems", "--describe", problem_argument(env, a["problem"]), "--json"}, 60);
               }});
  t.push_back({"schedule_schema", "Schedule JSON Schema",
               "The JSON Schema of a schedule (an array of steps, one per primitive), from the primitive registry.",
               object_schema(nullptr), true,
               [](const json&, ToolEnv& env) { return run_cli(env, {"schema", "--json"}, 60); }});
  t.push_back({"primitive_reference", "Primitive reference",
               "The schedule primitives: each one's arguments, legality rules and a before/after example.",
               object_schema(nullptr), true,
               [](const json&, ToolEnv& env) { return run_cli(env, {"primitives", "--json"}, 60); }});
  t.push_back({"validate_schedule", "Validate a schedule",
               "The full legality of a schedule for a problem at a size: every step against the registry and the "
               "problem, the whole-schedule rules, and lowering. Returns the normalised steps, or a structured "
               "error naming the step, the rule and the fix.",
               object_schema({{"problem", problem_property()},
                              {"schedule", schedule_property()},
                              {"size", size_property()},
                              {"shape", shape_property()},
                              {"strict", flag("Use the strict 1e-4 tolerance")}},
                             {"problem", "schedule"}),
               true, [](const json& a, ToolEnv& env) {
                 auto argv = schedule_command(env, "validate", a);
                 argv.push_back("--json");
                 return run_cli(env, argv, 120);
               }});
  t.push_back({"lower_schedule", "Lower a schedule",
               "The lowered program of a schedule: the loop IR, the CUDA source with its launch plan, the kernel "
               "bundle, or the cost model's estimate per kernel.",
               object_schema({{"problem", problem_property()},
                              {"schedule", schedule_property()},
                              {"emit", one_of_words({"ir", "cuda", "bundle", "cost"}, "What to return (default cuda)")},
                              {"size", size_property()},
                              {"shape", shape_property()},
                              {"timeout_s", timeout_property()}},
                             {"problem", "schedule"}),
               true, [](const json& a, ToolEnv& env) {
                 auto argv = schedule_command(env, "lower", a);
                 argv.insert(argv.end(), {"--emit", a.value("emit", std::string("cuda")), "--json"});
                 return run_cli(env, argv, timeout_of(a, 300));
               }});
  t.push_back({"run_schedule", "Run a schedule",
               "Lowers, audits and verifies one schedule against the float64 reference on fresh random inputs. "
               "backend \"interp\" (default) runs the CPU interpreter at the small size and ranks by the cost "
               "model; \"gpu\" also times it with the L2 flushed (needs a GPU).",
               object_schema({{"problem", problem_property()},
                              {"schedule", schedule_property()},
                              {"backend", one_of_words({"interp", "gpu"}, "Where to verify (default interp)")},
                              {"size", size_property()},
                              {"shape", shape_property()},
                              {"seed", integer("Base seed of the random inputs")},
                              {"strict", flag("Use the strict 1e-4 tolerance")},
                              {"no_audit", flag("Skip the Clang audit")},
                              {"timeout_s", timeout_property()}},
                             {"problem", "schedule"}),
               true, [](const json& a, ToolEnv& env) {
                 auto argv = schedule_command(env, "run", a);
                 argv.insert(argv.end(), {"--backend", a.value("backend", std::string("interp"))});
                 append_flags(argv, a, {"seed", "no_audit"});
                 argv.push_back("--json");
                 return run_cli(env, argv, timeout_of(a, 600));
               }});
  t.push_back(
      {"check_kernel", "Check a hand-written kernel",
       "Audits, verifies and times a .cu file that implements the problem's kernel contract, by the same "
       "rules as a generated kernel. Give the source text or a path; the launch comes from grid/block or a "
       "`// cusched-launch size=S grid=X,Y,Z block=X,Y,Z` line in the source. Without a GPU only the audit "
       "and the precision scan run.",
       object_schema({{"problem", problem_property()},
                      {"source", text("The CUDA source text")},
                      {"path", text("A path to the .cu file (instead of source)")},
                      {"grid", text("Grid X,Y,Z")},
                      {"block", text("Block X,Y,Z")},
                      {"dynamic_smem", integer("Dynamic shared memory in bytes")},
                      {"precision", one_of_words({"f32", "tf32", "bf16", "f16"}, "Operand precision")},
                      {"size", size_property()},
                      {"shape", shape_property()},
                      {"strict", flag("Use the strict 1e-4 tolerance")},
                      {"no_audit", flag("Skip the Clang audit")},
                      {"timeout_s", timeout_property()}},
                     {"problem"}),
       true, [](const json& a, ToolEnv& env) {
         if (a.contains("source") == a.contains("path"))
           return tool_error("bad-arguments", "check_kernel needs exactly one of source and path.",
                             "Pass the CUDA text as source, or a file as path.");
         std::string file = a.contains("path") ? a["path"].get<std::string>()
                                               : scratch_file(env, "kernel", "cu", a["source"].get<std::string>());
         std::vector<std::string> argv = {"check", "--problem", problem_argument(env, a["problem"]), file};
         append_flags(argv, a, {"grid", "block", "dynamic_smem", "precision", "size", "shape", "strict", "no_audit"});
         argv.push_back("--json");
         return run_cli(env, argv, timeout_of(a, 600));
       }});
  t.push_back({"start_search", "Start a search",
               "Starts `cusched search` in the background and returns at once with the store's path; poll it with "
               "search_status, act on it with steer_search, stop it with stop_search. Without a GPU it verifies "
               "in the interpreter and ranks by the cost model.",
               object_schema(
                   {{"problem", problem_property()},
                    {"store", text("The SQLite store to write (default cusched-<problem>.db in the server's folder)")},
                    {"backend", one_of_words({"gpu", "interp"}, "gpu (default; interp without a GPU) or interp")},
                    {"proposer", one_of_words({"builtin", "llm", "file"}, "Who proposes schedules (default builtin)")},
                    {"proposals", text("File proposer: a .json, .jsonl or folder of schedules")},
                    {"rounds", integer("Rounds (default 4)", 1)},
                    {"ideas", integer("Ideas per round (default 4)", 1)},
                    {"per_idea", integer("Schedules per idea (default 4)", 1)},
                    {"budget_candidates", integer("Stop after this many evaluations")},
                    {"budget_minutes", number("Stop after this many minutes")},
                    {"budget_tokens", integer("Stop after this many LLM tokens")},
                    {"goal", text("A goal the search stops at, e.g. \"ms<=0.55\", \"floor>=90%\", \"speedup>=1.4\"")},
                    {"seed", integer("Seed of the proposer and the inputs")},
                    {"shape", shape_property()},
                    {"strict", flag("Use the strict 1e-4 tolerance")},
                    {"no_audit", flag("Skip the Clang audit")},
                    {"resume", flag("Continue the latest run in the store")},
                    {"llm_base_url", text("LLM proposer: OpenAI-compatible base URL (the key comes from "
                                          "OPENAI_API_KEY in the server's environment)")},
                    {"llm_model", text("LLM proposer: the model name")}},
                   {"problem"}),
               false, [](const json& a, ToolEnv& env) {
                 std::string store = a.contains("store") ? store_of(a) : default_store(a);
                 std::vector<std::string> argv = {"--problem", problem_argument(env, a["problem"])};
                 append_flags(argv, a,
                              {"backend", "proposer", "proposals", "rounds", "ideas", "per_idea", "budget_candidates",
                               "budget_minutes", "budget_tokens", "goal", "seed", "shape", "strict", "no_audit",
                               "resume", "llm_base_url", "llm_model"});
                 ToolResult r;
                 r.structured = env.searches->start(env.exe, store, argv);
                 r.is_error = !r.structured.value("ok", false);
                 return r;
               }});
  t.push_back({"search_status", "Search status",
               "The state of a search: running, finished, failed or stopped, with the exit code's meaning, the "
               "last progress lines and, once done, its summary; plus `cusched status --json` where this cusched "
               "has it (round, evaluated, best so far).",
               object_schema({{"store", text("The store start_search returned")}}, {"store"}), true,
               [](const json& a, ToolEnv& env) {
                 std::string store = store_of(a);
                 ToolResult r;
                 r.structured = env.searches->state(store);
                 if (has_command("status")) {
                   ToolResult s = run_cli(env, {"status", store, "--json"}, 60);
                   r.structured["status"] = s.structured;
                 } else {
                   r.structured["status"] = nullptr;
                 }
                 r.is_error = r.structured["state"] == "unknown" && r.structured["status"].is_null();
                 if (r.is_error)
                   r.structured["error"] = {{"code", "no-such-search"},
                                            {"message", "No search on '" + store + "' is known here."},
                                            {"hint", "Pass the store that start_search returned."}};
                 return r;
               }});
  t.push_back({"stop_search", "Stop a search",
               "Stops a search this server started (SIGTERM, then SIGKILL); the store keeps every finished "
               "evaluation and `cusched search --resume` continues it.",
               object_schema({{"store", text("The store start_search returned")}}, {"store"}), false,
               [](const json& a, ToolEnv& env) {
                 ToolResult r;
                 r.structured = env.searches->stop(store_of(a));
                 r.is_error = r.structured.contains("error");
                 return r;
               }});
  t.push_back({"steer_search", "Steer a search",
               "Acts on a running or stopped search through its store: add a schedule with an idea text, add a "
               "hand-written kernel, give a hint for the LLM prompt, ban a move or an idea, or restart the next "
               "round from a candidate. Runs `cusched steer STORE ... --json`.",
               object_schema({{"store", text("The search's store")},
                              {"add", schedule_property()},
                              {"idea", text("The idea text of the added schedule")},
                              {"add_kernel", text("A path to a hand-written .cu kernel to add")},
                              {"hint", text("A hint that enters the LLM prompt")},
                              {"ban", text("A move or an idea to ban")},
                              {"restart_from", integer("A candidate id the next round starts from", 1)},
                              {"author", text("Who steers (recorded)")}},
                             {"store"}),
               false, [](const json& a, ToolEnv& env) {
                 if (!has_command("steer")) return missing_command("steer");
                 std::vector<std::string> argv = {"steer", store_of(a)};
                 if (a.contains("add")) argv.insert(argv.end(), {"--add", schedule_argument(env, a["add"])});
                 append_flags(argv, a, {"idea", "add_kernel", "hint", "ban", "restart_from", "author"});
                 argv.push_back("--json");
                 return run_cli(env, argv, 60);
               }});
  t.push_back({"review_candidate", "Review a candidate",
               "Approves or rejects a stored candidate with a note; export can require an approved candidate. "
               "Runs `cusched review STORE CANDIDATE --approve|--reject --note ... --json`.",
               object_schema({{"store", text("The search's store")},
                              {"candidate", integer("The candidate id", 1)},
                              {"decision", one_of_words({"approve", "reject"}, "The verdict")},
                              {"note", text("Why")},
                              {"reviewer", text("Who reviews (default from the environment)")}},
                             {"store", "candidate", "decision", "note"}),
               false, [](const json& a, ToolEnv& env) {
                 if (!has_command("review")) return missing_command("review");
                 std::vector<std::string> argv = {"review", store_of(a), std::to_string(a["candidate"].get<int64_t>()),
                                                  "--" + a["decision"].get<std::string>()};
                 append_flags(argv, a, {"note", "reviewer"});
                 argv.push_back("--json");
                 return run_cli(env, argv, 60);
               }});
  t.push_back({"export_kernel", "Export a kernel",
               "Writes a stored candidate (default: the run's best verified one) as a standalone .cu file with its "
               "launch plan, and returns the path.",
               object_schema({{"store", text("The search's store")},
                              {"output", text("The .cu file to write (default <store>-best.cu)")},
                              {"candidate", integer("Candidate id (default: the best verified)", 1)},
                              {"run", integer("Run id (default: the latest)", 1)},
                              {"shape", shape_property()},
                              {"require_approved", flag("Refuse a candidate that no reviewer approved")}},
                             {"store"}),
               false, [](const json& a, ToolEnv& env) {
                 std::string store = store_of(a);
                 std::string output = a.value("output", store + "-best.cu");
                 std::vector<std::string> argv = {"export", store, "--output", output};
                 append_flags(argv, a, {"candidate", "run", "shape", "require_approved"});
                 argv.push_back("--json");
                 return run_cli(env, argv, 300);
               }});
  t.push_back({"search_report", "Write a search report",
               "Writes the self-contained HTML report of a search run and returns its path.",
               object_schema({{"store", text("The search's store")},
                              {"output", text("The HTML file (default <store>.html)")},
                              {"run", integer("Run id (default: the latest)", 1)}},
                             {"store"}),
               false, [](const json& a, ToolEnv& env) {
                 std::string store = store_of(a);
                 std::vector<std::string> argv = {"report", store, "--output", a.value("output", store + ".html")};
                 append_flags(argv, a, {"run"});
                 argv.push_back("--json");
                 return run_cli(env, argv, 300);
               }});
  return t;
}

// The first way `value` breaks `schema` (the subset of JSON Schema the table uses).
std::string violation(const json& schema, const json& value, const std::string& where) {
  if (schema.contains("anyOf")) {
    for (const auto& option : schema["anyOf"])
      if (violation(option, value, where).empty()) return {};
    return where + " has the wrong type";
  }
  if (schema.contains("type")) {
    const std::string type = schema["type"];
    bool ok = (type == "string" && value.is_string()) || (type == "integer" && value.is_number_integer()) ||
              (type == "number" && value.is_number()) || (type == "boolean" && value.is_boolean()) ||
              (type == "array" && value.is_array()) || (type == "object" && value.is_object());
    if (!ok)
      return where + " must be " + (type == "integer" || type == "array" || type == "object" ? "an " : "a ") + type;
  }
  if (schema.contains("enum") && std::find(schema["enum"].begin(), schema["enum"].end(), value) == schema["enum"].end())
    return where + " must be one of " + schema["enum"].dump();
  if (schema.contains("minimum") && value.is_number() && value.get<double>() < schema["minimum"].get<double>())
    return where + " must be at least " + schema["minimum"].dump();
  if (schema.contains("items") && value.is_array())
    for (size_t i = 0; i < value.size(); ++i)
      if (auto v = violation(schema["items"], value[i], where + "[" + std::to_string(i) + "]"); !v.empty()) return v;
  if (schema.contains("properties") && value.is_object()) {
    for (const auto& r : schema.value("required", json::array()))
      if (!value.contains(r.get<std::string>())) return "the argument '" + r.get<std::string>() + "' is missing";
    for (const auto& [k, v] : value.items()) {
      if (!schema["properties"].contains(k)) {
        if (schema.value("additionalProperties", true) == false) return "there is no argument '" + k + "'";
        continue;
      }
      if (auto e = violation(schema["properties"][k], v, "the argument '" + k + "'"); !e.empty()) return e;
    }
  }
  return {};
}

}  // namespace

const std::vector<ToolSpec>& tool_table() {
  static const std::vector<ToolSpec> table = make_table();
  return table;
}

const ToolSpec* find_tool(const std::string& name) {
  for (const auto& t : tool_table())
    if (t.name == name) return &t;
  return nullptr;
}

json tool_listing(const ToolSpec& tool) {
  return {{"name", tool.name},
          {"title", tool.title},
          {"description", tool.description},
          {"inputSchema", tool.input_schema},
          {"annotations",
           {{"title", tool.title},
            {"readOnlyHint", tool.read_only},
            {"destructiveHint", false},
            {"openWorldHint", false}}}};
}

std::string check_arguments(const ToolSpec& tool, const json& arguments) {
  if (!arguments.is_object()) return "the arguments must be a JSON object";
  return violation(tool.input_schema, arguments, "the arguments");
}

}  // namespace cusched::tools::mcp
