// The page's state: the connection to the hub (re-dialled when it drops, each open session
// resumed from the last sequence number shown), the open session's model, the permission
// questions waiting for an answer, and whether a turn runs. Views subscribe to its changes.
import {
  hubUrl,
  openHubSocket,
  type HubSocket,
  type Params,
} from "../acp/hub-client.js";
import {
  applyOpenResult,
  applyUpdate,
  newModel,
  type SessionModel,
} from "./session-model.js";
import { notifyWaiting } from "./notify.js";

export type Status = "connecting" | "online" | "offline" | "logged-out";

export interface PendingPermission {
  id: number;
  params: Params;
  answer(outcome: Params): void;
}

export interface Turn {
  running: boolean;
  /** True while this page's own prompt runs (it may Stop it). */
  own: boolean;
  stopReason?: string;
}

export class HubStore {
  status: Status = "connecting";
  version = 0;
  model?: SessionModel;
  turn: Turn = { running: false, own: false };
  permissions: PendingPermission[] = [];
  error?: string;
  /** Session titles seen in lists and change notifications. */
  titles = new Map<string, string>();
  /** Called when any session changed (for the session list). */
  onSessionsChanged?: () => void;
  private socket?: HubSocket;
  private ready?: Promise<HubSocket>;
  private listeners = new Set<() => void>();
  private queue: Params[] = [];
  private flushing = false;
  /** True while a session's history is being replayed: it is rendered once, when complete. */
  replaying = false;
  private attempt = 0;
  private nextPermission = 1;

  constructor(private readonly url = hubUrl(window.location)) {}

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed(): void {
    this.version += 1;
    for (const fn of this.listeners) fn();
  }

  // The connection, dialled (and re-dialled after a drop) on first use.
  connection(): Promise<HubSocket> {
    this.ready ??= this.dial();
    return this.ready;
  }

  async request<T = Params>(method: string, params: Params): Promise<T> {
    return (await this.connection()).request<T>(method, params);
  }

  private async dial(): Promise<HubSocket> {
    for (;;) {
      try {
        const { socket } = await openHubSocket(this.url, {
          update: (p) => this.enqueue(p),
          notification: (m, p) => this.onNotification(m, p),
          permission: (p, signal) => this.ask(p, signal),
        });
        this.socket = socket;
        this.attempt = 0;
        void socket.closed.then(() => this.dropped(socket));
        if (this.model) await this.reattach(socket, this.model);
        this.status = "online";
        this.changed();
        return socket;
      } catch {
        this.attempt += 1;
        if (this.attempt >= 3 && !(await loggedIn())) {
          this.status = "logged-out";
          this.changed();
          throw new Error("not logged in");
        }
        this.status = "offline";
        this.changed();
        const ceiling = Math.min(5000, 250 * 2 ** this.attempt);
        await new Promise((r) =>
          setTimeout(r, ceiling / 2 + Math.random() * (ceiling / 2)),
        );
      }
    }
  }

  // The socket went away: show the banner and dial again.
  private dropped(socket: HubSocket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.status = "offline";
    for (const p of this.permissions.splice(0))
      p.answer({ outcome: { outcome: "cancelled" } });
    this.changed();
    this.ready = this.dial();
    void this.ready.catch(() => undefined);
  }

  // After a reconnect: the updates after the last one shown, then live again.
  private async reattach(socket: HubSocket, m: SessionModel): Promise<void> {
    await socket.request("session/resume", {
      sessionId: m.sessionId,
      cwd: "/",
      mcpServers: [],
      _meta: { acphub: { afterSeq: m.lastSeq } },
    });
    await this.refreshTurn(socket, m.sessionId);
  }

  private async refreshTurn(
    socket: HubSocket,
    sessionId: string,
  ): Promise<void> {
    const state = await socket.request<{ running: boolean }>(
      "_acphub/session/replay",
      {
        sessionId,
        afterSeq: Number.MAX_SAFE_INTEGER,
      },
    );
    if (this.model?.sessionId !== sessionId) return;
    this.turn = { ...this.turn, running: state.running || this.turn.own };
  }

  // Opens a session: its whole history replayed, then live.
  async open(sessionId: string): Promise<void> {
    if (this.model?.sessionId === sessionId) return;
    const model = newModel(sessionId);
    this.model = model;
    this.queue = [];
    this.turn = { running: false, own: false };
    this.error = undefined;
    this.replaying = true;
    this.changed();
    try {
      const socket = await this.connection();
      const loaded = await socket
        .request("session/load", { sessionId, cwd: "/", mcpServers: [] })
        .finally(() => this.replayed());
      applyOpenResult(model, loaded);
      await this.refreshTurn(socket, sessionId);
      if (!this.titles.has(sessionId)) await this.learnTitles(socket);
    } catch (error) {
      this.replayed();
      this.error = messageOf(error);
    }
    this.changed();
  }

  // The replay is complete (or failed): show it, in one render.
  private replayed(): void {
    this.replaying = false;
    this.applyQueued();
  }

