// The storing floor of bench/serve.mjs: the pipe floor (bench/ws-pipe.mjs) plus the least any
// relay must add to keep the hub's guarantees "stored before sent", "seq" and "nothing lost on
// kill -9". Each update line gets its connection's next seq; every line waits for the next SQLite
// transaction (WAL, synchronous=NORMAL, commits at least 2 ms apart while busy: all as the
// ledger's group commit), which stores its update lines as one row (a journal row: the cheapest
// write that survives a kill); after the commit each connection's lines are sent in order, in one
// socket write, updates with the seq spliced into their params as the hub's frames carry it.
// Nothing is parsed (a prefix says what is an update), nothing merged, masked or fanned out: no
// hub can store and send for less. Prints `{"url","pid"}` when ready.
// BENCH_STORE_ROWS=line stores a row per update (session, seq, text: the events table a reader
// wants) instead of one per commit.
// Usage: node bench/ws-store.mjs
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { WebSocketServer } from "ws";

const PER_LINE = process.env.BENCH_STORE_ROWS === "line";
const UPDATE_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":';
const FARM = fileURLToPath(new URL("./agent-farm.mjs", import.meta.url));
const farm = spawn(process.execPath, [FARM], {
  stdio: ["ignore", "pipe", "inherit"],
});
const { port } = JSON.parse(
  await new Promise((resolve) =>
    createInterface({ input: farm.stdout }).once("line", resolve),
  ),
);

const dir = mkdtempSync(join(tmpdir(), "acphub-ws-store-"));
const db = new Database(join(dir, "store.db"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(
  "CREATE TABLE journal (id INTEGER PRIMARY KEY, lines TEXT NOT NULL);" +
    "CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (session_id, seq))",
);
const insertJournal = db.prepare("INSERT INTO journal (lines) VALUES (?)");
const insertEvent = db.prepare(
  "INSERT INTO events (session_id, seq, text) VALUES (?, ?, ?)",
);

/** The connections with lines waiting for the tick's commit, and the tick's update rows. */
const waiting = new Set();
let rows = [];
let scheduled = false;
let lastCommit = 0;
/** While updates keep coming, commits are this far apart (the hub's group commit's own bound). */
const BUSY_INTERVAL_MS = 2;

const store = db.transaction((batch) => {
  if (!PER_LINE) insertJournal.run(batch.map((r) => r.line).join("\n"));
  else for (const r of batch) insertEvent.run(r.sessionId, r.seq, r.line);
});

function commit() {
  scheduled = false;
  lastCommit = Date.now();
  if (rows.length > 0) store(rows);
  rows = [];
  for (const relay of waiting) relay.flush();
  waiting.clear();
}

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", (ws) => {
  const agent = connect(port, "127.0.0.1");
  agent.setNoDelay(true);
  const sessionId = randomUUID();
  let seq = 0;
  let pending = [];
  const relay = {
    flush() {
      ws._socket.cork(); // one write for the batch's frames, as the hub's writes
      for (const frame of pending) ws.send(frame);
      ws._socket.uncork();
      pending = [];
    },
  };
  createInterface({ input: agent, crlfDelay: Infinity }).on("line", (line) => {
    if (line.startsWith(UPDATE_HEAD) && line.endsWith("}}")) {
      seq += 1;
      rows.push({ sessionId, seq, line });
      pending.push(`${line.slice(0, -2)},"_meta":{"seq":${seq}}}}`);
    } else pending.push(line);
    waiting.add(relay);
    if (!scheduled) {
      scheduled = true;
      const wait = lastCommit + BUSY_INTERVAL_MS - Date.now();
      if (wait > 0) setTimeout(commit, wait);
      else setImmediate(commit);
    }
  });
  ws.on("message", (data) => agent.write(`${data}\n`));
  ws.on("close", () => agent.end());
  agent.on("error", () => ws.close());
  ws.on("error", () => agent.destroy());
});
await new Promise((resolve) => wss.once("listening", resolve));
process.stdout.write(
  `${JSON.stringify({ url: `ws://127.0.0.1:${wss.address().port}`, pid: process.pid })}\n`,
);
process.on("SIGTERM", () => {
  farm.kill("SIGTERM");
  db.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
