// The SQLite ledger's write path by stage, under bench/ledger-turns.mjs's load (S sessions each
// streaming one turn of N chunk updates, R per session per tick, then each turn compacted): for
// each stage, its calls, its CPU per update and the bytes it added to the write-ahead log per
// update, beside the bytes of the updates' own text. The stages: the group-commit batch (counted,
// spooled and committed), the spool's fold into the journal, the journal's move into `events`,
// and the turns' compactions; "the rest" is what the appends cost outside them (the event log,
// the group commit, this script making the updates). The log is never checkpointed here, so that
// its growth is what each stage wrote (a checkpoint later copies about as much again). Run after
// `npm run build`; never part of the tests.
// BENCH_STAGGER=1: a running hub's steady state instead: every session streams BENCH_TURNS (3)
// turns back to back, the sessions' turns ending at different ticks, each turn compacted 20 ms
// after its end (as the hub does) while the others stream; the compaction's read and its writes
// are stages of their own, "the rest" is everything else.
// BENCH_SESSIONS (300), BENCH_UPDATES (1000), BENCH_PER_TICK (3).
// BENCH_CHECKPOINT=1 leaves SQLite's checkpoints on, as the ledger runs (the log bytes then say
// nothing: the log is reused).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openLedgerAt } from "../dist/ledger/open.js";
import { Journal } from "../dist/ledger/sqlite/journal.js";
import { SqliteCompaction } from "../dist/ledger/sqlite/compaction-sql.js";
import { EventSpool } from "../dist/ledger/sqlite/spool.js";
import { envCount as count, replyChunk } from "./common.mjs";

const SESSIONS = count("BENCH_SESSIONS", 300);
const UPDATES = count("BENCH_UPDATES", 1000);
const PER_TICK = count("BENCH_PER_TICK", 3);
const STAGGER = process.env.BENCH_STAGGER === "1";
const TURNS = count("BENCH_TURNS", 3);
const caps = { maxEventsPerSession: 1_000_000, maxBytesPerSession: 1 << 30 };

const dir = mkdtempSync(join(tmpdir(), "acphub-bench-stages-"));
const file = join(dir, "l.db");
const ledger = await openLedgerAt(file, { caps });
// (The connection is the ledger's own: reached here only to keep the log from being checkpointed.)
if (process.env.BENCH_CHECKPOINT !== "1")
  ledger.db.pragma("wal_autocheckpoint = 0");
const walBytes = () => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// Each stage's own figures: a stage called inside another (a fold inside a batch past its bounds)
// counts for itself only.
const stages = new Map();
const running = [];
function measured(proto, method, name) {
  const inner = proto[method];
  proto[method] = function (...args) {
    const frame = { cpu: cpuUs(), wal: walBytes(), childCpu: 0, childWal: 0 };
    running.push(frame);
    try {
      return inner.apply(this, args);
    } finally {
      running.pop();
      const cpu = cpuUs() - frame.cpu;
      const wal = walBytes() - frame.wal;
      const stage = stages.get(name) ?? { calls: 0, cpu: 0, wal: 0 };
      stage.calls += 1;
      stage.cpu += cpu - frame.childCpu;
      stage.wal += wal - frame.childWal;
      stages.set(name, stage);
      const parent = running.at(-1);
      if (parent) {
        parent.childCpu += cpu;
        parent.childWal += wal;
      }
    }
  };
}
measured(EventSpool.prototype, "writeBatch", "batch");
measured(EventSpool.prototype, "fold", "fold");
measured(Journal.prototype, "moveStepLogged", "journal move");
if (STAGGER) {
  measured(SqliteCompaction.prototype, "updateRows", "compaction read");
  measured(SqliteCompaction.prototype, "apply", "compaction write");
}
const stagedCpu = () => [...stages.values()].reduce((n, s) => n + s.cpu, 0);
const stagedWal = () => [...stages.values()].reduce((n, s) => n + s.wal, 0);

const row = (name, calls, cpu, wal, updates) =>
  `  ${name.padEnd(16)} ${String(calls).padStart(6)} calls ${(cpu / updates).toFixed(2).padStart(6)} µs/update ${(wal / updates).toFixed(0).padStart(5)} log bytes/update`;

async function createSessions(prefix) {
  const ids = Array.from({ length: SESSIONS }, (_, i) => `${prefix}-${i}`);
  for (const id of ids) {
    const now = Date.now();
    await ledger.createSession({
      ...{ id, agent: "bench", cwd: "/w", title: null, state: "active" },
      ...{ createdAt: now, updatedAt: now, agentSessionId: "a", request: {} },
    });
  }
  return ids;
}

