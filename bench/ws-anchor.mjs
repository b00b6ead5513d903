// The anchor of bench/serve.mjs: the physical floor of the network path. A minimal relay over the
// `ws` library in front of one mock agent: client frames go to the agent (ids remapped, since
// all clients share it), the agent's lines go to the client whose session they name — as they
// are, never parsed beyond routing, never stored. Prints `{"url","pid"}` on stdout when ready.
// Usage: node bench/ws-anchor.mjs
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { WebSocketServer } from "ws";
import { CLI } from "./common.mjs";

const agent = spawn(process.execPath, [CLI, "mock-agent"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const waiting = new Map(); // agent-side id → { ws, id }
const bySession = new Map(); // agent session id → ws
let nextId = 0;
let initialized;

// Sends one request to the agent on behalf of `ws` (its own id restored on the answer).
function forward(ws, message) {
  const id = ++nextId;
  waiting.set(id, { ws, id: message.id, method: message.method });
  agent.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
}

createInterface({ input: agent.stdout, crlfDelay: Infinity }).on(
  "line",
  (line) => {
    const session = /"sessionId":"([^"]+)"/.exec(line.slice(0, 200));
    if (line.includes('"method":"session/update"') && session) {
      bySession.get(session[1])?.send(line);
      return;
    }
    const message = JSON.parse(line);
    const to = waiting.get(message.id);
    if (!to) return;
    waiting.delete(message.id);
    if (to.method === "initialize") return initialized(message.result);
    if (to.method === "session/new" && message.result)
      bySession.set(message.result.sessionId, to.ws);
    to.ws.send(JSON.stringify({ ...message, id: to.id }));
  },
);

const agentInfo = await new Promise((resolve) => {
  initialized = resolve;
  forward(undefined, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: 1, clientCapabilities: {} },
  });
});

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (ws) => {
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === "initialize")
      ws.send(
        JSON.stringify({ jsonrpc: "2.0", id: message.id, result: agentInfo }),
      );
    else forward(ws, message);
  });
});
await new Promise((resolve) => wss.once("listening", resolve));
process.stdout.write(
  `${JSON.stringify({ url: `ws://127.0.0.1:${wss.address().port}`, pid: process.pid })}\n`,
);
process.on("SIGTERM", () => {
  agent.kill("SIGTERM");
  process.exit(0);
});
