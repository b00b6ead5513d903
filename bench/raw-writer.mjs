// The baseline of the replay figure: an "agent" that answers initialize and, on session/load,
// writes the given session/update frames in one write and then its answer — no SDK, no ledger.
// Usage: node bench/raw-writer.mjs FRAMES_FILE
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const frames = readFileSync(process.argv[2], "utf8");
const answer = (id, result) =>
  JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n";
for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.method === "initialize")
    process.stdout.write(
      answer(message.id, {
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
      }),
    );
  else if (message.method === "session/load")
    process.stdout.write(frames + answer(message.id, {}));
}
