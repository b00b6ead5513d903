import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client } from "@agentclientprotocol/sdk";
import { ndjsonStream } from "/work/wt/i9/dist/protocol/ndjson.js";
const CLI = "/work/wt/i9/dist/cli/main.js";
const dir = mkdtempSync(join(tmpdir(), "acphub-prof-"));
writeFileSync(join(dir, "config.json"), JSON.stringify({ defaultAgent: "mock", agents: { mock: { command: process.execPath, args: [CLI, "mock-agent"] } } }));
const child = spawn(process.execPath, ["--cpu-prof", "--cpu-prof-dir=/tmp/prof", CLI, "acp"], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ACPHUB_HOME: dir } });
let n = 0;
const stream = ndjsonStream(child.stdout, child.stdin, { maxLineBytes: 1 << 26, intercept: (m) => { if (!("method" in m) || "id" in m) return false; n++; return true; } });
const agent = client({ name: "p" }).connect(stream).agent;
await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
const { sessionId } = await agent.request("session/new", { cwd: "/tmp", mcpServers: [] });
for (let r = 0; r < 3; r++) { const t = performance.now(); await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: JSON.stringify({ steps: [{ text: "x".repeat(20000), chunks: 20000 }] }) }] }); console.log(n, (performance.now() - t).toFixed(0)); }
child.kill("SIGINT");
await new Promise((r) => child.on("exit", r));
