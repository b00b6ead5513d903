// What the hub tells clients that watch (the web page; `initialize` with
// `clientCapabilities._meta.acphub.watch: true`) besides session updates: a session's turn
// starting and ending (`_acphub/session/state`), and any session created, renamed, prompted,
// finished or deleted (`_acphub/sessions/changed`, to every watcher, for live session lists).
// Every attached client also sees prompts that other clients sent (user_message_chunk with the
// prompt's sequence number); the prompter gets its own only when it watches.
import type { Attachments } from "./attachments.js";
import { offer, withSeq } from "./attachments.js";
import type { LedgerPort } from "../engine/ports.js";

type Params = Record<string, unknown>;

export const WATCH_METHODS = {
  state: "_acphub/session/state",
  changed: "_acphub/sessions/changed",
} as const;

/** True when an initialize's client capabilities ask for the watch notifications. */
export function wantsWatch(params: Params): boolean {
  const caps = params["clientCapabilities"] as
    { _meta?: { acphub?: { watch?: unknown } } } | undefined;
  return caps?._meta?.acphub?.watch === true;
}

export class HubWatch {
  /** Sessions with a turn running, as the ledger's prompt and turn_end events tell. */
  private readonly running = new Set<string>();

  constructor(private readonly attachments: Attachments) {}

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  // A prompt was recorded: show it to the other attached clients, mark the turn running.
  prompted(sessionId: string, seq: number, payload: Params): void {
    const blocks = (payload["prompt"] as unknown[] | undefined) ?? [];
    const owner = this.attachments.owner(sessionId);
    const batch = blocks.map((content) =>
      withSeq(
        { sessionId, update: { sessionUpdate: "user_message_chunk", content } },
        seq,
      ),
    );
    for (const a of this.attachments.attached(sessionId)) {
      if (a.client.closed || (a.client === owner && !a.client.watch)) continue;
      offer(a, "session/update", batch, seq);
    }
    this.started(sessionId);
  }

  /** A turn started (here, or on another node of a cluster): tell the watchers. */
  started(sessionId: string): void {
    this.running.add(sessionId);
    this.tellState(sessionId, { running: true });
  }

  // A turn ended (or failed): tell the watchers.
  ended(sessionId: string, payload: Params): void {
    this.running.delete(sessionId);
    this.tellState(sessionId, { running: false, ...payload });
  }

  // Something a session list shows changed.
  changed(sessionId: string, title?: unknown): void {
    const params = {
      sessionId,
      running: this.running.has(sessionId),
      ...(typeof title === "string" && title ? { title } : {}),
    };
    for (const c of this.attachments.allClients)
      if (c.watch && !c.closed) c.notify(WATCH_METHODS.changed, params);
  }

  private tellState(sessionId: string, state: Params): void {
    for (const a of this.attachments.attached(sessionId))
      if (a.client.watch && !a.client.closed)
        a.client.notify(WATCH_METHODS.state, { sessionId, ...state });
    this.changed(sessionId);
  }
}

/** The ledger calls that change a session list, and the session each one changes. */
const SESSION_OF: Record<string, (args: unknown[]) => string> = {
  createSession: (a) => (a[0] as { id: string }).id,
  copySession: (a) => (a[1] as { id: string }).id,
  updateSession: (a) => String(a[0]),
  deleteSession: (a) => String(a[0]),
};

// The ledger as the hub's gateways see it, telling the watch what it records.
export function watchedLedger(ledger: LedgerPort, watch: HubWatch): LedgerPort {
  const after = <T>(result: T, then: (value: Awaited<T>) => void): T => {
    if (result instanceof Promise) void result.then(then, () => undefined);
    else then(result as Awaited<T>);
    return result;
  };
  return new Proxy(ledger, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      const fn = (value as (...a: unknown[]) => unknown).bind(target);
      if (key === "append")
        return (sessionId: string, kind: string, payload: Params) =>
          after(fn(sessionId, kind, payload), (seq) => {
            if (kind === "prompt")
              watch.prompted(sessionId, Number(seq), payload);
            if (kind === "turn_end") watch.ended(sessionId, payload);
          });
      if (typeof key === "string" && key in SESSION_OF)
        return (...args: unknown[]) => {
          const id = SESSION_OF[key]!(args);
          return after(fn(...args), () => {
            void target
              .getSession(id)
              .then((record) => watch.changed(id, record?.title))
              .catch(() => watch.changed(id));
          });
        };
      return fn;
    },
  });
}

/** session/list's answer with each session's agent and whether a turn runs in it. */
export async function listWithState(
  result: Params,
  ledger: LedgerPort,
  watch: HubWatch,
): Promise<Params> {
  const sessions = (result["sessions"] as Params[] | undefined) ?? [];
  return {
    ...result,
    sessions: await Promise.all(
      sessions.map(async (s) => {
        const id = String(s["sessionId"]);
        const meta = (s["_meta"] as Params | undefined) ?? {};
        const acphub = {
          ...((meta["acphub"] as Params | undefined) ?? {}),
          agent: (await ledger.getSession(id))?.agent,
          running: watch.isRunning(id),
        };
        return { ...s, _meta: { ...meta, acphub } };
      }),
    ),
  };
}
