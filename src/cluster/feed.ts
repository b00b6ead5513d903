// Updates of turns that other nodes run, for the clients attached here: the ledger's follow
// (LISTEN/NOTIFY, the wake-up) says a session grew; what is after each client's last sequence
// number is read from the ledger (the truth) and offered, so each update arrives once, in
// order, with the seq the runner's own clients saw (a run of chunks the ledger stored merged
// comes as its chunks). A client's cursor skips what it already has.
// Each update's frame is its stored text with the session id and seq spliced in (frames.ts).
import { offer, type Attached } from "../hub/attachments.js";
import { storedNotes } from "../hub/frames.js";
import { openPrompt } from "../hub/interrupted-turns.js";
import type { SessionHub } from "../hub/session-hub.js";
import type { StoredEvent } from "../engine/ports.js";
import { parseObject } from "../engine/stored-events.js";
import type { Logger } from "../shared/logger.js";

/** Reads a `reach` waits through at most (each reads all that is stored by then). */
const MAX_READS_TO_REACH = 20;

export type Follow = (
  sessionId: string,
  listener: (seq: number) => void,
) => () => void;

export class ClusterFeed {
  private readonly followed = new Map<string, () => void>();
  /** Sessions being read now (until when), and those told again meanwhile. */
  private readonly reading = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** The last seq offered to each session's clients here. */
  private readonly offered = new Map<string, number>();
  /** Up to where each session was read (its clients here have everything up to it). */
  private readonly readTo = new Map<string, number>();
  /** Sessions whose last read failed: read again at the next heartbeat. */
  private readonly failed = new Set<string>();

  constructor(
    private readonly hub: SessionHub,
    private readonly follow: Follow,
    private readonly runsHere: (sessionId: string) => boolean,
    private readonly logger: Logger,
    /** A turn another node ran ended: what it asked that was shown here before the read
     *  began (performance.now()) is over (questions.ts). */
    private readonly turnEnded: (sessionId: string, before: number) => void,
    /** The last stored seq of each of these sessions, in one query (ClusterStore). */
    private readonly lastSeqs: (ids: string[]) => Promise<Map<string, number>>,
  ) {}

  // Starts following a session a client here attached to (once).
  attached(sessionId: string): void {
    if (this.followed.has(sessionId)) return;
    this.followed.set(
      sessionId,
      this.follow(sessionId, () => void this.pump(sessionId)),
    );
    void this.pump(sessionId);
    void this.learnTurn(sessionId);
  }

  // A turn another node runs began before a client here attached (the feed reads only what
  // follows the client's cursor): the ledger's open prompt says so, and the watch is told —
  // unless the feed already offered an event after what was read (its end, then, was heard).
  private async learnTurn(sessionId: string): Promise<void> {
    if (this.runsHere(sessionId)) return;
    try {
      const last = await this.hub.ledger.readPage(sessionId, {
        from: "newest",
        limit: 1,
      });
      const open = await openPrompt(this.hub.ledger, sessionId);
      const upTo = last.at(-1)?.seq ?? 0;
      if (open === undefined || this.runsHere(sessionId)) return;
      if ((this.offered.get(sessionId) ?? 0) > upTo) return;
      if (!this.hub.watch.isRunning(sessionId))
        this.hub.watch.started(sessionId);
    } catch (error) {
      this.logger.warn({ err: error, sessionId }, "cluster: turn not read");
    }
  }

  /**
   * The heartbeat's catch-up: the followed sessions stored past what was read here (a lost
   * notification, a read that failed) are read again, found in one query for all; those no
   * client here attaches to any more are let go.
   */
  async tick(): Promise<void> {
    const ids = [...this.followed.keys()];
    // A turn running elsewhere whose node stopped answering is taken over at its lease's end.
    for (const id of ids)
      if (this.hub.watch.isRunning(id) && !this.runsHere(id))
        void this.hub.checkRunner(id).catch(() => undefined);
    if (ids.length === 0) return;
    const last = await this.lastSeqs(ids).catch((error: unknown) => {
      this.logger.warn({ err: error }, "cluster: sessions' growth not read");
      return undefined;
    });
    for (const id of ids) {
      const behind =
        last === undefined ||
        (last.get(id) ?? 0) > (this.readTo.get(id) ?? 0) ||
        this.failed.has(id) ||
        this.clientsOf(id).length === 0;
      if (behind) void this.pump(id);
    }
  }

