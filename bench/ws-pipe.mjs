// The pipe floor of bench/serve.mjs: what relaying costs with nothing but the relay. Each
// WebSocket connection gets an agent of its own (a connection to bench/agent-farm.mjs, one agent
// per connection, in another process); the client's frames go to it as lines, its lines come
// back as frames — split at newlines, never parsed, routed nowhere, stored nowhere. Prints
// `{"url","pid"}` on stdout when ready (pid: this relay alone, the agents' process apart).
// Usage: node bench/ws-pipe.mjs
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { WebSocketServer } from "ws";

const FARM = fileURLToPath(new URL("./agent-farm.mjs", import.meta.url));
const farm = spawn(process.execPath, [FARM], {
  stdio: ["ignore", "pipe", "inherit"],
});
const { port } = JSON.parse(
  await new Promise((resolve) =>
    createInterface({ input: farm.stdout }).once("line", resolve),
  ),
);

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (ws) => {
  const agent = connect(port, "127.0.0.1");
  agent.setNoDelay(true);
  createInterface({ input: agent, crlfDelay: Infinity }).on("line", (line) =>
    ws.send(line),
  );
  ws.on("message", (data) => agent.write(`${data}\n`));
  ws.on("close", () => agent.end());
  agent.on("error", () => ws.close());
  ws.on("error", () => agent.destroy());
});
await new Promise((resolve) => wss.once("listening", resolve));
process.stdout.write(
  `${JSON.stringify({ url: `ws://127.0.0.1:${wss.address().port}`, pid: process.pid })}\n`,
);
process.on("SIGTERM", () => {
  farm.kill("SIGTERM");
  process.exit(0);
});
