// Baseline: the MCP SDK's canonical stateless Node + Express server (v1 line), one tool answering the same JSON we do.
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const answer = JSON.parse(process.env.BENCH_ANSWER ?? "{}");
const app = express();
app.use(express.json());
app.post("/mcp", async (req, res) => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" });
  server.registerTool("hermes_check", { inputSchema: { job_id: z.string() } }, async () => ({
    content: [{ type: "text", text: JSON.stringify(answer) }],
    structuredContent: answer,
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(0, "127.0.0.1", () => console.log(`LISTENING ${listener.address().port}`));
