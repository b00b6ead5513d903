// Where a cluster keeps the per-user counts behind quotas (issue 37): holds (turns running,
// sessions opening and open, agent processes) that belong to the node that took them, and the
// prompts of each user's last window. The PostgreSQL ledger implements it
// (src/ledger/postgres/pg-quotas.ts); the cluster's QuotaCounter (src/cluster/quota-counter.ts)
// decides which node and how long a silent node counts. Every check counts in the same step
// (one statement, under a per-user lock), so two nodes never both take the last one.

/** One hold of a user's, asked for by a node. */
export interface QuotaHold {
  user: string;
  /** What is held: "turns", "opening", "agents" (`HeldKind`), or "live" (a session open). */
  kind: string;
  /** Held only when fewer than `max` are (for "opening", with the user's open sessions). */
  max: number;
  nodeId: string;
  /** For "opening": free when the user has it open; for "live": the session open. */
  sessionId?: string;
  /** A node whose heartbeat is older than this (ms) is dead: its holds no longer count. */
  staleMs: number;
}

export interface QuotaStore {
  /** The hold's id (0: free, nothing held), or undefined when `max` are held. */
  hold(hold: QuotaHold): Promise<number | undefined>;
  /** Gives a hold back (its id; 0 does nothing). */
  release(id: number): Promise<void>;
  /** How many of the user's `kind` the live nodes hold. */
  held(user: string, kind: string, staleMs: number): Promise<number>;
  /** Counts a prompt in the user's window: 0, or the ms until one frees up (not counted). */
  take(user: string, max: number, windowMs: number): Promise<number>;
}
