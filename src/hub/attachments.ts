// The editors attached to each hub session: who is attached, whose prompt runs in each, and
// what each was last sent (fan-out.ts sends through this).
import type { HubUser } from "../contracts/users.js";
import type { Note } from "./frames.js";

type Params = Record<string, unknown>;
/** The notifications of one ledger event: one note (a relayed update), or several. */
type Notes = Note | readonly Note[];

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
  /** A request another node carried here (issue 37): checked and audited there, never attached. */
  readonly routed?: boolean;
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
  held?: { notes: Notes; seq?: number }[];
}

const NONE: readonly Attached[] = [];

/** Who is attached to which session, and whose prompt runs in each. */
export class Attachments {
  private readonly bySession = new Map<string, Map<string, Attached>>();
  /** The sessions each client is attached to (a disconnect walks its own, not every one). */
  private readonly byClient = new Map<string, Set<string>>();
  private readonly owners = new Map<string, HubClient>();
  private readonly clients = new Map<string, HubClient>();
  /** "session\0client" of the clients that may only watch that session (issue 22). */
  private readonly watchOnly = new Set<string>();
  /** Called at the next attach to each session (askPermission's reconnect grace). */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** How many of a user's clients are attached to a session, by "user\0session". */
  private readonly byUser = new Map<string, number>();
  /** Told when a user's connections here first have a session open, and when no longer
   *  (the live-sessions quota counts it: hub/quotas.ts). */
  onOpenChange?: (user: HubUser, sessionId: string, open: boolean) => void;

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
    if (!prior) this.countUser(client, sessionId, 1);
    map.set(client.id, {
      client,
      seq: Math.max(seq, prior?.seq ?? 0),
      ...(hold ? { held: prior?.held ?? [] } : {}),
    });
    let mine = this.byClient.get(client.id);
    if (!mine) this.byClient.set(client.id, (mine = new Set()));
    mine.add(sessionId);
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
    for (const item of held) deliver(attached, item.notes, item.seq, true);
  }

  isAttached(sessionId: string, client: HubClient): boolean {
    return this.bySession.get(sessionId)?.has(client.id) === true;
  }

  // Drops a client from one session (close), or from all of them (disconnect).
  detach(client: HubClient, sessionId?: string): void {
    const mine = this.byClient.get(client.id);
    const ids = sessionId ? [sessionId] : [...(mine ?? [])];
    for (const id of ids) {
      const map = this.bySession.get(id);
      if (map?.delete(client.id)) this.countUser(client, id, -1);
      if (map?.size === 0) this.bySession.delete(id);
      if (this.owners.get(id) === client) this.owners.delete(id);
      this.watchOnly.delete(`${id}\0${client.id}`);
      mine?.delete(id);
    }
    if (mine?.size === 0 || !sessionId) this.byClient.delete(client.id);
    if (!sessionId) this.clients.delete(client.id);
  }

  forgetSession(sessionId: string): void {
    for (const [clientId, a] of this.bySession.get(sessionId) ?? []) {
      this.countUser(a.client, sessionId, -1);
      this.byClient.get(clientId)?.delete(sessionId);
      this.watchOnly.delete(`${sessionId}\0${clientId}`);
    }
    this.bySession.delete(sessionId);
    this.owners.delete(sessionId);
  }

  // One client of a user more (1) or fewer (-1) on a session: told when it is the first or last.
  private countUser(client: HubClient, sessionId: string, delta: 1 | -1) {
    const user = client.user;
    if (!user) return;
    const key = `${user.name}\0${sessionId}`;
    const n = (this.byUser.get(key) ?? 0) + delta;
    if (n > 0) this.byUser.set(key, n);
    else this.byUser.delete(key);
    if ((delta === 1 && n === 1) || (delta === -1 && n === 0))
      this.onOpenChange?.(user, sessionId, delta === 1);
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
    return [...this.eachAttached(sessionId)];
  }

  /** Whether a client that has not closed is attached to a session (the hub follows it). */
  followed(sessionId: string): boolean {
    for (const a of this.eachAttached(sessionId))
      if (!a.client.closed) return true;
    return false;
  }

  /** How many clients are attached to a session. */
  countAttached(sessionId: string): number {
    return this.bySession.get(sessionId)?.size ?? 0;
  }

  /** The clients attached to a session, without a copy (the relay's per-update path). */
  eachAttached(sessionId: string): Iterable<Attached> {
    return this.bySession.get(sessionId)?.values() ?? NONE;
  }

  get sessionCount(): number {
    return this.bySession.size;
  }

  get allClients(): HubClient[] {
    return [...this.clients.values()];
  }
}

/**
 * Sends an attached client the notifications of one ledger event (`seq`; none for what is not
 * recorded), or holds them while it catches up; false when it already has that event.
 */
export function offer(
  a: Attached,
  notes: Notes,
  seq: number | undefined,
): boolean {
  if (!a.held) return deliver(a, notes, seq);
  a.held.push({ notes, seq });
  return true;
}

// Sends the notifications unless the client already has their sequence number; true when sent.
function deliver(
  a: Attached,
  notes: Notes,
  seq: number | undefined,
  catchUp = false,
): boolean {
  if (seq !== undefined) {
    if (seq <= a.seq) return false;
    a.seq = seq;
  }
  if (!Array.isArray(notes)) a.client.notify(notes as Note, catchUp);
  else for (const note of notes as Note[]) a.client.notify(note, catchUp);
  return true;
}
