// The agents behind bench/ws-pipe.mjs (the pipe floor): a TCP server on 127.0.0.1 where every
// connection is one agent of its own speaking ACP as NDJSON — initialize, session/new, and
// session/prompt of a bench prompt (`{"steps":[{"text","chunks"}]}`), answered with one
// agent_message_chunk session/update line per chunk, as the mock agent writes them, then the
// prompt's answer. One process for all of them, so that 300 agents do not take 300 Node
// processes' memory; its CPU is not the pipe's. Prints `{"port"}` on stdout when ready.
// Usage: node bench/agent-farm.mjs
import { createServer } from "node:net";
import { createInterface } from "node:readline";

const LINES_PER_TICK = 64;

// Writes `count` update lines for `sessionId`, one write per line as an agent writes each message,
// LINES_PER_TICK a turn of the event loop, minding backpressure.
async function stream(socket, sessionId, count) {
  const line = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}\n`;
  for (let sent = 0; sent < count;) {
    let full = false;
    for (let n = 0; n < LINES_PER_TICK && sent < count; n++, sent++)
      full = !socket.write(line) || full;
    if (full) await new Promise((r) => socket.once("drain", r));
    else await new Promise((r) => setImmediate(r));
  }
}

// One agent: answers the three methods the bench sends.
function agent(socket) {
  let sessions = 0;
  const answer = (id, result) =>
    socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
  createInterface({ input: socket, crlfDelay: Infinity }).on(
    "line",
    async (line) => {
      const m = JSON.parse(line);
      if (m.method === "initialize")
        answer(m.id, {
          protocolVersion: 1,
          agentCapabilities: { loadSession: false },
          authMethods: [],
        });
      else if (m.method === "session/new")
        answer(m.id, { sessionId: `farm-${process.pid}-${++sessions}` });
      else if (m.method === "session/prompt") {
        const steps = JSON.parse(m.params.prompt[0].text).steps;
        await stream(socket, m.params.sessionId, Number(steps[0].chunks));
        answer(m.id, { stopReason: "end_turn" });
      }
    },
  );
  socket.on("error", () => {});
}

const server = createServer(agent);
server.listen(0, "127.0.0.1", () =>
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`),
);
process.on("SIGTERM", () => process.exit(0));
