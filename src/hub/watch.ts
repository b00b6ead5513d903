// What the hub tells clients that watch (the web page; `initialize` with
// `clientCapabilities._meta.acphub.watch: true`) besides session updates: a session's turn
// starting and ending (`_acphub/session/state`), and any session created, renamed, prompted,
// finished or deleted (`_acphub/sessions/changed`, to every watcher, for live session lists).
// Every attached client also sees prompts that other clients sent (user_message_chunk with the
// prompt's sequence number); the prompter gets its own only when it watches.
import type { Attachments, HubClient } from "./attachments.js";
import { offer } from "./attachments.js";
import { Note } from "./frames.js";
import { BUILTIN_ADMIN } from "../contracts/users.js";
import type { EditorPort } from "../engine/ports.js";
import { promptUpdates, withSeq } from "../engine/wire-updates.js";
import { HUB_METHOD, ownMetaOf } from "../shared/hub-extension.js";

/** What a session list shows of a session: a turn running, a question waiting for an answer,
 *  the last turn failed, or nothing happening. */
export type SessionState = "running" | "waiting" | "failed" | "idle";

type Params = Record<string, unknown>;

/** True when an initialize's client capabilities ask for the watch notifications. */
export function wantsWatch(params: Params): boolean {
  const caps = params["clientCapabilities"] as { _meta?: unknown } | undefined;
  return ownMetaOf(caps?._meta).watch === true;
}

export class HubWatch {
  /** Sessions with a turn running, as the engines' turn events tell. */
  private readonly running = new Set<string>();
  /** Permission questions waiting for an answer, by session, with who was asked. */
  private readonly asking = new Map<string, { count: number; of?: string }>();
  /** Who prompted the turn another node runs (a hub user), by session: who its questions wait for. */
  private readonly promptedBy = new Map<string, string>();
  /** Sessions whose last turn ended with an error (since this hub started). */
  private readonly failed = new Set<string>();
  constructor(
    private readonly attachments: Attachments,
    /** Whether a client may hear of a session (issue 22: only the ones its user may see). */
    private readonly mayTell: (client: HubClient, sessionId: string) => boolean,
  ) {}

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  stateOf(sessionId: string): SessionState {
    if (this.asking.has(sessionId)) return "waiting";
    if (this.running.has(sessionId)) return "running";
    return this.failed.has(sessionId) ? "failed" : "idle";
  }

  // A permission question was put to a client (+1) or answered / withdrawn (-1).
  asked(sessionId: string, delta: 1 | -1): void {
    const now = this.asking.get(sessionId);
    const count = (now?.count ?? 0) + delta;
    if (count <= 0) this.asking.delete(sessionId);
    else
      this.asking.set(sessionId, {
        count,
        of:
          now?.of ??
          whoIsAsked(this.attachments.owner(sessionId)) ??
          this.promptedBy.get(sessionId),
      });
    this.changed(sessionId);
  }

  // A prompt was recorded: show it to the other attached clients (with its author, when the
  // hub knows one), mark the turn running.
  prompted(
    sessionId: string,
    seq: number,
    blocks: readonly unknown[],
    author?: string,
  ): void {
    const owner = this.attachments.owner(sessionId);
    const batch = promptUpdates(blocks, author).map(
      (params) =>
        new Note("session/update", withSeq({ sessionId, ...params }, seq)),
    );
    for (const a of this.attachments.attached(sessionId)) {
      if (a.client.closed || (a.client === owner && !a.client.watch)) continue;
      offer(a, batch, seq);
    }
    this.started(sessionId);
  }

  /** A turn started (here, or on another node of a cluster, prompted `by`): tell the watchers. */
  started(sessionId: string, by?: string): void {
    if (by) this.promptedBy.set(sessionId, by);
    else this.promptedBy.delete(sessionId);
    this.running.add(sessionId);
    this.failed.delete(sessionId);
    this.tellState(sessionId, { running: true });
  }

  /** A turn another node runs is no longer followed here (no client attached): not known. */
  unknown(sessionId: string): void {
    this.running.delete(sessionId);
    this.promptedBy.delete(sessionId);
  }

  // A turn ended (or failed): tell the watchers.
  ended(sessionId: string, payload: Params): void {
    this.running.delete(sessionId);
    this.promptedBy.delete(sessionId);
    if (payload["error"] !== undefined) this.failed.add(sessionId);
    else this.failed.delete(sessionId);
    this.tellState(sessionId, { running: false, ...payload });
  }

  /** What a session list shows of a session's state (session/list's `_meta.acphub`). */
  listed(sessionId: string): Params {
    return {
      running: this.running.has(sessionId),
      state: this.stateOf(sessionId),
      ...this.askedOf(sessionId),
    };
  }

  // Something a session list shows changed.
  changed(sessionId: string, title?: unknown): void {
    const params = {
      sessionId,
      ...this.listed(sessionId),
      ...(typeof title === "string" && title ? { title } : {}),
    };
    const note = new Note(HUB_METHOD.sessionsChanged, params);
    for (const c of this.attachments.allClients)
      if (c.watch && !c.closed && this.mayTell(c, sessionId)) c.notify(note);
  }

  // Who holds a session's open question ({} when none, or the client gave no name).
  askedOf(sessionId: string): { askedOf?: string } {
    const of = this.asking.get(sessionId)?.of;
    return of ? { askedOf: of } : {};
  }

  // The session lists first: a page that shows the turn ended (or started) from the state note
  // has the list's state (idle, running) that goes with it already.
  private tellState(sessionId: string, state: Params): void {
    this.changed(sessionId);
    const note = new Note(HUB_METHOD.sessionState, { sessionId, ...state });
    for (const a of this.attachments.attached(sessionId))
      if (a.client.watch && !a.client.closed) a.client.notify(note);
  }
}

/** The hub's editor port, telling the watch while a permission question waits for an answer. */
export function askingEditor(editor: EditorPort, watch: HubWatch): EditorPort {
  return {
    ...editor,
    request: async <T>(method: string, raw: unknown, signal?: AbortSignal) => {
      const id = (raw as Params | undefined)?.["sessionId"];
      if (method !== "session/request_permission" || typeof id !== "string")
        return editor.request<T>(method, raw, signal);
      watch.asked(id, 1);
      try {
        return await editor.request<T>(method, raw, signal);
      } finally {
        watch.asked(id, -1);
      }
    },
  };
}

// Who a question put to a client waits for: its hub user (a person); for the serve token's
// holder (every client of a hub without users) the program it uses, as it named itself.
function whoIsAsked(client: HubClient | undefined): string | undefined {
  const user = client?.user?.name;
  if (user !== undefined && user !== BUILTIN_ADMIN) return user;
  return client?.name ?? user;
}

/** The name a client gave at initialize (clientInfo.name), if any. */
export function clientNameOf(params: Params): string | undefined {
  const info = params["clientInfo"] as { name?: unknown } | undefined;
  return typeof info?.name === "string" && info.name ? info.name : undefined;
}
