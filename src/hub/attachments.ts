// The editors attached to each hub session, and the one EditorPort the shared gateways talk
// to: it fans each session's updates out to every attached editor (stamped with the ledger
// sequence number, never one an editor already has) and routes the agent's requests to the
// editor whose prompt is running, else to the others.
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { outcomeFor } from "../protocol/permission-options.js";
import { HubError } from "../shared/errors.js";
import type { EditorPort } from "../engine/ports.js";
import type { HubUser } from "../contracts/users.js";
import { Note, stampedUpdateText } from "./frames.js";

type Params = Record<string, unknown>;

/** One editor connection of the hub, as the session hub sees it. */
export interface HubClient {
  readonly id: string;
  /** True once the connection has gone. */
  readonly closed: boolean;
  /** Asked at initialize for the hub's watch notifications (see hub-watch.ts). */
  watch?: boolean;
  /** The name it gave at initialize (clientInfo.name), to say who holds a question. */
  name?: string;
  /** Who opened the connection (issue 22); none: a single-user hub (everything allowed). */
  readonly user?: HubUser;
  /** Queues a notification; never blocks the relay (a slow client is disconnected).
   *  A replay (`catchUp`) is bounded by the ledger's caps instead of the queue bound. The note
   *  is shared by every client it goes to (its frame is built once). */
  notify(note: Note, catchUp?: boolean): void;
  request<T = unknown>(
    method: string,
    params: Params,
    signal?: AbortSignal,
  ): Promise<T>;
}

export interface Attached {
  client: HubClient;
  /** The highest sequence number this client has been sent for the session. */
  seq: number;
  /** Live notifications held back while the client catches up from the ledger. */
  held?: { batch: Note[]; seq?: number }[];
}

/** Who is attached to which session, and whose prompt runs in each. */
export class Attachments {
  private readonly bySession = new Map<string, Map<string, Attached>>();
  private readonly owners = new Map<string, HubClient>();
  private readonly clients = new Map<string, HubClient>();
  /** "session\0client" of the clients that may only watch that session (issue 22). */
  private readonly watchOnly = new Set<string>();
  /** Called at the next attach to each session (askPermission's reconnect grace). */
  private readonly waiters = new Map<string, Set<() => void>>();

  // Registers a connection so that session-less notifications reach it.
  addClient(client: HubClient): void {
    this.clients.set(client.id, client);
  }

  // Attaches a client to a session, remembering the last sequence number it was sent; a client
  // still catching up (`hold`) gets its live notifications only at `release`.
  attach(sessionId: string, client: HubClient, seq = 0, hold = false): void {
    let map = this.bySession.get(sessionId);
    if (!map) this.bySession.set(sessionId, (map = new Map()));
    const prior = map.get(client.id);
    map.set(client.id, {
      client,
      seq: Math.max(seq, prior?.seq ?? 0),
      ...(hold ? { held: prior?.held ?? [] } : {}),
    });
    const waiting = this.waiters.get(sessionId);
    this.waiters.delete(sessionId);
    for (const wake of waiting ?? []) wake();
  }

