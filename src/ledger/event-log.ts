// The event side every ledger shares, over its engine's few storage calls: group commit of
// masked JSON text, reading stored text back (damaged rows skipped), parsing, compaction plans,
// and followers told of each committed batch.
import type {
  AppendSink,
  ReplayPart,
  LedgerBatchReport,
  LedgerPort,
  LedgerEvent,
  LedgerEventKind,
  PageOptions,
  ReadOptions,
  StoredEvent,
} from "../engine/ledger-port.js";
import { parseEvents } from "../engine/stored-events.js";
import { errorMessage } from "../shared/errors.js";
import type { Logger } from "../shared/logger.js";
import {
  planCompaction,
  plannerRows,
  planUpdates,
  storedRunText,
  type MergedRun,
} from "./compaction.js";
import { Followers } from "./followers.js";
import {
  GroupCommit,
  settle,
  type BatchBounds,
  type PendingEvent,
} from "./group-commit.js";
import { toStored } from "./row-checks.js";
import { eachChunk, readStored } from "./run-cut.js";

/** What a storage engine does for the event log. */
export interface EventStore {
  /** Writes a batch in one transaction; the seq of each event (undefined: no such session). */
  writeBatch(
    batch: PendingEvent[],
  ): Promise<(number | undefined)[]> | (number | undefined)[];
  /** Rows [seq, kind, text, at] of a session in order, after/up to the given seqs. */
  readRows(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]>;
  /**
   * At most `limit` rows [seq, kind, text, at] with afterSeq < seq < beforeSeq, the first or
   * (`newest`) the last of them, in that order (newest first when `newest`).
   */
  readPageRows(
    sessionId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
    newest: boolean,
  ): Promise<unknown[][]>;
  /**
   * Optional: a session's rows for a replay, grouped: [seq, kind, text, at, frames], one row per
   * stored event that is not a plain update (its columns null for a leading group) followed by
   * `frames`, the plain updates after it made into frames by the store (`head` + the stored
   * text after its `{` + `}` + newline, in seq order; null when none). A plain update is a
   * `update` row whose text is a JSON object's (braces at its ends), not `{}`, with no chunk list.
   */
  readReplayRows?(sessionId: string, head: string): Promise<unknown[][]>;
  /**
   * Optional: the `update` rows [seq, text] of a session after/up to the given seqs, in order,
   * nothing else read (compaction needs no other kind: the gap in seqs they leave ends a run).
   */
  readUpdateRows?(
    sessionId: string,
    afterSeq: number,
    uptoSeq: number,
  ): Promise<unknown[][]>;
  /** Applies merged runs (their text already masked) in one transaction. */
  applyRuns(sessionId: string, runs: MergedRun[]): Promise<void>;
  /** True when applyRuns also settles a finished turn's rows (SQLite moves them out of its
   * journal): it is called with no run too. */
  readonly settlesTurns?: boolean;
}

export type EventMethods = Pick<
  LedgerPort,
  "append" | "read" | "readPage" | "events" | "compact" | "follow"
> &
  Required<Pick<LedgerPort, "readReplay" | "appendTo" | "afterAppends">>;

export class EventLog {
  readonly followers: Followers;
  private readonly writer: GroupCommit;

  constructor(
    private readonly store: EventStore,
    private readonly logger: Logger,
    readonly mask: (text: string) => string,
    batch?: BatchBounds,
    private readonly onBatch?: (report: LedgerBatchReport) => void,
  ) {
    this.followers = new Followers(logger);
    this.writer = new GroupCommit((events) => this.commit(events), batch);
  }

  // One batch: written, each append settled, then the followers told.
  private async commit(batch: PendingEvent[]): Promise<void> {
    const startedAt = Date.now();
    let seqs;
    try {
      seqs = await this.store.writeBatch(batch);
    } catch (error) {
      this.report(batch, startedAt, errorMessage(error));
      throw error;
    }
    this.report(batch, startedAt);
    for (const [id, seq] of settle(batch, seqs)) this.followers.emit(id, seq);
  }

  // Tells the batch's observer (tracing) what was written and how long it took.
  private report(batch: PendingEvent[], startedAt: number, error?: string) {
    if (!this.onBatch) return;
    this.onBatch({
      sessionIds: [...new Set(batch.map((e) => e.sessionId))],
      events: batch.length,
      bytes: batch.reduce((n, e) => n + e.bytes, 0),
      startedAt,
      endedAt: Date.now(),
      ...(error === undefined ? {} : { error }),
    });
  }

  append(
    sessionId: string,
    kind: LedgerEventKind,
    payload: string | Record<string, unknown>,
  ): Promise<number> {
    const text =
      typeof payload === "string" ? payload : JSON.stringify(payload);
    return this.writer.add(sessionId, kind, this.mask(text));
  }

  appendTo(
    sessionId: string,
    kind: LedgerEventKind,
    text: string,
    sink: AppendSink,
  ): void {
    this.writer.addTo(sessionId, kind, this.mask(text), sink);
  }

