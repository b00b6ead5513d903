// The counters (next seq, event count, bytes) of the sessions this connection writes, kept
// between batches so that a batch does not read its sessions' rows back before writing them. They
// hold while no other connection commits (`PRAGMA data_version`, read inside the batch's write
// transaction, where no other writer can commit) and this connection changes them no other way
// (the ledger clears them on every other write it makes). They are read from the log only with
// the spool folded into it (`beforeRead`, ./spool.ts): the log's rows lack the spooled events.
import type Database from "better-sqlite3";
import { countersOf, type Counters } from "../counters.js";

export class CounterCache {
  private readonly counters = new Map<string, Counters>();
  private readonly version: Database.Statement;
  private seen: unknown;
  /** Called inside the batch's transaction before counters are read from the log (`changed`:
   * another connection committed since they were last read). */
  beforeRead: (changed: boolean) => void = () => {};

  constructor(
    db: Database.Database,
    private readonly select: Database.Statement,
  ) {
    this.version = db.prepare("PRAGMA data_version").pluck();
  }

  /** The counters of a batch's sessions (of its events), inside its write transaction; a
   * session with no row (it does not exist) is left out. The caller advances them in place and
   * writes them. */
  forBatch(events: readonly { sessionId: string }[]): Map<string, Counters> {
    let folded = this.current() === undefined;
    if (folded) this.beforeRead(true);
    const out = new Map<string, Counters>();
    let absent: Set<string> | undefined;
    for (const { sessionId: id } of events) {
      if (out.has(id) || absent?.has(id)) continue;
      let c = this.counters.get(id);
      if (!c) {
        if (!folded) this.beforeRead(false);
        folded = true;
        const row = this.select.get(id) as Record<string, unknown> | undefined;
        if (!row) {
          (absent ??= new Set()).add(id);
          continue;
        }
        this.counters.set(id, (c = countersOf(row)));
      }
      out.set(id, c);
    }
    return out;
  }

  /** The counters held, inside a write transaction; undefined (and none held any more) when
   * another connection committed since they were read. */
  current(): Map<string, Counters> | undefined {
    const version = this.version.get();
    if (version === this.seen) return this.counters;
    this.counters.clear();
    this.seen = version;
    return undefined;
  }

  /** Forgets one session's counters: after a write that changed only that session's (its
   * turn's compaction), so that the other sessions' are not read again. */
  forget(id: string): void {
    this.counters.delete(id);
  }

  /** Forgets every session's counters: after any other write (or a failed batch). */
  clear(): void {
    this.counters.clear();
  }
}