  /** Resolves true at the next attach to the session, false after `ms` or on abort. */
  nextAttach(
    sessionId: string,
    ms: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      const set = this.waiters.get(sessionId) ?? new Set();
      this.waiters.set(sessionId, set);
      const done = (attached: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", aborted);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(sessionId) === set)
          this.waiters.delete(sessionId);
        resolve(attached);
      };
      const wake = () => done(true);
      const aborted = () => done(false);
      const timer = setTimeout(aborted, ms);
      set.add(wake);
      signal?.addEventListener("abort", aborted, { once: true });
      if (signal?.aborted) aborted();
    });
  }

  /** The client has been sent everything up to `seq`: what was held back follows, once (as
   *  part of the catch-up, which the client's queue bound does not count). */
  release(sessionId: string, client: HubClient, seq: number): void {
    const attached = this.bySession.get(sessionId)?.get(client.id);
    if (!attached) return;
    const held = attached.held ?? [];
    delete attached.held;
    attached.seq = Math.max(attached.seq, seq);
    for (const item of held) deliver(attached, item.batch, item.seq, true);
  }

  isAttached(sessionId: string, client: HubClient): boolean {
    return this.bySession.get(sessionId)?.has(client.id) === true;
  }

  // Drops a client from one session (close), or from all of them (disconnect).
  detach(client: HubClient, sessionId?: string): void {
    const ids = sessionId ? [sessionId] : [...this.bySession.keys()];
    for (const id of ids) {
      const map = this.bySession.get(id);
      map?.delete(client.id);
      if (map?.size === 0) this.bySession.delete(id);
      if (this.owners.get(id) === client) this.owners.delete(id);
      this.watchOnly.delete(`${id}\0${client.id}`);
    }
    if (!sessionId) this.clients.delete(client.id);
  }

  forgetSession(sessionId: string): void {
    this.bySession.delete(sessionId);
    this.owners.delete(sessionId);
  }

  setOwner(sessionId: string, client: HubClient | undefined): void {
    if (client) this.owners.set(sessionId, client);
    else this.owners.delete(sessionId);
  }

  // Marks (or unmarks) a client as a viewer of a session: never asked to answer for it.
  setWatchOnly(sessionId: string, client: HubClient, only: boolean): void {
    const key = `${sessionId}\0${client.id}`;
    if (only) this.watchOnly.add(key);
    else this.watchOnly.delete(key);
  }

  mayAnswer(sessionId: string, client: HubClient): boolean {
    return !this.watchOnly.has(`${sessionId}\0${client.id}`);
  }

  owner(sessionId: string): HubClient | undefined {
    return this.owners.get(sessionId);
  }

  attached(sessionId: string): Attached[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])];
  }

  /** The sessions that any connection of this user has open (created, loaded or resumed). */
  openBy(user: string | undefined): Set<string> {
    const open = new Set<string>();
    if (user === undefined) return open;
    for (const [id, map] of this.bySession)
      for (const a of map.values())
        if (a.client.user?.name === user && !a.client.closed) open.add(id);
    return open;
  }

  get sessionCount(): number {
    return this.bySession.size;
  }

  get allClients(): HubClient[] {
    return [...this.clients.values()];
  }
}

/** What the fan-out tells the hub's observers (metrics, the audit log). */
export interface FanOutObserver {
  updateRelayed?(): void;
  permissionDecided?(outcome: string): void;
  /** A client answered a permission question (the policy's own refusals are not answers). */
  permissionAnswered?(
    client: HubClient,
    request: Params,
    answer: unknown,
  ): void;
}

// The EditorPort shared by every gateway of the hub.
export function fanOutEditor(
  attachments: Attachments,
  observer: FanOutObserver = {},
  graceMs = ANSWER_GRACE_MS,
): EditorPort {
  return {
    notify: (method, raw, delivery) => {
      const params = raw as Params;
      const sessionId = params["sessionId"];
      if (typeof sessionId !== "string") {
        const note = new Note(method, params);
        for (const c of attachments.allClients) c.notify(note);
        return Promise.resolve();
      }
      const note = stampedNote(method, params, sessionId, delivery);
      for (const a of attachments.attached(sessionId))
        if (offer(a, [note], delivery?.seq) && method === "session/update")
          observer.updateRelayed?.();
      return Promise.resolve();
    },
    request: async <T>(method: string, raw: unknown, signal?: AbortSignal) => {
      const params = raw as Params;
      if (method === "session/request_permission") {
        const outcome = await askPermission(
          attachments,
          params,
          graceMs,
          signal,
          (client, answer) =>
            observer.permissionAnswered?.(client, params, answer),
        );
        observer.permissionDecided?.(
          (outcome as { outcome: { outcome: string } }).outcome.outcome,
        );
        return outcome as T;
      }
      const target = targetsOf(attachments, params)[0];
      if (!target)
        throw new HubError(
          "CLOSED",
          `no editor is attached to answer ${method}`,
        );
      return target.request<T>(method, params, signal);
    },
  };
}

// A notification from a gateway with its ledger seq stamped in; a stored update's frame is
// built from its stored text (`delivery.text`) rather than by serializing the params again.
function stampedNote(
  method: string,
  params: Params,
  sessionId: string,
  delivery?: { seq?: number; text?: string },
): Note {
  const seq = delivery?.seq;
  if (seq === undefined) return new Note(method, params);
  const stored = delivery?.text;
  const text =
    stored !== undefined && method === "session/update"
      ? stampedUpdateText(sessionId, stored, seq, params)
      : undefined;
  return new Note(method, () => withSeq(params, seq), text);
}

