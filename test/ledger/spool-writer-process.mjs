// A writer for the spool's kill -9 tests: appends `count` events { i } to one session, a batch of
// ten at a time, printing each sequence number once committed, and waits to be killed. With
// `chunks`, the events are text chunks "i " in batches of twenty (merged in the spool).
import { openLedgerAt } from "../../dist/ledger/open.js";

const [where, sessionId, count, , mode] = process.argv.slice(2);
const chunks = mode === "chunks";
const size = chunks ? 20 : 10;
const payload = (i) =>
  chunks
    ? {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `${i} ` },
        },
      }
    : { i };
const ledger = await openLedgerAt(where);
for (let i = 0; i < Number(count);) {
  const batch = [];
  for (let j = 0; j < size && i < Number(count); j++, i++)
    batch.push(ledger.append(sessionId, "update", payload(i)));
  process.stdout.write((await Promise.all(batch)).join("\n") + "\n");
}
setInterval(() => {}, 1000);
