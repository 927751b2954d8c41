// A session with `cusched mcp` driven by the official MCP TypeScript SDK client over
// stdio: initialize, list the tools, describe a problem, validate a bad and a good
// schedule, run one in the interpreter, start a search and poll it to its end.
// Usage: node sdk_session.mjs CUSCHED_BINARY WORK_DIR
import assert from "node:assert/strict";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [cusched, workDir] = process.argv.slice(2);
const long = { timeout: 600000 };

function step(what) {
  console.log(`- ${what}`);
}

const transport = new StdioClientTransport({ command: cusched, args: ["mcp"], cwd: workDir, stderr: "inherit" });
const client = new Client({ name: "cusched-ci", version: "1.0.0" });
await client.connect(transport);

step("initialize");
const info = client.getServerVersion();
assert.equal(info.name, "cusched");
assert.ok(client.getServerCapabilities().tools, "the server declares the tools capability");
await client.ping();

step("tools/list");
const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
for (const need of ["list_problems", "describe_problem", "schedule_schema", "validate_schedule", "lower_schedule",
                    "run_schedule", "check_kernel", "start_search", "search_status", "stop_search", "steer_search",
                    "review_candidate", "export_kernel"])
  assert.ok(names.includes(need), `tools/list has ${need}`);
for (const t of tools) assert.equal(t.inputSchema.type, "object", `${t.name} has an object inputSchema`);

step("describe_problem softmax");
const described = await client.callTool({ name: "describe_problem", arguments: { problem: "softmax" } });
assert.equal(described.isError, false);
const problem = described.structuredContent;
assert.equal(problem.name, "softmax");
assert.ok(problem.stages.length > 0, "softmax has stages");
const reduction = problem.stages.find((s) => s.loops.some((l) => l.kind === "reduction"));
assert.ok(reduction, "softmax has a reduction stage");
const rloop = reduction.loops.find((l) => l.kind === "reduction").name;

step("a tool error is a result with isError");
const unknown = await client.callTool({ name: "describe_problem", arguments: { problem: "no-such-problem" } });
assert.equal(unknown.isError, true);
assert.equal(unknown.structuredContent.error.code, "unknown-problem");

step(`validate a bad schedule (bind the reduction loop ${rloop} of ${reduction.name} to blockIdx.x)`);
const bad = await client.callTool({
  name: "validate_schedule",
  arguments: { problem: "softmax", size: "small", schedule: [{ op: "bind", stage: reduction.name, loop: rloop, axis: "blockIdx.x" }] },
});
assert.equal(bad.isError, true);
assert.equal(bad.structuredContent.ok, false);
assert.ok(bad.structuredContent.error.code.length > 0, "the error has a code");
assert.ok(bad.structuredContent.error.hint.length > 0, "the error has a hint");

step("validate a good schedule (the baseline, sent inline)");
const good = await client.callTool({
  name: "validate_schedule",
  arguments: { problem: "softmax", size: "small", schedule: problem.baseline_schedule },
});
assert.equal(good.isError, false, JSON.stringify(good.structuredContent));
assert.equal(good.structuredContent.ok, true);
assert.ok(good.structuredContent.steps.length > 0);

step("run the baseline in the interpreter");
const run = await client.callTool(
  { name: "run_schedule", arguments: { problem: "softmax", schedule: "baseline", backend: "interp" } }, undefined, long);
assert.equal(run.isError, false, JSON.stringify(run.structuredContent).slice(0, 2000));
assert.equal(run.structuredContent.verdict, "ok");

step("lower the baseline's cost");
const cost = await client.callTool({ name: "lower_schedule", arguments: { problem: "softmax", schedule: "baseline", emit: "cost" } });
assert.equal(cost.isError, false, JSON.stringify(cost.structuredContent).slice(0, 2000));
assert.ok(cost.structuredContent.total.estimated_ms > 0);

step("start a search (interpreter) and poll it to the end");
const store = `${workDir}/relu-search.db`;
const started = await client.callTool({
  name: "start_search",
  arguments: { problem: "relu", backend: "interp", rounds: 1, ideas: 1, per_idea: 2, store, no_audit: true },
});
assert.equal(started.isError, false, JSON.stringify(started.structuredContent));
assert.equal(started.structuredContent.store, store);
let status;
const deadline = Date.now() + 300000;
for (;;) {
  status = await client.callTool({ name: "search_status", arguments: { store } });
  if (status.structuredContent.state !== "running") break;
  assert.ok(Date.now() < deadline, "the search ends within 300 s");
  await new Promise((r) => setTimeout(r, 500));
}
assert.equal(status.structuredContent.state, "finished", JSON.stringify(status.structuredContent));
assert.equal(status.structuredContent.exit_code, 0);
assert.ok(status.structuredContent.summary.verified >= 1, "the search verified a candidate");
const best = status.structuredContent.summary.best_candidate;
assert.ok(Number.isInteger(best), "the summary names the best candidate");

step("export the best kernel");
const exported = await client.callTool({ name: "export_kernel", arguments: { store, output: `${workDir}/relu.cu` } });
assert.equal(exported.isError, false, JSON.stringify(exported.structuredContent));
assert.equal(exported.structuredContent.file, `${workDir}/relu.cu`);

step("review the best candidate (a structured error where this cusched has no review command)");
const review = await client.callTool({
  name: "review_candidate",
  arguments: { store, candidate: best, decision: "approve", note: "verified in the interpreter" },
});
if (review.isError)
  assert.ok(review.structuredContent.error?.code || Number.isInteger(review.structuredContent.exit_code),
            JSON.stringify(review.structuredContent));

await client.close();
console.log("MCP SDK session passed");
