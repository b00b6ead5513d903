// Group commit: appends that arrive in the same tick (or until a count/byte bound) are written in
// one transaction, and each append is told its seq (its sink; `add`'s promise) only when that
// transaction has committed. Batches commit one after another, so the events of a session keep
// the order of the calls.
import type { AppendSink, LedgerEventKind } from "../engine/ledger-port.js";
import { HubError } from "../shared/errors.js";

export interface PendingEvent {
  sessionId: string;
  kind: LedgerEventKind;
  text: string;
  bytes: number;
  at: number;
  /** Told the event's seq once its batch is committed, or why it was not stored. */
  sink: AppendSink;
}

export interface BatchBounds {
  /** A batch is committed at once when it holds this many events… */
  maxEvents: number;
  /** …or this many bytes of payload. */
  maxBytes: number;
  /**
   * While batches follow each other (a streaming agent), the next one waits until this long after
   * the previous commit, to gather more events per transaction. When idle, a batch is committed on
   * the next tick.
   */
  busyIntervalMs: number;
}

export const DEFAULT_BATCH_BOUNDS: BatchBounds = {
  maxEvents: 2000,
  maxBytes: 4 * 1024 * 1024,
  busyIntervalMs: 2,
};

/** Writes one batch; settles each event itself (`settle`: its sink told its seq, or why not). */
export type CommitBatch = (batch: PendingEvent[]) => Promise<void> | void;

export class GroupCommit {
  private pending: PendingEvent[] = [];
  private pendingBytes = 0;
  private scheduled = false;
  private running: Promise<void> | undefined;
  private lastCommit = 0;
  /** Events queued so far, and events whose batch has been committed (or failed). */
  private added = 0;
  private finished = 0;
  private watchers: { upto: number; then: () => void }[] = [];

  constructor(
    private readonly commit: CommitBatch,
    private readonly bounds: BatchBounds = DEFAULT_BATCH_BOUNDS,
  ) {}

  // Queues one event; its promise settles when the batch holding it is committed.
  add(sessionId: string, kind: LedgerEventKind, text: string): Promise<number> {
    return new Promise<number>((stored, failed) =>
      this.addTo(sessionId, kind, text, { stored, failed }),
    );
  }

  /** Queues one event; `sink` is told when the batch holding it is committed (no promise). */
  addTo(
    sessionId: string,
    kind: LedgerEventKind,
    text: string,
    sink: AppendSink,
  ): void {
    const bytes = Buffer.byteLength(text);
    this.pending.push({ sessionId, kind, text, bytes, at: Date.now(), sink });
    this.added += 1;
    this.pendingBytes += bytes;
    const full =
      this.pending.length >= this.bounds.maxEvents ||
      this.pendingBytes >= this.bounds.maxBytes;
    if (full && !this.running) this.run();
    else if (!this.scheduled && !this.running) this.schedule();
  }

  /** Calls `then` once every event queued so far is committed (or failed): one callback for
   *  many appends (the append histogram times a group of them so). */
  afterQueued(then: () => void): void {
    if (this.finished >= this.added) then();
    else this.watchers.push({ upto: this.added, then });
  }

  // The next tick when idle; shortly after the previous commit while a stream keeps them coming.
  private schedule(): void {
    this.scheduled = true;
    const wait = this.lastCommit + this.bounds.busyIntervalMs - Date.now();
    if (wait > 0) setTimeout(() => this.run(), wait);
    else setImmediate(() => this.run());
  }

  /** Resolves when everything queued so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.running || this.pending.length > 0) {
      if (!this.running) this.run();
      await this.running;
    }
  }

  // Commits what is pending, then the next batch if more arrived meanwhile.
  private run(): void {
    if (this.running) return;
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.running = (async () => {
      try {
        await this.commit(batch);
      } catch (error) {
        for (const event of batch) event.sink.failed(error);
      }
    })().finally(() => {
      this.running = undefined;
      this.finished += batch.length;
      let due = 0;
      while (
        due < this.watchers.length &&
        this.watchers[due]!.upto <= this.finished
      )
        due += 1;
      // One splice for all of them (a shift each moved the rest: hundreds per batch with many
      // sessions streaming).
      for (const watcher of this.watchers.splice(0, due)) watcher.then();
      this.lastCommit = Date.now();
      if (this.pending.length > 0 && !this.scheduled) this.schedule();
    });
  }
}

/** The seq a store gives an event it refused: another cluster node runs the session now. */
export const FENCED = -1;

// The error of an event not stored because its session is another node's now (fencing).
function fencedError(sessionId: string): HubError {
  return new HubError(
    "LEDGER_UNAVAILABLE",
    `ledger: session ${sessionId} is run by another node now (this node's lease lapsed); not stored`,
  );
}

/** After a commit: the last sequence number written per session. */
export type Committed = Map<string, number>;

// Settles each append of a committed batch (undefined seq: its session does not exist; FENCED:
// another node holds its lease).
export function settle(
  batch: PendingEvent[],
  seqs: (number | undefined)[],
): Committed {
  const committed: Committed = new Map();
  batch.forEach((event, index) => {
    const seq = seqs[index];
    if (seq === FENCED) return event.sink.failed(fencedError(event.sessionId));
    if (seq === undefined) {
      event.sink.failed(
        new HubError(
          "SESSION_NOT_FOUND",
          `ledger: no session ${event.sessionId}`,
        ),
      );
      return;
    }
    committed.set(event.sessionId, seq);
    event.sink.stored(seq);
  });
  return committed;
}
