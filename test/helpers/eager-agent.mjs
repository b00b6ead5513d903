// A minimal raw ACP agent that sends a session/update in the same write as its session/new
// answer, as claude-code-acp does with its command list: what arrives before the client has
// even seen the new session id must not be lost.
import { createInterface } from "node:readline";

const send = (...messages) =>
  process.stdout.write(messages.map((m) => JSON.stringify(m) + "\n").join(""));
const commands = {
  sessionUpdate: "available_commands_update",
  availableCommands: [{ name: "early", description: "sent with session/new" }],
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  const reply = (result) => ({ jsonrpc: "2.0", id: msg.id, result });
  if (msg.method === "initialize")
    send(reply({ protocolVersion: 1, agentCapabilities: {} }));
  else if (msg.method === "session/new")
    send(reply({ sessionId: "s1" }), {
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s1", update: commands },
    });
  else if (msg.method === "session/prompt")
    send(reply({ stopReason: "end_turn" }));
  else if (msg.id !== undefined) send(reply({}));
});
