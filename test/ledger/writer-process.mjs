// A second process writing to a ledger (for the contract tests): appends `count` events tagged
// `tag` to one session, in batches of up to 50, printing each sequence number once committed.
import { openLedgerAt } from "../../dist/ledger/open.js";

const [where, sessionId, count, tag] = process.argv.slice(2);
const ledger = await openLedgerAt(where);
for (let i = 0; i < Number(count);) {
  const batch = [];
  for (let j = 0; j < 50 && i < Number(count); j++, i++)
    batch.push(ledger.append(sessionId, "update", { tag, i }));
  const seqs = await Promise.all(batch);
  process.stdout.write(seqs.join("\n") + "\n");
}
await ledger.close();
