// The anchor of bench/serve.mjs: the physical floor of the network path. A minimal relay over the
// `ws` library in front of one mock agent: client frames go to the agent (ids remapped, since
// all clients share it), the agent's lines go to the client whose session they name — as they
// are, never parsed beyond routing, never stored. Prints `{"url","pid"}` on stdout when ready.
// Usage: node bench/ws-anchor.mjs
import { WebSocketServer } from "ws";
import { startOneAgent } from "./one-agent.mjs";

const bySession = new Map(); // agent session id → ws
const agent = await startOneAgent((sessionId, line) =>
  bySession.get(sessionId)?.send(line),
);

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (ws) => {
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === "initialize")
      return ws.send(agent.initialized(message.id));
    agent.forward(message, (answer) => {
      if (message.method === "session/new" && answer.result)
        bySession.set(answer.result.sessionId, ws);
      ws.send(JSON.stringify(answer));
    });
  });
});
await new Promise((resolve) => wss.once("listening", resolve));
process.stdout.write(
  `${JSON.stringify({ url: `ws://127.0.0.1:${wss.address().port}`, pid: process.pid })}\n`,
);
process.on("SIGTERM", () => {
  agent.stop();
  process.exit(0);
});
