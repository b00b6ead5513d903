// The page's state: the open session's model (resumed from the last sequence number shown
// whenever the connection comes back), the permission questions waiting for an answer, and
// whether a turn runs. Views subscribe to its changes.
import { hubUrl, type HubSocket, type Params } from "../acp/hub-client.js";
import { closedSoon, HubLink, type Status } from "./hub-link.js";
import {
  applyOpenResult,
  newModel,
  type SessionModel,
} from "./session-model.js";
import { HistoryPager } from "./history-pager.js";
import { takeEarlyDial } from "../early.js";
import { receive, startWindow } from "./history-window.js";
import { Permissions, type PendingPermission } from "./permissions.js";
import { Team } from "./team.js";
import { UpdateBatch } from "./update-batch.js";
import {
  changedInfo,
  infoOf,
  isNotFound,
  type SessionInfo,
  type SessionState,
} from "./session-info.js";
import { HUB_METHOD, type ReplayAnswer } from "../../shared/hub-extension.js";
import { cutOff, endOf, type Interrupted } from "./turn-outcome.js";

export type { PendingPermission, SessionInfo, SessionState, Status };
export { isNotFound };

export interface Turn {
  running: boolean;
  /** True while this page's own prompt runs (it may Stop it). */
  own: boolean;
  stopReason?: string;
  /** The turn's runner died mid-turn (issue 37): its outcome is unknown, not a cancel. */
  interrupted?: Interrupted;
}

export class HubStore {
  version = 0;
  model?: SessionModel;
  turn: Turn = { running: false, own: false };
  readonly questions = new Permissions(() => this.changed());
  /** Who is logged in, and what they may do in each session (issue 22). */
  readonly team: Team = new Team(this);
  error?: string;
  /** The open session does not exist (a stale link): nothing to reconnect to. */
  notFound = false;
  /** Session titles seen in lists and change notifications. */
  titles = new Map<string, string>();
  /** What lists and change notifications said of each session. */
  readonly infos = new Map<string, SessionInfo>();
  /** Called when any session changed (for the session list). */
  onSessionsChanged?: () => void;
  /** Moves the focus to the sidebar's search (Ctrl/⌘+K), set by the sidebar. */
  focusSearch?: () => void;
  private readonly link: HubLink;
  private listeners = new Set<() => void>();
  private readonly updates = new UpdateBatch((batch) => {
    const m = this.model;
    if (!m) return;
    for (const p of batch) receive(m, p);
    this.changed();
  });
  /** Older and newer pages of the open session's history. */
  readonly pager = new HistoryPager(this);

  constructor(url = hubUrl(window.location)) {
    this.link = new HubLink({
      url,
      handlers: {
        update: (p) => {
          if (p["sessionId"] === this.model?.sessionId) this.updates.push(p);
        },
        notification: (m, p) => this.onNotification(m, p),
        permission: (p, signal) => this.questions.ask(p, signal),
      },
      onUp: (socket) =>
        this.model ? this.reattach(socket, this.model) : Promise.resolve(),
      onDown: () => {
        this.questions.cancelAll();
      },
      onStatus: () => this.changed(),
      early: takeEarlyDial,
    });
  }

  /** The permission questions waiting for an answer. */
  get permissions(): PendingPermission[] {
    return this.questions.list;
  }

  get status(): Status {
    return this.link.status;
  }

  /** Applies the live updates received so far, now. */
  flushUpdates(): void {
    this.updates.drain();
  }

