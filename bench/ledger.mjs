// Ledger append rate: one typical session/update per append, each its own transaction, as
// the gateway does it before relaying the update.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteLedger } from "../dist/ledger/sqlite-ledger.js";

const COUNT = Number(process.env.BENCH_APPENDS ?? 50000);
const file = join(mkdtempSync(join(tmpdir(), "acphub-ledger-")), "ledger.db");
const ledger = new SqliteLedger(file, {
  maxSessions: 10,
  maxEventsPerSession: COUNT * 2,
  maxBytesPerSession: 1 << 30,
});
const now = Date.now();
ledger.createSession({
  id: "s",
  agent: "bench",
  cwd: "/w",
  title: null,
  createdAt: now,
  updatedAt: now,
  state: "active",
  agentSessionId: "a",
  request: {},
});
const update = {
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "x".repeat(120) },
  },
};
const start = performance.now();
for (let i = 0; i < COUNT; i++) ledger.append("s", "update", update);
const ms = performance.now() - start;
console.log(
  `ledger append rate (WAL, synchronous=NORMAL, ~180-byte updates): ${Math.round((COUNT / ms) * 1000).toLocaleString("en")} appends/s over ${COUNT}`,
);
const readStart = performance.now();
const events = ledger.events("s");
console.log(
  `ledger read of ${events.length} events: ${(performance.now() - readStart).toFixed(0)} ms`,
);
ledger.close();