// Every session streams its turn at once, then each turn is compacted in turn.
async function together() {
  const ids = await createSessions("stages");
  const prompts = [];
  for (const id of ids)
    prompts.push(await ledger.append(id, "prompt", { prompt: [] }));
  stages.clear();
  let textBytes = 0;
  const start = { cpu: cpuUs(), wal: walBytes() };
  const appends = [];
  for (let k = 0; k < UPDATES; k += PER_TICK) {
    for (const id of ids)
      for (let n = k; n < Math.min(UPDATES, k + PER_TICK); n++) {
        const text = replyChunk(n);
        textBytes += text.length;
        appends.push(ledger.append(id, "update", text));
      }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(appends);
  const appended = { cpu: cpuUs(), wal: walBytes(), staged: stagedCpu() };
  const stagedWalBefore = stagedWal();
  for (const [i, id] of ids.entries()) await ledger.compact(id, prompts[i]);
  const compacted = {
    cpu: cpuUs() - appended.cpu - (stagedCpu() - appended.staged),
    wal: walBytes() - appended.wal - (stagedWal() - stagedWalBefore),
  };
  const updates = SESSIONS * UPDATES;
  console.log(
    `SQLite ledger by stage, ${SESSIONS} sessions × 1 turn of ${UPDATES} updates (${PER_TICK} per session per tick; ${(textBytes / updates).toFixed(0)} bytes of text per update; load ${loadavg()[0].toFixed(1)}):`,
  );
  for (const [name, s] of stages)
    console.log(row(name, s.calls, s.cpu, s.wal, updates));
  console.log(
    row("compactions", SESSIONS, compacted.cpu, compacted.wal, updates),
  );
  console.log(
    row(
      "the rest",
      "",
      appended.cpu - start.cpu - appended.staged,
      appended.wal - start.wal - stagedWalBefore,
      updates,
    ),
  );
}

// Every session streams TURNS turns back to back; session i's first turn is cut short so that
// the turns end spread over the ticks; each turn is compacted 20 ms after its end.
async function staggered() {
  const ticks = Math.max(1, Math.round(UPDATES / PER_TICK));
  const sessions = (await createSessions("stagger")).map((id, i) => ({
    id,
    left: Math.max(1, Math.floor(((i + 1) * ticks) / SESSIONS)),
    prompt: undefined,
  }));
  stages.clear();
  let updates = 0;
  let textBytes = 0;
  let compactions = 0;
  const start = { cpu: cpuUs(), wal: walBytes() };
  const pending = [];
  // As the hub does (engine/turns.ts): 20 ms, then until the ledger says the turn's rows are
  // where a compaction costs the other sessions nothing (a build without that call skips it).
  const compactLater = (id, from, to) =>
    new Promise((resolve) => setTimeout(resolve, 20))
      .then(() => ledger.whenCompactable?.(id, to))
      .then(() => {
        compactions += 1;
        return ledger.compact(id, from, to);
      });
  for (let k = 0; k < TURNS * ticks; k++) {
    for (const s of sessions) {
      s.prompt ??= ledger.append(s.id, "prompt", { prompt: [] });
      for (let n = 0; n < PER_TICK; n++) {
        const text = replyChunk(k * PER_TICK + n);
        textBytes += text.length;
        updates += 1;
        pending.push(ledger.append(s.id, "update", text));
      }
      if (--s.left > 0) continue;
      const end = ledger.append(s.id, "turn_end", { stopReason: "end_turn" });
      pending.push(
        Promise.all([s.prompt, end]).then(([from, to]) =>
          compactLater(s.id, from, to),
        ),
      );
      s.prompt = undefined;
      s.left = ticks;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(pending);
  const cpu = cpuUs() - start.cpu;
  const wal = walBytes() - start.wal;
  console.log(
    `SQLite ledger by stage, staggered turns: ${SESSIONS} sessions × ${TURNS} turns of ${UPDATES} updates back to back (${PER_TICK} per session per tick, the turns ending at different ticks; ${compactions} compactions; ${(textBytes / updates).toFixed(0)} bytes of text per update; load ${loadavg()[0].toFixed(1)}):`,
  );
  for (const [name, s] of stages)
    console.log(row(name, s.calls, s.cpu, s.wal, updates));
  console.log(
    row("the rest", "", cpu - stagedCpu(), wal - stagedWal(), updates),
  );
  console.log(row("all", "", cpu, wal, updates));
}

// The log is never checkpointed: a staggered run leaves hundreds of megabytes behind.
try {
  await (STAGGER ? staggered() : together());
} finally {
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
}
