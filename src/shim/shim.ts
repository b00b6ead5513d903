// `acphub acp --hub URL`: to the editor on stdio, exactly a local `acphub acp`; behind it, a
// raw JSON-RPC relay to a running hub over WebSocket that survives the hub restarting. It
// keeps its own request ids toward the hub, a cursor (the hub's seq) per session, and the
// editor's unanswered requests; after a reconnect it re-initializes, resumes each session
// from its cursor (missed updates first), and re-sends what was unanswered — prompts carry
// an idempotency key, so a turn that finished meanwhile is answered from the hub's ledger.
import type { Logger } from "../shared/logger.js";
import type { HubLink } from "./link.js";
import { AnswerMemory } from "./answers.js";
import { busyElsewhere, nodeOf, seqOf, withKey } from "./messages.js";

type Msg = Record<string, unknown>;

/** Messages from the editor held while the hub is unreachable. */
export const MAX_HELD_MESSAGES = 10_000;

export interface HubShimOptions {
  url: string;
  /** Several nodes of a cluster (url is the first): a lost link tries the next. */
  urls?: string[];
  token: string;
  logger: Logger;
  maxMessageBytes: number;
  reconnectForMs?: number;
}

interface Question {
  hubId: unknown;
  gen: number;
  message: Msg;
}

interface Pending {
  /** The editor's id; undefined for the shim's own requests. */
  editorId?: unknown;
  message: Msg;
  done?: (reply: Msg) => void;
  /** A prompt another cluster node was busy with: how often it was tried, its next try. */
  tries?: number;
  retry?: NodeJS.Timeout;
}

/** The first and the longest wait before a prompt answered "busy on another node" is re-sent. */
const BUSY_RETRY_MS = [250, 2000] as const;

/** The relay's state across reconnects. */
export class Shim {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The hub's questions to the editor, by the shim's id; `gen`: the link they came on. */
  private readonly fromHub = new Map<number, Question>();
  /** Questions whose link went down, kept so that a late answer is still remembered. */
  private readonly orphans = new Map<number, Question>();
  private readonly answers = new AnswerMemory();
  private readonly cursors = new Map<string, number>();
  /** Sessions the editor is loading: their replay passes even below the cursor. */
  private readonly loading = new Set<string>();
  private readonly held: Msg[] = [];
  /** Sessions whose prompt the editor cancelled while it was unanswered: cancelled again
   *  after a reconnect (the cancel may have gone down with the old socket). */
  private readonly cancelled = new Set<string>();
  private initParams: Msg | undefined;
  private gen = 0;
  private ready = false;
  link!: HubLink;

  constructor(
    private readonly write: (m: Msg) => void,
    private readonly logger: Logger,
  ) {}

  // A message from the editor: relayed now, or held until the hub is back.
  fromEditor(m: Msg): void {
    if (!this.ready || !this.link.up) return this.hold(m);
    if ("method" in m && "id" in m) return this.editorRequest(m);
    if ("method" in m) return this.editorNotification(m);
    this.editorResponse(m);
  }

  // Holds a message until the hub is back; past the bound a request is answered with an
  // error (never dropped silently), anything else dropped with a warning.
  private hold(m: Msg): void {
    if (m["method"] === "session/cancel") this.noteCancel(m);
    if (this.held.length < MAX_HELD_MESSAGES) return void this.held.push(m);
    if ("method" in m && "id" in m)
      return this.write({
        jsonrpc: "2.0",
        id: m["id"],
        error: {
          code: -32603,
          message: `the hub is unreachable and ${MAX_HELD_MESSAGES} messages are already waiting for it; try again once it is back`,
        },
      });
    this.logger.warn(
      { method: m["method"] },
      "hub unreachable and the hold queue is full; a notification was dropped",
    );
  }

  // Remembers a cancel for a session whose prompt is still unanswered.
  private noteCancel(m: Msg): void {
    const sessionId = (m["params"] as Msg | undefined)?.["sessionId"];
    if (typeof sessionId === "string" && this.promptPending(sessionId))
      this.cancelled.add(sessionId);
  }

  private promptPending(sessionId: string): boolean {
    for (const p of this.pending.values()) {
      const params = p.message["params"] as Msg | undefined;
      if (
        p.message["method"] === "session/prompt" &&
        params?.["sessionId"] === sessionId
      )
        return true;
    }
    return false;
  }

