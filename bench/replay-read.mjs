// The ledger's side of a replay, in a fresh process each time (as after kill -9, nothing compiled
// yet): a 5,000-event session read and made into the frames an editor gets, the way main does it
// (`read`, then a frame per event in JavaScript) and with `readReplay` (the database joins the
// plain updates into frames), alternated, each in its own process; medians, for SQLite and
// PostgreSQL. No editor, agent or pipe: this is acphub's own part of bench/acp.mjs's replay.
// Usage: npm run build && node bench/replay-read.mjs   (BENCH_ROUNDS, 7; BENCH_LEDGER=sqlite|postgres)
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openLedgerAt } from "../dist/ledger/open.js";
import { frameHead, replayChunks } from "../dist/engine/wire-updates.js";
import { median } from "./common.mjs";
import { benchPostgres } from "./pg-server.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SELF = fileURLToPath(import.meta.url);

// Child: one timed read of the session the way `how` says; prints ms and bytes.
async function child(where, id, how) {
  const ledger = await openLedgerAt(where);
  const start = performance.now();
  const parts =
    how === "readReplay"
      ? await ledger.readReplay(id, frameHead(id))
      : await ledger.read(id);
  const bytes = replayChunks(id, parts).reduce((n, c) => n + c.length, 0);
  const ms = performance.now() - start;
  await ledger.close();
  process.stdout.write(JSON.stringify({ ms, bytes }));
}

// A session like bench/acp.mjs's replay: a prompt, then 4,999 chunks of distinct messages.
async function fill(where) {
  const ledger = await openLedgerAt(where);
  const id = `replay-${Date.now()}`;
  const now = Date.now();
  await ledger.createSession({
    id,
    agent: "mock",
    cwd: "/w",
    title: null,
    createdAt: now,
    updatedAt: now,
    state: "active",
    agentSessionId: "a",
    request: { mcpServers: [] },
  });
  await ledger.append(id, "prompt", { prompt: [{ type: "text", text: "x" }] });
  await Promise.all(
    Array.from({ length: 4999 }, (_, i) =>
      ledger.append(id, "update", {
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `part ${i} ` },
          messageId: `m${i}`,
        },
      }),
    ),
  );
  await ledger.close();
  return id;
}

function timed(where, id, how) {
  const out = spawnSync(process.execPath, [SELF, where, id, how], {
    encoding: "utf8",
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

async function measure(name, where) {
  const id = await fill(where);
  const times = { read: [], readReplay: [] };
  let bytes = {};
  for (let round = 0; round < ROUNDS; round++)
    for (const how of ["read", "readReplay"]) {
      const r = timed(where, id, how);
      times[how].push(r.ms);
      bytes[how] = r.bytes;
    }
  if (bytes.read !== bytes.readReplay) throw new Error("the frames differ");
  console.log(
    `${name}: 5,000 events to frames in a fresh process, median of ${ROUNDS}: read + a frame per event ${median(times.read).toFixed(1)} ms, readReplay ${median(times.readReplay).toFixed(1)} ms (${bytes.read} bytes either way; load ${loadavg()[0].toFixed(1)})`,
  );
}

if (process.argv[4])
  await child(process.argv[2], process.argv[3], process.argv[4]);
else {
  const only = process.env.BENCH_LEDGER;
  if (only !== "postgres")
    await measure(
      "SQLite",
      join(mkdtempSync(join(tmpdir(), "acphub-replay-")), "ledger.db"),
    );
  if (only !== "sqlite") {
    const pg = await benchPostgres();
    try {
      await measure("PostgreSQL", pg.url);
    } finally {
      pg.stop();
    }
  }
}