  /**
   * Resolves once the session's clients here were offered every update up to `seq` (a request
   * another node answered: its client sees the turn's updates before the answer).
   */
  async reach(sessionId: string, seq: number): Promise<void> {
    this.attached(sessionId);
    for (let read = 0; read < MAX_READS_TO_REACH; read++) {
      const clients = this.clientsOf(sessionId);
      if (clients.every((a) => a.seq >= seq)) return;
      if ((this.offered.get(sessionId) ?? 0) >= seq) return;
      const under = this.reading.get(sessionId);
      await (under ?? this.pump(sessionId));
    }
  }

  private clientsOf(sessionId: string): Attached[] {
    return this.hub.attachments
      .attached(sessionId)
      .filter((a) => !a.client.closed);
  }

  // Reads what the session's clients here lack and offers it; one read at a time per session.
  private pump(sessionId: string): Promise<void> {
    const clients = this.clientsOf(sessionId);
    if (clients.length === 0) {
      this.followed.get(sessionId)?.();
      this.followed.delete(sessionId);
      this.offered.delete(sessionId);
      this.readTo.delete(sessionId);
      this.failed.delete(sessionId);
      if (!this.runsHere(sessionId)) this.hub.watch.unknown(sessionId);
      return Promise.resolve();
    }
    if (this.reading.has(sessionId)) {
      this.again.add(sessionId);
      return Promise.resolve();
    }
    const read = this.read(sessionId, clients);
    this.reading.set(sessionId, read);
    return read;
  }

  private async read(sessionId: string, clients: Attached[]): Promise<void> {
    const began = performance.now();
    try {
      const after = Math.min(...clients.map((a) => a.seq));
      const stored = await this.hub.ledger.read(sessionId, {
        afterSeq: after,
        eachChunk: true,
      });
      this.offerAll(sessionId, stored, clients, began);
      const to = Math.max(after, stored.at(-1)?.seq ?? 0);
      this.readTo.set(sessionId, Math.max(this.readTo.get(sessionId) ?? 0, to));
      this.failed.delete(sessionId);
    } catch (error) {
      this.failed.add(sessionId);
      this.logger.warn({ err: error, sessionId }, "cluster: follow failed");
    } finally {
      this.reading.delete(sessionId);
      if (this.again.delete(sessionId)) void this.pump(sessionId);
    }
  }

  // Offers each event's notes to the clients (each skips what it has); for a session another
  // node runs, tells the watch of its turns starting and ending. A turn's end read with no
  // prompt after it ends what the session asked here before the read `began`; one a prompt
  // follows does not: the next turn's questions may be shown here already (the open rows end
  // the last turn's at the next heartbeat).
  private offerAll(
    sessionId: string,
    stored: StoredEvent[],
    clients: Attached[],
    began: number,
  ): void {
    const remote = !this.runsHere(sessionId);
    const last = lastTurnEvent(stored);
    for (const event of stored) {
      const notes = storedNotes(sessionId, event, clients.length) ?? [];
      if (notes.length > 0) for (const a of clients) offer(a, notes, event.seq);
      // Read again (from the clients' cursors, which a turn's start and end do not move), an
      // event told the watch once already is not told again.
      const before = this.offered.get(sessionId) ?? 0;
      this.offered.set(sessionId, Math.max(before, event.seq));
      if (!remote || event.seq <= before) continue;
      if (event.kind === "prompt")
        this.hub.watch.started(sessionId, authorOf(event.text));
      if (event.kind === "turn_end") {
        if (event === last) this.turnEnded(sessionId, began);
        this.hub.watch.ended(sessionId, parseObject(event.text) ?? {});
      }
    }
  }
}

// The last prompt or turn end of a read, if any.
function lastTurnEvent(stored: StoredEvent[]): StoredEvent | undefined {
  for (let i = stored.length - 1; i >= 0; i--)
    if (stored[i]!.kind === "prompt" || stored[i]!.kind === "turn_end")
      return stored[i];
  return undefined;
}

// The hub user who sent a stored prompt, if one did.
function authorOf(text: string): string | undefined {
  const author = parseObject(text)?.["author"];
  return typeof author === "string" && author ? author : undefined;
}