  private editorRequest(m: Msg): void {
    const message = { ...m };
    if (m["method"] === "initialize") this.initParams = m["params"] as Msg;
    if (m["method"] === "session/prompt")
      message["params"] = withKey(m["params"]);
    if (m["method"] === "session/load")
      this.loading.add(String((m["params"] as Msg | undefined)?.["sessionId"]));
    const id = this.nextId++;
    this.pending.set(id, { editorId: m["id"], message });
    this.link.send({ ...message, id });
  }

  private editorNotification(m: Msg): void {
    if (m["method"] === "session/cancel") this.noteCancel(m);
    if (m["method"] === "$/cancel_request") {
      const target = (m["params"] as Msg | undefined)?.["requestId"];
      for (const [id, p] of this.pending)
        if (p.editorId === target)
          this.link.send({
            ...m,
            params: { ...(m["params"] as Msg), requestId: id },
          });
      return;
    }
    this.link.send(m);
  }

  // The editor's answer to a hub request: relayed while its hub connection lives; a permission
  // answer is also remembered, since it can be lost with a link that is dropping.
  private editorResponse(m: Msg): void {
    const id = Number(m["id"]);
    const entry = this.fromHub.get(id) ?? this.orphans.get(id);
    this.fromHub.delete(id);
    this.orphans.delete(id);
    if (!entry) return;
    this.answers.remember(entry.message, entry.gen, m);
    if (entry.gen === this.gen) this.link.send({ ...m, id: entry.hubId });
  }

  fromHubMessage(m: Msg): void {
    if ("method" in m && "id" in m) {
      const known = this.answers.recall(m, this.gen);
      if (known !== undefined) {
        this.link.send({ jsonrpc: "2.0", id: m["id"], result: known });
        return;
      }
      const id = this.nextId++;
      this.fromHub.set(id, { hubId: m["id"], gen: this.gen, message: m });
      return this.write({ ...m, id });
    }
    if ("method" in m) return this.hubNotification(m);
    const p = this.pending.get(Number(m["id"]));
    if (!p) return;
    this.pending.delete(Number(m["id"]));
    if (p.done) return p.done(m);
    if (p.message["method"] === "session/prompt" && busyElsewhere(m))
      return this.retryBusy(p, m);
    this.track(p.message, m);
    const sessionId = (p.message["params"] as Msg | undefined)?.["sessionId"];
    if (
      p.message["method"] === "session/prompt" &&
      typeof sessionId === "string"
    )
      if (!this.promptPending(sessionId)) this.cancelled.delete(sessionId);
    this.write({ ...m, id: p.editorId });
  }

  // A prompt another live node of the cluster is running a turn of its session for: sent again
  // after a growing wait (the same idempotency key: answered from the ledger once that turn
  // ended, if it was this very prompt); a cancel from the editor meanwhile ends it cancelled.
  private retryBusy(p: Pending, reply: Msg): void {
    const tries = (p.tries ?? 0) + 1;
    if (tries === 1)
      this.logger.warn(
        { node: nodeOf(reply) },
        "another node of the hub runs a turn of this session; the prompt is sent again once it ended",
      );
    const wait = Math.min(
      BUSY_RETRY_MS[0] * 2 ** (tries - 1),
      BUSY_RETRY_MS[1],
    );
    const id = this.nextId++;
    const entry: Pending = { ...p, tries };
    this.pending.set(id, entry);
    entry.retry = setTimeout(() => {
      delete entry.retry;
      if (this.pending.get(id) !== entry) return;
      const sessionId = (p.message["params"] as Msg | undefined)?.["sessionId"];
      if (typeof sessionId === "string" && this.cancelled.has(sessionId)) {
        this.pending.delete(id);
        if (!this.promptPending(sessionId)) this.cancelled.delete(sessionId);
        return this.write({
          jsonrpc: "2.0",
          id: p.editorId,
          result: { stopReason: "cancelled" },
        });
      }
      if (this.ready && this.link.up) this.link.send({ ...p.message, id });
    }, wait);
    entry.retry.unref();
  }

