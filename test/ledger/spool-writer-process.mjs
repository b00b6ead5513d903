// A writer for the spool's kill -9 test: appends `count` events { i } to one session, a batch of
// ten at a time, printing each sequence number once committed, and waits to be killed.
import { openLedgerAt } from "../../dist/ledger/open.js";

const [where, sessionId, count] = process.argv.slice(2);
const ledger = await openLedgerAt(where);
for (let i = 0; i < Number(count);) {
  const batch = [];
  for (let j = 0; j < 10 && i < Number(count); j++, i++)
    batch.push(ledger.append(sessionId, "update", { i }));
  process.stdout.write((await Promise.all(batch)).join("\n") + "\n");
}
setInterval(() => {}, 1000);
