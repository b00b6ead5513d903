// The last output of released terminals, kept (bounded in count and size) so a hub client can
// still show what a finished command printed after the agent released it.

/** What a client may read of a terminal: as terminal/output answers, plus `released`. */
export interface TerminalSnapshot {
  output: string;
  truncated: boolean;
  exitStatus?: { exitCode: number | null; signal: string | null };
  released?: true;
}

/** Released terminals kept, oldest dropped first. */
export const ARCHIVED_TERMINALS = 64;
/** Characters of output kept per released terminal (its tail). */
export const ARCHIVED_OUTPUT_CHARS = 64 * 1024;

export class TerminalArchive {
  private readonly kept = new Map<
    string,
    { sessionId: string; snapshot: TerminalSnapshot }
  >();

  // Keeps a released terminal's last output (the tail, when over the cap).
  keep(id: string, sessionId: string, s: TerminalSnapshot): void {
    const cut = s.output.length > ARCHIVED_OUTPUT_CHARS;
    const snapshot: TerminalSnapshot = {
      ...s,
      output: cut ? s.output.slice(-ARCHIVED_OUTPUT_CHARS) : s.output,
      truncated: s.truncated || cut,
      released: true,
    };
    this.kept.delete(id);
    this.kept.set(id, { sessionId, snapshot });
    if (this.kept.size > ARCHIVED_TERMINALS)
      this.kept.delete(this.kept.keys().next().value as string);
  }

  // The snapshot of a released terminal of this session, if still kept.
  get(sessionId: string, id: string): TerminalSnapshot | undefined {
    const entry = this.kept.get(id);
    return entry?.sessionId === sessionId ? entry.snapshot : undefined;
  }
}