  afterAppends(then: () => void): void {
    this.writer.afterQueued(then);
  }

  async read(
    sessionId: string,
    options: ReadOptions = {},
  ): Promise<StoredEvent[]> {
    const rows = await this.store.readRows(
      sessionId,
      options.afterSeq ?? 0,
      options.uptoSeq ?? Number.MAX_SAFE_INTEGER,
    );
    return this.checked(
      sessionId,
      rows,
      options.afterSeq ?? 0,
      options.eachChunk,
    );
  }

  // Rows checked (damaged ones skipped and logged), merged runs cut at the cursor `after` (or
  // given as their chunks after it: `each`).
  private checked(
    sessionId: string,
    rows: unknown[][],
    after: number,
    each = false,
  ): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (const [seq, kind, text, at] of rows) {
      const stored = toStored(seq, kind, text, at);
      if (!stored) this.damaged(sessionId, seq);
      else if (stored.kind !== "update") out.push(stored);
      else {
        const chunks = each
          ? eachChunk(stored.text, stored.seq, after)
          : undefined;
        if (chunks)
          for (const [chunkSeq, chunk] of chunks)
            out.push({ ...stored, seq: chunkSeq, text: chunk });
        else {
          stored.text = readStored(stored.text, stored.seq, after);
          out.push(stored);
        }
      }
    }
    return out;
  }

  // A replay with the plain updates' frames made by the store (no row of them reaches
  // JavaScript); the events a store that cannot do that gives as `read` does.
  async readReplay(sessionId: string, head: string): Promise<ReplayPart[]> {
    if (!this.store.readReplayRows) return this.read(sessionId);
    const rows = await this.store.readReplayRows(sessionId, head);
    const out: ReplayPart[] = [];
    for (const [seq, kind, text, at, frames] of rows) {
      if (seq !== null && seq !== undefined)
        out.push(...this.checked(sessionId, [[seq, kind, text, at]], 0));
      if (typeof frames === "string" && frames) out.push(frames);
    }
    return out;
  }

  async readPage(
    sessionId: string,
    options: PageOptions,
  ): Promise<StoredEvent[]> {
    const newest = options.from === "newest";
    const rows = await this.store.readPageRows(
      sessionId,
      options.afterSeq ?? 0,
      options.beforeSeq ?? Number.MAX_SAFE_INTEGER,
      Math.max(1, Math.floor(options.limit)),
      newest,
    );
    const events = this.checked(sessionId, rows, options.afterSeq ?? 0);
    const page = withinBytes(events, options.maxBytes ?? Infinity);
    return newest ? page.reverse() : page;
  }

  async events(
    sessionId: string,
    options?: ReadOptions,
  ): Promise<LedgerEvent[]> {
    return parseEvents(await this.read(sessionId, options), (seq) =>
      this.damaged(sessionId, seq),
    );
  }

  private damaged(sessionId: string, seq: unknown): void {
    this.logger.warn({ sessionId, seq }, "ledger: damaged event row skipped");
  }

  async compact(
    sessionId: string,
    afterSeq: number,
    uptoSeq?: number,
  ): Promise<void> {
    await this.writer.drain();
    const upto = uptoSeq ?? Number.MAX_SAFE_INTEGER;
    const runs = this.store.readUpdateRows
      ? planUpdates(
          plannerRows(
            await this.store.readUpdateRows(sessionId, afterSeq, upto),
          ),
          afterSeq,
        )
      : planCompaction(await this.read(sessionId, { afterSeq, uptoSeq }));
    if (runs.length === 0 && !this.store.settlesTurns) return;
    await this.store.applyRuns(
      sessionId,
      runs.map((run) => ({ ...run, text: storedRunText(run, this.mask) })),
    );
  }

  follow(sessionId: string, listener: (lastSeq: number) => void): () => void {
    return this.followers.add(sessionId, listener);
  }

  /** The port's event methods, bound to this log, for a ledger to expose as its own. */
  methods(): EventMethods {
    return {
      append: this.append.bind(this),
      appendTo: this.appendTo.bind(this),
      afterAppends: this.afterAppends.bind(this),
      read: this.read.bind(this),
      readPage: this.readPage.bind(this),
      readReplay: this.readReplay.bind(this),
      events: this.events.bind(this),
      compact: this.compact.bind(this),
      follow: this.follow.bind(this),
    };
  }

  /** Resolves when every append made so far is committed (or failed). */
  drain(): Promise<void> {
    return this.writer.drain();
  }
}

// The leading events whose stored text fits in `maxBytes` (the first one always).
function withinBytes(events: StoredEvent[], maxBytes: number): StoredEvent[] {
  let bytes = 0;
  for (let i = 0; i < events.length; i++) {
    bytes += Buffer.byteLength(events[i]!.text);
    if (bytes > maxBytes && i > 0) return events.slice(0, i);
  }
  return events;
}
