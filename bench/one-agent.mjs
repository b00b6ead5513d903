// One mock agent shared by every connection of a bench relay, as `acphub serve` runs one agent
// for all of a user's sessions (bench/ws-anchor.mjs; bench/ws-store.mjs with
// BENCH_STORE_AGENT=one): requests are forwarded with the agent-side ids remapped (all clients
// share it) and answered with the client's own id; each update line goes to `onUpdate` with the
// session id a regular expression finds in it — never parsed beyond that.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { CLI } from "./common.mjs";

const SESSION_ID = /"sessionId":"([^"]+)"/;

/**
 * Starts the mock agent and initializes it. `onUpdate(sessionId, line)` hears its update lines.
 * Returns `initialized(id)` (the answer to a client's own initialize: the agent's, once for all),
 * `forward(message, answered)` (`answered` called with the agent's answer, the client's id
 * restored, as its line is read: in order with the updates) and `stop()`.
 */
export async function startOneAgent(onUpdate) {
  const agent = spawn(process.execPath, [CLI, "mock-agent"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting = new Map(); // agent-side id → { id, answered }
  let nextId = 0;
  createInterface({ input: agent.stdout, crlfDelay: Infinity }).on(
    "line",
    (line) => {
      const session = SESSION_ID.exec(line.slice(0, 200));
      if (line.includes('"method":"session/update"') && session) {
        onUpdate(session[1], line);
        return;
      }
      const message = JSON.parse(line);
      const to = waiting.get(message.id);
      if (!to) return;
      waiting.delete(message.id);
      to.answered({ ...message, id: to.id });
    },
  );
  const forward = (message, answered) => {
    const id = ++nextId;
    waiting.set(id, { id: message.id, answered });
    agent.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
  };
  const { result: info } = await new Promise((answered) =>
    forward(
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      },
      answered,
    ),
  );
  const initialized = (id) =>
    JSON.stringify({ jsonrpc: "2.0", id, result: info });
  return { initialized, forward, stop: () => agent.kill("SIGTERM") };
}
