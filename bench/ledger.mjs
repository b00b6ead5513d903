// The ledger alone, with SQLite and with PostgreSQL: append rate and CPU per append with group
// commit (updates arriving in bursts, as they do off an agent's pipe), the time to read back a
// 5,000-event session as stored, and the events kept for a 1,000-chunk reply after compaction.
// Prints figures; never part of the test run. BENCH_PG_URL uses an existing server.
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openLedgerAt } from "../dist/ledger/open.js";
import { benchPostgres } from "./pg-server.mjs";

const COUNT = Number(process.env.BENCH_APPENDS ?? 50000);
const BURST = 64; // updates per read off the agent's pipe
const SPREADS = [1, 100, 300]; // sessions streaming at once
const caps = { maxEventsPerSession: 1_000_000, maxBytesPerSession: 1 << 30 };
const chunk = (text) =>
  JSON.stringify({
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text },
    },
  });

function session(id) {
  const now = Date.now();
  return {
    id,
    agent: "bench",
    cwd: "/w",
    title: null,
    createdAt: now,
    updatedAt: now,
    state: "active",
    agentSessionId: "a",
    request: {},
  };
}

async function appendRate(ledger) {
  await ledger.createSession(session("rate"));
  const text = chunk("x".repeat(120));
  const cpu = process.cpuUsage();
  const start = performance.now();
  // A streaming agent: a burst per read off its pipe, the next read one tick later, whatever the
  // commits are doing; every append must resolve (be durable) by the end.
  const all = [];
  for (let i = 0; i < COUNT; i += BURST) {
    for (let j = 0; j < BURST; j++)
      all.push(ledger.append("rate", "update", text));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(all);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return {
    perSecond: (COUNT / ms) * 1000,
    cpuUs: (used.user + used.system) / COUNT,
  };
}

// A group commit spread over many streaming sessions (the hub with one session per client): every
// tick a burst of SPREAD_BURST updates, one after another over `sessions` sessions, so each batch
// holds about the same events whatever the spread; CPU per append after a warm-up round.
const SPREAD_BURST = 300;
async function spreadRate(ledger, sessions) {
  const ids = Array.from(
    { length: sessions },
    (_, i) => `spread-${sessions}-${i}`,
  );
  for (const id of ids) await ledger.createSession(session(id));
  const text = chunk("x".repeat(120));
  const round = async (count) => {
    const all = [];
    for (let i = 0; i < count; i += SPREAD_BURST) {
      for (let j = 0; j < SPREAD_BURST; j++)
        all.push(ledger.append(ids[(i + j) % sessions], "update", text));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(all);
  };
  await round(SPREAD_BURST * 10);
  const cpu = process.cpuUsage();
  await round(COUNT);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / COUNT;
}

async function readTime(ledger) {
  await ledger.createSession(session("read"));
  await Promise.all(
    Array.from({ length: 5000 }, (_, i) =>
      ledger.append("read", "update", chunk(`chunk ${i} `)),
    ),
  );
  const start = performance.now();
  const events = await ledger.read("read");
  return { ms: performance.now() - start, count: events.length };
}

async function compacted(ledger) {
  await ledger.createSession(session("reply"));
  const first = await ledger.append("reply", "prompt", {
    prompt: [{ type: "text", text: "write" }],
  });
  await Promise.all(
    Array.from({ length: 1000 }, (_, i) =>
      ledger.append("reply", "update", chunk(`t${i} `)),
    ),
  );
  const last = await ledger.append("reply", "turn_end", {
    stopReason: "end_turn",
  });
  await ledger.compact("reply", first, last);
  return (await ledger.read("reply")).length;
}

// A reply of 100,000 chunks compacted: events and bytes kept (the chunk lists are bounded), and
// reads from the start and from a cursor inside the reply (a client reconnecting).
async function longReply(ledger) {
  const n = 100_000;
  await ledger.createSession(session("long"));
  const first = await ledger.append("long", "prompt", { prompt: [] });
  const seqs = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      ledger.append("long", "update", chunk(`w${i % 10} `)),
    ),
  );
  await ledger.compact("long", first);
  const { eventCount, bytes } = await ledger.getSession("long");
  let start = performance.now();
  await ledger.read("long");
  const fromStart = performance.now() - start;
  start = performance.now();
  const rest = await ledger.read("long", { afterSeq: seqs[n / 2 + 7] });
  const fromCursor = performance.now() - start;
  return { n, eventCount, bytes, text: n * 4, fromStart, fromCursor, rest };
}

async function measure(name, where) {
  const ledger = await openLedgerAt(where, { caps });
  const rate = await appendRate(ledger);
  const read = await readTime(ledger);
  const events = await compacted(ledger);
  const long = await longReply(ledger);
  const spread = [];
  for (const n of SPREADS) spread.push([n, await spreadRate(ledger, n)]);
  await ledger.close();
  console.log(`${name}:`);
  console.log(
    `  append spread over sessions (${SPREAD_BURST}-update bursts a tick apart, load ${loadavg()[0].toFixed(1)}): ${spread.map(([n, us]) => `${n}: ${us.toFixed(1)} µs`).join(", ")} CPU per append; ${spread.at(-1)[0]}:${spread[0][0]} = ${(spread.at(-1)[1] / spread[0][1]).toFixed(2)}`,
  );
  console.log(
    `  append, group commit (${BURST}-update bursts a tick apart): ${Math.round(rate.perSecond).toLocaleString("en")} appends/s, ${rate.cpuUs.toFixed(1)} µs CPU per append`,
  );
  console.log(
    `  read of a ${read.count}-event session, as stored: ${read.ms.toFixed(1)} ms`,
  );
  console.log(
    `  events kept for a 1,000-chunk reply (prompt, chunks, turn end) after compaction: ${events}`,
  );
  console.log(
    `  a ${long.n.toLocaleString("en")}-chunk reply compacted: ${long.eventCount} events, ${long.bytes.toLocaleString("en")} bytes stored for ${long.text.toLocaleString("en")} bytes of text; read from the start ${long.fromStart.toFixed(1)} ms, from a cursor inside it ${long.fromCursor.toFixed(1)} ms (${long.rest.length} events)`,
  );
}

// BENCH_LEDGER=postgres (or sqlite) measures one ledger only.
const only = process.env.BENCH_LEDGER;
if (only !== "postgres")
  await measure(
    "SQLite",
    join(mkdtempSync(join(tmpdir(), "acphub-ledger-")), "ledger.db"),
  );
const pg = only === "sqlite" ? undefined : await benchPostgres();
if (pg)
  try {
    await measure("PostgreSQL", pg.url);
  } finally {
    pg.stop();
  }