  /** True while a session's first page of history is read (it is rendered once, when here). */
  get replaying(): boolean {
    return this.updates.holding;
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed(): void {
    this.version += 1;
    for (const fn of this.listeners) fn();
  }

  connection(): Promise<HubSocket> {
    return this.link.connection();
  }

  async request<T = Params>(method: string, params: Params): Promise<T> {
    return (await this.connection()).request<T>(method, params);
  }

  // After a reconnect: the updates after the last one shown, then live again.
  // A session that does not exist is not an error of the connection: it stays up. A session
  // still opening (the connection's first dial) is left to open(): it reads the newest page.
  private async reattach(socket: HubSocket, m: SessionModel): Promise<void> {
    if (this.notFound || this.updates.holding) return;
    try {
      await socket.request("session/resume", {
        sessionId: m.sessionId,
        cwd: "/",
        mcpServers: [],
        _meta: { acphub: { afterSeq: m.lastSeq } },
      });
      await this.refreshTurn(socket, m.sessionId);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.notFound = true;
    }
  }

  private async refreshTurn(
    socket: HubSocket,
    sessionId: string,
  ): Promise<void> {
    const state = await socket.request<ReplayAnswer>(HUB_METHOD.sessionReplay, {
      sessionId,
      afterSeq: Number.MAX_SAFE_INTEGER,
    });
    if (this.model?.sessionId !== sessionId) return;
    this.turn = { ...this.turn, running: state.running || this.turn.own };
  }

  // Opens a session: its newest page of history shown at once, then live from the page's last
  // sequence number on (session/resume with it as the cursor: nothing missed, nothing twice).
  async open(sessionId: string): Promise<void> {
    if (this.model?.sessionId === sessionId) return;
    const model = newModel(sessionId);
    this.model = model;
    this.updates.clear();
    this.turn = { running: false, own: false };
    this.error = undefined;
    this.notFound = false;
    this.updates.holding = true;
    this.changed();
    try {
      const socket = await this.connection();
      const page = await HistoryPager.opening(socket, sessionId);
      if (this.model !== model) return;
      startWindow(model, page);
      this.replayed();
      const resumed = await socket.request("session/resume", {
        sessionId,
        cwd: "/",
        mcpServers: [],
        _meta: { acphub: { afterSeq: model.window.endSeq } },
      });
      applyOpenResult(model, resumed);
      await this.refreshTurn(socket, sessionId);
      if (!this.titles.has(sessionId)) await this.learnTitles(socket);
    } catch (error) {
      this.replayed();
      if (isNotFound(error)) this.notFound = true;
      else this.error = messageOf(error);
    }
    this.changed();
  }

  // The replay is complete (or failed): show it, in one render.
  private replayed(): void {
    this.updates.holding = false;
    this.updates.drain();
  }

  /** Remembers the titles of the newest sessions (a session opened by its address). */
  private async learnTitles(socket: HubSocket): Promise<void> {
    const page = await socket.request<{ sessions: Params[] }>(
      "session/list",
      {},
    );
    this.rememberTitles(page.sessions);
  }

  // Titles, folders, agents and states from a session/list page.
  rememberTitles(sessions: Params[]): SessionInfo[] {
    return sessions.map((s) => {
      const info = infoOf(s);
      if (info.title) this.titles.set(info.sessionId, info.title);
      this.infos.set(info.sessionId, info);
      return info;
    });
  }

  close(): void {
    this.model = undefined;
    this.notFound = false;
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
    this.notFound = false;
    this.error = undefined;
    this.changed();
    return sessionId;
  }

  // Sends a prompt and waits for its turn to end (false: refused, a budget say); one a dropped
  // connection interrupted is sent again with its idempotency key (the hub runs it only once).
  async prompt(text: string): Promise<boolean> {
    const m = this.model;
    if (!m || this.turn.running) return false;
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
        this.updates.flush();
        return this.endTurn(m, String(result["stopReason"]), cutOff(result));
      } catch (error) {
        if (!(await closedSoon(socket)) || tries >= 20) {
          this.error = messageOf(error);
          return this.endTurn(m, undefined);
        }
      }
    }
  }

  // Ends this page's turn; true (the prompt ran) when it has a stop reason.
  private endTurn(
    m: SessionModel,
    stopReason?: string,
    cut?: Interrupted,
  ): boolean {
    if (this.model === m)
      this.turn = { running: false, own: false, stopReason, interrupted: cut };
    this.changed();
    return stopReason !== undefined;
  }

  cancel(): void {
    const m = this.model;
    if (m)
      void this.link.current?.notify("session/cancel", {
        sessionId: m.sessionId,
      });
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

  private onNotification(method: string, params: Params): void {
    if (method === HUB_METHOD.sessionsChanged) {
      const info = changedInfo(this.infos, params);
      this.infos.set(info.sessionId, info);
      if (info.title) this.titles.set(info.sessionId, info.title);
      // A share changed is told this way too: what this page may do in the open session.
      if (info.sessionId === this.model?.sessionId)
        void this.team.load(info.sessionId).catch(() => undefined);
      this.changed();
      this.onSessionsChanged?.();
    }
    if (method !== HUB_METHOD.sessionState) return;
    const m = this.model;
    if (!m || params["sessionId"] !== m.sessionId) return;
    this.updates.flush();
    if (params["running"] === true) this.turn = { ...this.turn, running: true };
    else if (!this.turn.own)
      this.turn = { running: false, own: false, ...endOf(params) };
    this.changed();
  }
}

export function messageOf(error: unknown): string {
  if (error && typeof error === "object" && "message" in error)
    return String(error.message);
  return String(error);
}
