// A minimal raw ACP agent that restores sessions (argv[2]: "load" or "resume") and sends a
// session/update in the same write as its load or resume answer, as agents do with their
// command list: what arrives with the answer must not be lost, nor taken for load's replay.
import { createInterface } from "node:readline";

const how = process.argv[2];
const send = (...messages) =>
  process.stdout.write(messages.map((m) => JSON.stringify(m) + "\n").join(""));
const update = (sessionId, update) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId, update },
});
const commands = (name) => ({
  sessionUpdate: "available_commands_update",
  availableCommands: [{ name, description: `sent with session/${how}` }],
});
const history = {
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text: "replayed by the agent" },
};
const capabilities =
  how === "load"
    ? { loadSession: true }
    : { sessionCapabilities: { resume: {} } };

let next = 1;
createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  const reply = (result) => ({ jsonrpc: "2.0", id: msg.id, result });
  const sessionId = msg.params?.sessionId;
  if (msg.method === "initialize")
    send(reply({ protocolVersion: 1, agentCapabilities: capabilities }));
  else if (msg.method === "session/new")
    send(reply({ sessionId: `eager-${process.pid}-${next++}` }));
  else if (msg.method === "session/load")
    send(
      update(sessionId, history),
      reply({}),
      update(sessionId, commands("after-load")),
    );
  else if (msg.method === "session/resume")
    send(reply({}), update(sessionId, commands("after-resume")));
  else if (msg.method === "session/prompt")
    send(reply({ stopReason: "end_turn" }));
  else if (msg.id !== undefined) send(reply({}));
});
