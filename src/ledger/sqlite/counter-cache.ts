// The counters (next seq, event count, bytes) of the sessions this connection writes, kept
// between batches so that a batch does not read its sessions' rows back before writing them. They
// hold while no other connection commits (`PRAGMA data_version`, read inside the batch's write
// transaction, where no other writer can commit) and this connection changes them no other way
// (the ledger clears them on every other write it makes).
import type Database from "better-sqlite3";
import { countersOf, type Counters } from "../counters.js";

export class CounterCache {
  private readonly counters = new Map<string, Counters>();
  private readonly version: Database.Statement;
  private seen: unknown;

  constructor(
    db: Database.Database,
    private readonly select: Database.Statement,
  ) {
    this.version = db.prepare("PRAGMA data_version").pluck();
  }

  /** The counters of a batch's sessions, inside its write transaction; a session with no row
   * (it does not exist) is left out. The caller advances them in place and writes them. */
  forBatch(ids: Iterable<string>): Map<string, Counters> {
    const version = this.version.get();
    if (version !== this.seen) {
      this.counters.clear();
      this.seen = version;
    }
    const out = new Map<string, Counters>();
    for (const id of ids) {
      let c = this.counters.get(id);
      if (!c) {
        const row = this.select.get(id) as Record<string, unknown> | undefined;
        if (!row) continue;
        this.counters.set(id, (c = countersOf(row)));
      }
      out.set(id, c);
    }
    return out;
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
