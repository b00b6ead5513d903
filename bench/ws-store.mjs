// The storing floor of bench/serve.mjs: the pipe floor (bench/ws-pipe.mjs) plus what the hub's
// guarantees "stored before sent", "seq" and "nothing lost on kill -9" need, and nothing else.
// Each update line gets its connection's next seq; every line waits for the next SQLite
// transaction (WAL, synchronous=NORMAL, commits at least 2 ms apart while busy: all as the
// ledger's group commit), which stores its update lines as one row (a journal row: a write that
// survives a kill); after the commit each connection's lines are sent in order, in one socket
// write, updates with the seq spliced into their params as the hub's frames carry it. Nothing is
// parsed (a prefix says what is an update), nothing merged, masked or fanned out.
// Prints `{"url","pid"}` when ready.
// BENCH_STORE=ledger stores through acphub's own SQLite ledger instead (dist/: a session per
// connection, `appendTo` per update, the turn compacted at its end, chunks merged): what acphub's
// ledger costs, with none of the hub's relay path.
// BENCH_STORE_AGENT=one puts one mock agent behind every connection (bench/one-agent.mjs), as the
// hub and the anchor have, instead of an agent per connection as the pipe floor has: the same
// relay on the hub's input.
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
import { createBenchSessions } from "./common.mjs";
import { startOneAgent } from "./one-agent.mjs";

const LEDGER = process.env.BENCH_STORE === "ledger";
const ONE_AGENT = process.env.BENCH_STORE_AGENT === "one";
const UPDATE_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":';
const UPDATE_KEY = ',"update":';
const FARM = fileURLToPath(new URL("./agent-farm.mjs", import.meta.url));
const farm = ONE_AGENT
  ? undefined
  : spawn(process.execPath, [FARM], { stdio: ["ignore", "pipe", "inherit"] });
const port =
  farm &&
  JSON.parse(
    await new Promise((resolve) =>
      createInterface({ input: farm.stdout }).once("line", resolve),
    ),
  ).port;
const dir = mkdtempSync(join(tmpdir(), "acphub-ws-store-"));

/** The connections with frames that may be ready to go. */
const waiting = new Set();
let flushing = false;
function flushSoon(relay) {
  waiting.add(relay);
  if (flushing) return;
  flushing = true;
  queueMicrotask(() => {
    flushing = false;
    for (const r of waiting) r.flush();
    waiting.clear();
  });
}

// The bare store: update lines committed together at most every 2 ms while busy (the hub's
// group commit's own bound), as one journal row.
function rawStore() {
  const db = new Database(join(dir, "store.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE journal (id INTEGER PRIMARY KEY, lines TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO journal (lines) VALUES (?)");
  const write = db.transaction((batch) =>
    insert.run(batch.map((r) => r.line).join("\n")),
  );
  const seqs = new Map();
  let rows = [];
  let scheduled = false;
  let lastCommit = 0;
  const commit = () => {
    scheduled = false;
    lastCommit = Date.now();
    write(rows);
    for (const r of rows) r.sink.stored(r.seq);
    rows = [];
  };
  return {
    open: async () => undefined,
    append(sessionId, line, sink) {
      const seq = (seqs.get(sessionId) ?? 0) + 1;
      seqs.set(sessionId, seq);
      rows.push({ sessionId, seq, line, sink });
      if (scheduled) return;
      scheduled = true;
      const wait = lastCommit + 2 - Date.now();
      if (wait > 0) setTimeout(commit, wait);
      else setImmediate(commit);
    },
    turnEnded: () => undefined,
    close: () => db.close(),
  };
}

// acphub's own SQLite ledger, as the hub uses it for a session's updates.
async function acphubLedger() {
  const { openLedgerAt } = await import("../dist/ledger/open.js");
  const ledger = await openLedgerAt(join(dir, "ledger.db"));
  const last = new Map();
  return {
    open: (sessionId) => createBenchSessions(ledger, [sessionId]),
    append(sessionId, line, sink) {
      const text = `{${line.slice(line.indexOf(UPDATE_KEY) + 1, -2)}}`;
      ledger.appendTo(sessionId, "update", text, {
        stored: (seq) => {
          last.set(sessionId, seq);
          sink.stored(seq);
        },
        failed: (error) => sink.failed(error),
      });
    },
    turnEnded(sessionId) {
      const upto = last.get(sessionId) ?? 0;
      void (ledger.whenCompactable?.(sessionId, upto) ?? Promise.resolve())
        .then(() => ledger.compact(sessionId, 0, upto))
        .catch(() => undefined);
    },
    close: () => ledger.close(),
  };
}

const store = LEDGER ? await acphubLedger() : rawStore();

// A connection's lines in order, each frame sent once it may go (an update: once stored, its seq
// spliced in), the ready ones in one socket write.
function relayFor(ws, sessionId) {
  const queue = [];
  let sent = 0;
  const relay = {
    sessionId,
    flush() {
      ws._socket.cork();
      while (sent < queue.length && queue[sent].frame !== undefined)
        ws.send(queue[sent++].frame);
      ws._socket.uncork();
      if (sent === queue.length) queue.length = sent = 0;
    },
    push(line, update) {
      const entry = { frame: undefined };
      queue.push(entry);
      if (update)
        return store.append(relay.sessionId, line, {
          stored: (seq) => {
            entry.frame = `${line.slice(0, -2)},"_meta":{"seq":${seq}}}}`;
            flushSoon(relay);
          },
          failed: () => ws.close(),
        });
      entry.frame = line;
      if (line.includes('"stopReason"')) store.turnEnded(relay.sessionId);
      flushSoon(relay);
    },
  };
  return relay;
}

// An agent of its own per connection (bench/agent-farm.mjs), as the pipe floor has.
function agentPerConnection(ws) {
  const agent = connect(port, "127.0.0.1");
  agent.setNoDelay(true);
  const relay = relayFor(ws, randomUUID());
  const opened = store.open(relay.sessionId);
  createInterface({ input: agent, crlfDelay: Infinity }).on("line", (line) =>
    relay.push(line, line.startsWith(UPDATE_HEAD) && line.endsWith("}}")),
  );
  ws.on("message", (data) => opened.then(() => agent.write(`${data}\n`)));
  ws.on("close", () => agent.end());
  agent.on("error", () => ws.close());
  ws.on("error", () => agent.destroy());
}

// One mock agent for every connection (bench/one-agent.mjs), as the hub and the anchor have.
const bySession = new Map(); // agent session id → relay
const oneAgent = ONE_AGENT
  ? await startOneAgent((sessionId, line) =>
      bySession.get(sessionId)?.push(line, true),
    )
  : undefined;
function sharedAgent(ws) {
  const relay = relayFor(ws, undefined);
  ws.on("message", (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === "initialize")
      return ws.send(oneAgent.initialized(message.id));
    oneAgent.forward(message, (answer) => {
      const sessionId = answer.result?.sessionId;
      if (message.method !== "session/new" || !sessionId)
        return relay.push(JSON.stringify(answer), false);
      relay.sessionId = sessionId;
      bySession.set(sessionId, relay);
      void store
        .open(sessionId)
        .then(() => relay.push(JSON.stringify(answer), false));
    });
  });
}

const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
wss.on("connection", ONE_AGENT ? sharedAgent : agentPerConnection);
await new Promise((resolve) => wss.once("listening", resolve));
process.stdout.write(
  `${JSON.stringify({ url: `ws://127.0.0.1:${wss.address().port}`, pid: process.pid })}\n`,
);
process.on("SIGTERM", async () => {
  farm?.kill("SIGTERM");
  oneAgent?.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
