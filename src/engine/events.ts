// What the session engine tells whoever listens (the hub's watch, the metrics), as it happens:
// a turn starting and ending, and a session's record changing. Nobody infers them from the
// ledger's writes. Listeners are called synchronously and must not throw.
import type { RawContentBlock, RunEvent } from "../contracts/events.js";
import type { LedgerPort, UsageEntry } from "./ledger-port.js";

export interface TurnStarted {
  sessionId: string;
  /** The prompt's sequence number in the ledger. */
  promptSeq: number;
  prompt: RawContentBlock[];
  /** The prompt's `_meta` as the editor sent it (a W3C `traceparent`, …). */
  meta?: Record<string, unknown>;
  /** The hub user who sent the prompt (issue 22), when known. */
  author?: string;
  /** The session's working directory (fs paths are shown relative to it). */
  cwd?: string;
  /** The session's model, when the agent reported one (gen_ai.request.model). */
  model?: string;
}

export interface TurnEnded {
  sessionId: string;
  /** Undefined when the turn failed (then `error`). */
  stopReason?: string;
  error?: string;
  /** The hub's restart killed the turn (recorded as cancelled afterwards). */
  interrupted?: boolean;
  /** The usage in the agent's prompt answer, when it gave one. */
  usage?: Record<string, unknown> | null;
  /** The turn's row in the ledger's usage table, once recorded (budgets count it). */
  recorded?: UsageEntry;
}

/** A prompt refused before anything of it was recorded (a limit, a quota, a spent budget). */
export interface PromptRefused {
  sessionId: string;
  author?: string;
  /** The refusal's HubError code (`BUDGET_EXCEEDED`, `LIMIT_EXCEEDED`, …). */
  code: string;
  message: string;
}

export interface EngineEvents {
  /** A prompt is recorded and its turn starts. */
  turnStarted?(event: TurnStarted): void;
  /** A turn's end is recorded. */
  turnEnded?(event: TurnEnded): void;
  /** An event of a running turn, as the agent's side produced it (before masking and storing). */
  turnEvent?(sessionId: string, event: RunEvent): void;
  /** Keys to add to the `_meta` of the prompt sent to the agent (a `traceparent`). */
  promptMeta?(sessionId: string): Record<string, unknown> | undefined;
  /** A session was created, copied (fork), changed (title, state…) or deleted. */
  sessionChanged?(sessionId: string): void;
  /** A prompt was refused by admission: no turn starts (traces show the refusal). */
  promptRefused?(event: PromptRefused): void;
}

/** The listeners of one engine: each event goes to every one of them, in order. */
export class EngineEventHub implements Required<EngineEvents> {
  private readonly listeners = new Set<EngineEvents>();

  // Adds a listener; the function returned removes it.
  add(listener: EngineEvents): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  turnStarted(event: TurnStarted): void {
    for (const l of this.listeners) l.turnStarted?.(event);
  }

  turnEnded(event: TurnEnded): void {
    for (const l of this.listeners) l.turnEnded?.(event);
  }

  turnEvent(sessionId: string, event: RunEvent): void {
    for (const l of this.listeners) l.turnEvent?.(sessionId, event);
  }

  // Every listener's keys, merged in order; undefined when none adds any.
  promptMeta(sessionId: string): Record<string, unknown> | undefined {
    let meta: Record<string, unknown> | undefined;
    for (const l of this.listeners) {
      const more = l.promptMeta?.(sessionId);
      if (more) meta = { ...meta, ...more };
    }
    return meta;
  }

  sessionChanged(sessionId: string): void {
    for (const l of this.listeners) l.sessionChanged?.(sessionId);
  }

  promptRefused(event: PromptRefused): void {
    for (const l of this.listeners) l.promptRefused?.(event);
  }
}

/** A LedgerPort passing every call to `inner` except the ones `overrides` replaces. An override
 *  of `append` also stands for `appendTo` (which then is not passed on unless overridden too):
 *  what it adds to each append is not bypassed. */
export function ledgerWith(
  inner: LedgerPort,
  overrides: Partial<LedgerPort>,
): LedgerPort {
  const fast =
    inner.appendTo && inner.afterAppends && !overrides.append
      ? {
          appendTo: inner.appendTo.bind(inner),
          afterAppends: inner.afterAppends.bind(inner),
        }
      : {};
  return {
    ...fast,
    createSession: (record) => inner.createSession(record),
    getSession: (id) => inner.getSession(id),
    updateSession: (id, patch) => inner.updateSession(id, patch),
    deleteSession: (id) => inner.deleteSession(id),
    listSessions: (filter) => inner.listSessions(filter),
    searchSessions: (filter) => inner.searchSessions(filter),
    append: (id, kind, payload) => inner.append(id, kind, payload),
    read: (id, options) => inner.read(id, options),
    readPage: (id, options) => inner.readPage(id, options),
    ...(inner.readReplay ? { readReplay: inner.readReplay.bind(inner) } : {}),
    events: (id, options) => inner.events(id, options),
    compact: (id, after, upto) => inner.compact(id, after, upto),
    ...(inner.whenCompactable
      ? { whenCompactable: inner.whenCompactable.bind(inner) }
      : {}),
    saveSettings: (id, settings) => inner.saveSettings(id, settings),
    copySession: (from, record, upto) => inner.copySession(from, record, upto),
    follow: (id, listener) => inner.follow(id, listener),
    recordUsage: (entry) => inner.recordUsage(entry),
    readUsage: (since) => inner.readUsage(since),
    close: () => inner.close(),
    ...overrides,
  };
}

// The ledger as the engine uses it: every change to a session's record is announced.
export function announcingLedger(
  ledger: LedgerPort,
  events: EngineEventHub,
): LedgerPort {
  const then =
    (id: string) =>
    <T>(value: T): T => {
      events.sessionChanged(id);
      return value;
    };
  return ledgerWith(ledger, {
    createSession: (r) => ledger.createSession(r).then(then(r.id)),
    updateSession: (id, p) => ledger.updateSession(id, p).then(then(id)),
    deleteSession: (id) => ledger.deleteSession(id).then(then(id)),
    copySession: (from, r, upto) =>
      ledger.copySession(from, r, upto).then(then(r.id)),
  });
}
