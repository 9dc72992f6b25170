// Drive `gh pr-agent mcp` with the TypeScript MCP SDK's own Client over stdio, as Claude Code, VS Code, Cursor
// and the MCP Inspector do. Input (argv[2]): a JSON plan {command, args, env, calls: [{name, arguments}]}.
// Output (stdout): one JSON object {tools, calls: [{result} | {thrown: {code, message}}]}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const transport = new StdioClientTransport({ command: plan.command, args: plan.args, env: plan.env, stderr: "pipe" });
const client = new Client({ name: "ts-e2e", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools(); // caches each tool's outputSchema validator, as real clients do
const out = { server: client.getServerVersion(), tools: listed.tools.map((t) => t.name), calls: [] };
for (const c of plan.calls) {
  try {
    const result = await client.callTool({ name: c.name, arguments: c.arguments });
    out.calls.push({ result });
  } catch (e) {
    out.calls.push({ thrown: { code: e.code ?? null, message: String(e.message ?? e) } });
  }
}
await client.close();
process.stdout.write(JSON.stringify(out));
