// The chaos bench's clients (bench/cluster.mjs): a WebSocket client of one session that survives
// the death of its node (it reconnects to the next live node and resumes from its cursor), and
// the tally of the mock agent's unique chunks ("s3p7u2 ": session 3, prompt 7, update 2) each
// client was sent. Every request is bounded by a timeout.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";

const ASK_TIMEOUT_MS = 60_000;
export const TOKEN_RE = /s\d+p\d+u\d+ /g;

/** The chunk tokens an update holds: agent replies only (an echoed transcript quotes them). */
export function tokensOf(update) {
  if (update?.sessionUpdate !== "agent_message_chunk") return [];
  const said = update.content?.text ?? "";
  if (said.includes("mock agent received")) return [];
  return said.match(TOKEN_RE) ?? [];
}

// One JSON-RPC connection: asks bounded by a timeout, all failed at once when it closes.
function rpc(ws, onNotify) {
  const waiting = new Map();
  let id = 0;
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString());
    const w = m.id !== undefined && waiting.get(m.id);
    if (w) {
      waiting.delete(m.id);
      clearTimeout(w.timer);
      return m.error
        ? w.reject(new Error(m.error.message))
        : w.resolve(m.result);
    }
    if (m.method) onNotify(m);
  });
  ws.on("close", () => {
    for (const w of waiting.values()) {
      clearTimeout(w.timer);
      w.reject(new Error("connection lost"));
    }
    waiting.clear();
  });
  return (method, params) =>
    new Promise((resolve, reject) => {
      const my = ++id;
      const timer = setTimeout(() => {
        waiting.delete(my);
        reject(new Error(`${method} timed out`));
      }, ASK_TIMEOUT_MS);
      waiting.set(my, { resolve, reject, timer });
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: my, method, params }));
    });
}

/** What every client saw: tokens by who saw them first and when, and duplicates. */
export class Tally {
  /** token → { t, node } as the session's prompting client got it live. */
  driver = new Map();
  /** token → { t, node } as the session's watcher (another node) got it live. */
  watcher = new Map();
  /** Every token any client was sent. */
  delivered = new Set();
  /** Every token a prompting client was sent (the hub sends only what is committed). */
  acked = new Set();
  /** A token a client was sent twice (across its reconnects). */
  duplicates = 0;
}

export class SessionClient {
  /** token → seen, for this client across its connections. */
  seen = new Set();
  cursor = 0;
  ws = undefined;
  ask = undefined;
  node = -1;
  connecting = false;

  constructor(role, sessionId, home, nodes, tally, cwd) {
    Object.assign(this, { role, sessionId, home, nodes, tally, cwd });
  }

  get open() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  // The node it prefers first, then the others; resumes the session from its cursor.
  async connect() {
    let last;
    for (let k = 0; k < this.nodes.length; k++) {
      const index = (this.home + k) % this.nodes.length;
      const node = this.nodes[index];
      if (!node.up) continue;
      try {
        return await this.connectTo(index, node);
      } catch (error) {
        last = error;
        this.ws?.terminate();
      }
    }
    throw last ?? new Error("no node up");
  }

  async connectTo(index, node) {
    const ws = new WebSocket(node.acpUrl, {
      headers: { Authorization: `Bearer ${node.token}` },
    });
    this.ws = ws;
    this.node = index;
    ws.on("error", () => undefined);
    this.ask = rpc(ws, (m) => this.heard(m));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("close", () => reject(new Error("refused")));
    });
    this.connecting = true;
    try {
      await this.ask("initialize", {
        protocolVersion: 1,
        clientCapabilities: {},
      });
      await this.ask("session/resume", {
        sessionId: this.sessionId,
        cwd: this.cwd,
        mcpServers: [],
        _meta: { acphub: { afterSeq: this.cursor } },
      });
    } finally {
      this.connecting = false;
    }
  }

  // An update: the cursor moves, its tokens are tallied (live ones timed for latency).
  heard(m) {
    if (m.method !== "session/update") return;
    const seq = m.params?._meta?.acphub?.seq;
    if (typeof seq === "number") this.cursor = Math.max(this.cursor, seq);
    const at = performance.now();
    const update = m.params?.update;
    if (update?.sessionUpdate === "agent_message_chunk" && !this.connecting) {
      this.onReply?.(at);
      this.onText?.(update.content?.text ?? "");
    }
    for (const token of tokensOf(m.params?.update)) {
      if (this.seen.has(token)) this.tally.duplicates += 1;
      this.seen.add(token);
      this.tally.delivered.add(token);
      if (this.role === "driver") this.tally.acked.add(token);
      const timed =
        this.role === "driver" ? this.tally.driver : this.tally.watcher;
      if (!this.connecting && !timed.has(token))
        timed.set(token, { t: at, node: this.node });
    }
  }

  close() {
    this.ws?.terminate();
  }
}