  /** Remembers the titles of the newest sessions (a session opened by its address). */
  private async learnTitles(socket: HubSocket): Promise<void> {
    const page = await socket.request<{ sessions: Params[] }>(
      "session/list",
      {},
    );
    this.rememberTitles(page.sessions);
  }

  rememberTitles(sessions: Params[]): void {
    for (const s of sessions)
      if (typeof s["title"] === "string")
        this.titles.set(String(s["sessionId"]), s["title"]);
  }

  close(): void {
    this.model = undefined;
    this.changed();
  }

  // session/new with the agent picked; resolves with the hub's session id.
  async create(agent: string, cwd: string): Promise<string> {
    const result = await this.request<Params>("session/new", {
      cwd,
      mcpServers: [],
      _meta: { acphub: { agent } },
    });
    const sessionId = String(result["sessionId"]);
    const model = newModel(sessionId);
    applyOpenResult(model, result);
    this.model = model;
    this.turn = { running: false, own: false };
    this.changed();
    return sessionId;
  }

  // Sends a prompt and waits for its turn to end; one that a dropped connection interrupted
  // is sent again with the same idempotency key (the hub answers it without running it twice).
  async prompt(text: string): Promise<void> {
    const m = this.model;
    if (!m || this.turn.running) return;
    this.turn = { running: true, own: true };
    this.error = undefined;
    this.changed();
    const params = {
      sessionId: m.sessionId,
      prompt: [{ type: "text", text }],
      _meta: { acphub: { idempotencyKey: crypto.randomUUID() } },
    };
    for (let tries = 0; ; tries++) {
      const socket = await this.connection();
      try {
        const result = await socket.request<Params>("session/prompt", params);
        this.flush();
        return this.endTurn(m, String(result["stopReason"]));
      } catch (error) {
        if (!(await closedSoon(socket)) || tries >= 20) {
          this.error = messageOf(error);
          return this.endTurn(m, undefined);
        }
      }
    }
  }

  private endTurn(m: SessionModel, stopReason: string | undefined): void {
    if (this.model !== m) return;
    this.turn = { running: false, own: false, stopReason };
    this.changed();
  }

  cancel(): void {
    const m = this.model;
    if (m)
      void this.socket?.notify("session/cancel", { sessionId: m.sessionId });
  }

  // Changes a mode or config option; the answer may carry the new options.
  async set(method: string, params: Params): Promise<void> {
    const m = this.model;
    if (!m) return;
    try {
      const result = await this.request<Params | null>(method, {
        sessionId: m.sessionId,
        ...params,
      });
      if (result) applyOpenResult(m, result);
      this.changed();
    } catch (error) {
      this.error = messageOf(error);
      this.changed();
    }
  }

  private ask(params: Params, signal: AbortSignal): Promise<Params> {
    return new Promise((resolve) => {
      const entry: PendingPermission = {
        id: this.nextPermission++,
        params,
        answer: (outcome) => {
          this.permissions = this.permissions.filter((p) => p !== entry);
          this.changed();
          resolve(outcome);
        },
      };
      signal.addEventListener("abort", () =>
        entry.answer({ outcome: { outcome: "cancelled" } }),
      );
      this.permissions = [...this.permissions, entry];
      notifyWaiting(params);
      this.changed();
    });
  }

  private onNotification(method: string, params: Params): void {
    if (method === "_acphub/sessions/changed") {
      if (typeof params["title"] === "string") {
        this.titles.set(String(params["sessionId"]), params["title"]);
        this.changed();
      }
      this.onSessionsChanged?.();
    }
    if (method !== "_acphub/session/state") return;
    const m = this.model;
    if (!m || params["sessionId"] !== m.sessionId) return;
    this.flush();
    if (params["running"] === true) this.turn = { ...this.turn, running: true };
    else if (!this.turn.own)
      this.turn = {
        running: false,
        own: false,
        stopReason: params["stopReason"] as string,
      };
    this.changed();
  }

  // Updates are applied in batches, once a frame (or sooner when the page is hidden).
  private enqueue(params: Params): void {
    if (params["sessionId"] !== this.model?.sessionId) return;
    this.queue.push(params);
    if (this.flushing || this.replaying) return;
    this.flushing = true;
    const run = () => this.flush();
    requestAnimationFrame(run);
    setTimeout(run, 100);
  }

  flush(): void {
    if (!this.flushing) return;
    this.flushing = false;
    this.applyQueued();
  }

  private applyQueued(): void {
    const m = this.model;
    const batch = this.queue;
    this.queue = [];
    if (!m) return;
    for (const p of batch) applyUpdate(m, p);
    this.changed();
  }
}

// True when a failed request failed because its connection went (then it is worth resending).
function closedSoon(socket: HubSocket): Promise<boolean> {
  return Promise.race([
    socket.closed.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), 300)),
  ]);
}

async function loggedIn(): Promise<boolean> {
  try {
    return (
      (await fetch("/auth", { credentials: "same-origin" })).status !== 401
    );
  } catch {
    return true;
  }
}

export function messageOf(error: unknown): string {
  if (error && typeof error === "object" && "message" in error)
    return String(error.message);
  return String(error);
}
