// Calls kgqa's MCP tools with the official TypeScript SDK client, the one most MCP hosts embed, and prints what the
// client got back for each call as one JSON line: the result, or the error the client threw (issue 53: a result
// whose structured content does not match the tool's output schema throws -32602 in this client).
// Usage: node calls.mjs URL < calls.json   (calls.json: [{"tool": "ask", "arguments": {...}}, ...])
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const calls = JSON.parse(readFileSync(0, "utf8"));
const client = new Client({ name: "kgqa-tests-typescript", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
await client.listTools(); // the client caches each tool's output schema and validates structured content by it
for (const call of calls) {
  try {
    const result = await client.callTool({ name: call.tool, arguments: call.arguments });
    console.log(JSON.stringify({ call, result }));
  } catch (error) {
    console.log(JSON.stringify({ call, threw: String(error && error.message ? error.message : error) }));
  }
}
await client.close();