  private hubNotification(m: Msg): void {
    const params = (m["params"] as Msg | undefined) ?? {};
    if (m["method"] === "session/update") {
      const sessionId = String(params["sessionId"]);
      const seq = seqOf(params);
      const cursor = this.cursors.get(sessionId) ?? 0;
      if (seq !== undefined) {
        if (seq <= cursor && !this.loading.has(sessionId)) return;
        this.cursors.set(sessionId, Math.max(seq, cursor));
      }
    }
    if (m["method"] === "$/cancel_request") {
      for (const [id, e] of this.fromHub)
        if (e.hubId === params["requestId"] && e.gen === this.gen)
          return this.write({ ...m, params: { ...params, requestId: id } });
      return;
    }
    this.write(m);
  }

  // Remembers the sessions the editor has open, to resume them after a reconnect.
  private track(request: Msg, reply: Msg): void {
    const method = request["method"];
    const params = (request["params"] as Msg | undefined) ?? {};
    if (method === "session/load")
      this.loading.delete(String(params["sessionId"]));
    if (!("result" in reply)) return;
    const result = (reply["result"] as Msg | null) ?? {};
    // session/new and session/fork open the session their answer names.
    const opens = method === "session/new" || method === "session/fork";
    const id = opens ? result["sessionId"] : params["sessionId"];
    if (typeof id !== "string") return;
    if (method === "session/close" || method === "session/delete")
      this.cursors.delete(id);
    else if (opens || method === "session/load" || method === "session/resume")
      this.cursors.set(id, this.cursors.get(id) ?? 0);
  }

  up(gen: number): void {
    this.settleQuestions();
    // The shim's own questions of a re-attach cut short end now (the new one asks again).
    for (const [id, p] of this.pending)
      if (p.done) {
        this.pending.delete(id);
        p.done({ error: { code: -32603, message: "hub connection lost" } });
      }
    this.gen = gen;
    void this.reattach(gen).catch((error: unknown) =>
      this.logger.warn({ err: error }, "re-attaching to the hub failed"),
    );
  }

  // The hub went away: its requests to the editor can no longer be answered.
  down(): void {
    this.ready = false;
    this.settleQuestions();
  }

  // Every question the hub asked the editor on a connection that is gone is settled: the
  // editor is told it was cancelled (its answer could not reach the hub any more).
  private settleQuestions(): void {
    for (const [id, question] of this.fromHub) {
      this.fromHub.delete(id);
      this.orphans.set(id, question);
      if (this.orphans.size > MAX_HELD_MESSAGES)
        this.orphans.delete(this.orphans.keys().next().value as number);
      this.write({
        jsonrpc: "2.0",
        method: "$/cancel_request",
        params: { requestId: id },
      });
    }
  }

  // After a reconnect: initialize, resume each session from its cursor, re-send, flush.
  private async reattach(gen: number): Promise<void> {
    if (gen > 1) {
      await this.ask(
        "initialize",
        this.initParams ?? { protocolVersion: 1, clientCapabilities: {} },
      );
      for (const [sessionId, afterSeq] of this.cursors)
        await this.ask("session/resume", {
          sessionId,
          cwd: process.cwd(),
          mcpServers: [],
          _meta: { acphub: { afterSeq } },
        });
      for (const [id, p] of this.pending)
        if (!p.done) {
          clearTimeout(p.retry);
          delete p.retry;
          this.link.send({ ...p.message, id });
        }
      // A cancel that went down with the old socket reaches the re-sent prompt now.
      for (const sessionId of this.cancelled)
        this.link.send({
          jsonrpc: "2.0",
          method: "session/cancel",
          params: { sessionId },
        });
    }
    if (gen !== this.gen) return;
    this.ready = true;
    for (const m of this.held.splice(0)) this.fromEditor(m);
  }

  private ask(method: string, params: Msg): Promise<Msg> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { message: { method, params }, done: resolve });
      this.link.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  // The hub stayed away: every request the editor still waits on gets an error.
  giveUp(message: string): void {
    const waiting = [
      ...[...this.pending.values()].map((p) => p.editorId),
      ...this.held
        .filter((m) => "method" in m && "id" in m)
        .map((m) => m["id"]),
    ];
    this.pending.clear();
    this.held.length = 0;
    for (const id of waiting)
      if (id !== undefined)
        this.write({ jsonrpc: "2.0", id, error: { code: -32603, message } });
  }
}