/**
 * Sends an attached client the notifications of one ledger event (`seq`; none for what is not
 * recorded), or holds them while it catches up; false when it already has that event.
 */
export function offer(
  a: Attached,
  batch: Note[],
  seq: number | undefined,
): boolean {
  if (!a.held) return deliver(a, batch, seq);
  a.held.push({ batch, seq });
  return true;
}

// Sends the notifications unless the client already has their sequence number; true when sent.
function deliver(
  a: Attached,
  batch: Note[],
  seq: number | undefined,
  catchUp = false,
): boolean {
  if (seq !== undefined) {
    if (seq <= a.seq) return false;
    a.seq = seq;
  }
  for (const note of batch) a.client.notify(note, catchUp);
  return true;
}

/** The params of a session/update with the hub's sequence number in `_meta.acphub.seq`. */
export function withSeq(params: Params, seq: number): Params {
  const meta = (params["_meta"] as Params | undefined) ?? {};
  const acphub = (meta["acphub"] as Params | undefined) ?? {};
  return { ...params, _meta: { ...meta, acphub: { ...acphub, seq } } };
}

// The prompting editor first, then every other attached editor.
function targetsOf(attachments: Attachments, params: Params): HubClient[] {
  const sessionId = String(params["sessionId"]);
  const owner = attachments.owner(sessionId);
  const others = attachments
    .attached(sessionId)
    .map((a) => a.client)
    .filter(
      (c) => c !== owner && !c.closed && attachments.mayAnswer(sessionId, c),
    );
  return owner && !owner.closed ? [owner, ...others] : others;
}

/** How long a permission question waits for an editor to re-attach when the ones that could
 *  answer it have gone (a reconnecting shim or page), before the policy's refusal. */
export const ANSWER_GRACE_MS = 10_000;

// Asks the prompting editor; if it is gone, races the other attached editors (first answer
// wins, the rest are cancelled). With nobody left to answer, waits up to `graceMs` for an
// editor to attach (the prompting one reconnecting: an answer lost with its link is asked
// again), then refuses (the policy's "ask" fallback).
async function askPermission(
  attachments: Attachments,
  params: Params,
  graceMs: number,
  signal: AbortSignal | undefined,
  answered: (client: HubClient, answer: unknown) => void,
): Promise<unknown> {
  const sessionId = String(params["sessionId"]);
  const deadline = Date.now() + graceMs;
  const owner = attachments.owner(sessionId);
  if (owner && !owner.closed) {
    try {
      const answer = await owner.request(
        "session/request_permission",
        params,
        signal,
      );
      answered(owner, answer);
      return answer;
    } catch (error) {
      if (signal?.aborted || !owner.closed) throw error;
    }
  }
  for (;;) {
    const others = targetsOf(attachments, params);
    if (others.length > 0) {
      try {
        return await firstAnswer(others, params, signal, answered);
      } catch (error) {
        if (signal?.aborted || others.some((c) => !c.closed)) throw error;
        continue; // every one of them left while asked
      }
    }
    const left = deadline - Date.now();
    if (left <= 0 || !(await attachments.nextAttach(sessionId, left, signal))) {
      const options = (params as unknown as RequestPermissionRequest).options;
      return { outcome: outcomeFor("reject", options) };
    }
  }
}

// Sends the request to every client; the first answer wins and the others are cancelled.
async function firstAnswer(
  clients: HubClient[],
  params: Params,
  signal: AbortSignal | undefined,
  answered: (client: HubClient, answer: unknown) => void,
): Promise<unknown> {
  const controllers = clients.map(() => new AbortController());
  const onAbort = () => controllers.forEach((c) => c.abort());
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const [client, answer] = await Promise.any(
      clients.map((c, i) =>
        c
          .request("session/request_permission", params, controllers[i]!.signal)
          .then((a) => [c, a] as const),
      ),
    );
    answered(client, answer);
    return answer;
  } catch (error) {
    const first = (error as AggregateError).errors?.[0] as unknown;
    throw first ?? error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    onAbort();
  }
}
