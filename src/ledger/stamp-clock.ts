// When a streaming session's `updated_at` goes with a batch, on both ledgers (issue 39): at most
// once per STAMP_MS per session (the time is in the session list's two indexes; writing it every
// batch moved two index entries per session per batch). What each ledger does with a time not
// due — kept and written later by a timer and on close — is its own (sqlite/updated-at.ts,
// postgres/pg-updated-at.ts). The times written are remembered per session; once many sessions
// streamed, those not written for STAMP_MS are forgotten (their next time is written anyway), so
// a long-lived hub keeps no entry for every session it ever streamed.

/** How far behind a streaming session's `updated_at` may lag. */
export const STAMP_MS = 1000;

/** Past this many sessions remembered, those not written for STAMP_MS are forgotten. */
export const WRITTEN_KEPT = 256;

export class StampClock {
  /** The time last written per session. */
  private readonly written = new Map<string, number>();
  /** The size of `written` that has it pruned (doubles when most are recent: a rare pass). */
  private pruneAt = WRITTEN_KEPT;

  /** True when a batch at `at` writes the session's time now (remembered as written). */
  due(id: string, at: number): boolean {
    const last = this.written.get(id);
    if (last !== undefined && at - last < STAMP_MS) return false;
    if (this.written.size >= this.pruneAt) this.prune(at);
    this.written.set(id, at);
    return true;
  }

  /** A deferred time was written (the remembered one never moves back). */
  wrote(id: string, at: number): void {
    if ((this.written.get(id) ?? -Infinity) < at) this.written.set(id, at);
  }

  /** Forgets every time written (a failed batch rolled them back): the next batch writes. */
  forget(): void {
    this.written.clear();
  }

  /** How many sessions are remembered (for tests). */
  get remembered(): number {
    return this.written.size;
  }

  private prune(now: number): void {
    for (const [id, at] of this.written)
      if (now - at >= STAMP_MS) this.written.delete(id);
    this.pruneAt = Math.max(WRITTEN_KEPT, this.written.size * 2);
  }
}
