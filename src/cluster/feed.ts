// Updates of turns that other nodes run, for the clients attached here: the ledger's follow
// (LISTEN/NOTIFY, the wake-up) says a session grew; what is after each client's last sequence
// number is read from the ledger (the truth) and offered, so each update arrives once, in
// order, with the seq the runner's own clients saw. A client's cursor skips what it already has.
// Each update's frame is its stored text with the session id and seq spliced in (frames.ts).
import { offer, type Attached } from "../hub/attachments.js";
import { storedNotes } from "../hub/frames.js";
import type { SessionHub } from "../hub/session-hub.js";
import type { StoredEvent } from "../engine/ports.js";
import { parseObject } from "../engine/stored-events.js";
import type { Logger } from "../shared/logger.js";

export type Follow = (
  sessionId: string,
  listener: (seq: number) => void,
) => () => void;

export class ClusterFeed {
  private readonly followed = new Map<string, () => void>();
  /** Sessions being read now, and those told again meanwhile. */
  private readonly reading = new Set<string>();
  private readonly again = new Set<string>();

  constructor(
    private readonly hub: SessionHub,
    private readonly follow: Follow,
    private readonly runsHere: (sessionId: string) => boolean,
    private readonly logger: Logger,
  ) {}

  // Starts following a session a client here attached to (once).
  attached(sessionId: string): void {
    if (this.followed.has(sessionId)) return;
    this.followed.set(
      sessionId,
      this.follow(sessionId, () => void this.pump(sessionId)),
    );
    void this.pump(sessionId);
  }

  /** Reads every followed session again: a notification lost with its connection is caught up. */
  tick(): void {
    for (const id of this.followed.keys()) void this.pump(id);
  }

  // Reads what the session's clients here lack and offers it; one read at a time per session.
  private async pump(sessionId: string): Promise<void> {
    const clients = this.hub.attachments
      .attached(sessionId)
      .filter((a) => !a.client.closed);
    if (clients.length === 0) {
      this.followed.get(sessionId)?.();
      this.followed.delete(sessionId);
      return;
    }
    if (this.reading.has(sessionId)) return void this.again.add(sessionId);
    this.reading.add(sessionId);
    try {
      const after = Math.min(...clients.map((a) => a.seq));
      const stored = await this.hub.ledger.read(sessionId, {
        afterSeq: after,
      });
      this.offerAll(sessionId, stored, clients);
    } catch (error) {
      this.logger.warn({ err: error, sessionId }, "cluster: follow failed");
    } finally {
      this.reading.delete(sessionId);
      if (this.again.delete(sessionId)) void this.pump(sessionId);
    }
  }

  // Offers each event's notes to the clients (each skips what it has); for a session another
  // node runs, tells the watch of its turns starting and ending.
  private offerAll(
    sessionId: string,
    stored: StoredEvent[],
    clients: Attached[],
  ): void {
    const remote = !this.runsHere(sessionId);
    for (const event of stored) {
      const notes = storedNotes(sessionId, event) ?? [];
      if (notes.length > 0) for (const a of clients) offer(a, notes, event.seq);
      if (!remote) continue;
      if (event.kind === "prompt") this.hub.watch.started(sessionId);
      if (event.kind === "turn_end")
        this.hub.watch.ended(sessionId, parseObject(event.text) ?? {});
    }
  }
}
