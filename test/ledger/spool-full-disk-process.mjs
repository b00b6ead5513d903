// For the spool's full-disk test, run on a small file system of its own (bubblewrap's tmpfs):
// appends 16 KiB chunks to one session, each awaited, until the disk refuses one; then reads the
// session back. Prints { acked, error, read } as JSON: the chunks acknowledged, the refusal, and
// the text the read returned (or its error).
import { openLedgerAt } from "../../dist/ledger/open.js";

const [where] = process.argv.slice(2);
const ledger = await openLedgerAt(where);
await ledger.createSession({
  id: "s",
  agent: "a",
  cwd: "/w",
  title: null,
  createdAt: Date.now(),
  updatedAt: Date.now(),
  state: "active",
  agentSessionId: "ag-s",
  request: { mcpServers: [] },
});
const chunk = (text) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});
const out = { acked: 0, error: "", read: "" };
for (let i = 0; i < 1000 && !out.error; i++)
  await ledger.append("s", "update", chunk(`${i}`.padEnd(16384, "."))).then(
    () => (out.acked += 1),
    (error) => (out.error = error.message),
  );
try {
  out.read = (await ledger.read("s"))
    .map((e) => JSON.parse(e.text).update?.content?.text ?? "")
    .join("");
} catch (error) {
  out.read = `failed: ${error.message}`;
}
process.stdout.write(JSON.stringify(out), () => process.exit(0));
