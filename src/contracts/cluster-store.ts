// What a cluster of `acphub serve` processes keeps in its shared ledger (docs/deploy.md): the
// nodes, the lease that says which node runs a session's agent, messages between nodes, and
// the per-user quota counts (quota-store.ts).
// The PostgreSQL ledger implements it (src/ledger/postgres/pg-cluster.ts) over its own pool,
// retry and one LISTEN connection; the cluster (src/cluster/) decides when to claim, take over
// and drain. Times are the database's clock, so that nodes whose clocks differ agree on expiry.

import type { QuotaStore } from "./quota-store.js";

/** What a claim on a session's lease found. */
export type Claim =
  | {
      held: true;
      /** The previous holder died mid-turn: that turn ended with it. */ interrupted: boolean;
      /** The node that held the lease before (when interrupted: the one that ran the turn). */
      ranOn?: string;
    }
  | {
      held: false;
      /** The node that runs the session now. */ holder: string;
      busy: boolean;
    };

/** A node as `acphub nodes list` shows it. */
export interface NodeRow {
  id: string;
  url: string;
  started: number;
  heartbeatAgeMs: number;
  /** Sessions whose lease this node holds (unexpired). */
  sessions: number;
  /** Of them, with a turn running. */
  running: number;
}

/** One claim of a session's lease by a node. */
export interface LeaseClaim {
  sessionId: string;
  nodeId: string;
  leaseMs: number;
  /** For a turn: also takes an idle lease from another live node, and marks it busy. */
  turn: boolean;
  /** Called once the session's row is locked, just before the lease is written. */
  locked?: () => void;
}

export interface ClusterStore {
  /** The per-user counts behind quotas, shared by every node (issue 37). */
  readonly quotas: QuotaStore;
  /** Writes as cluster node `nodeId` from now on: a session another node holds is not written. */
  fenceAs(nodeId: string): void;
  /** The node's row, written when it starts; its leases from before a restart read as lapsed. */
  registerNode(nodeId: string, url: string): Promise<void>;
  /**
   * Renews the node's row and leases (retrying a lost connection for at most `retryMs`); the
   * sessions whose leases it still holds.
   */
  heartbeat(
    nodeId: string,
    leaseMs: number,
    retryMs: number,
  ): Promise<Set<string>>;
  /** Takes a session's lease when free, lapsed or this node's; for a turn also when idle. */
  claimLease(claim: LeaseClaim): Promise<Claim>;
  /**
   * The turn the node ran ended: the lease stays, no longer busy (a lost connection retried for
   * at most `retryMs`).
   */
  leaseIdle(sessionId: string, nodeId: string, retryMs: number): Promise<void>;
  /** The node that holds a session's unexpired lease, if any. */
  holderOf(sessionId: string): Promise<string | undefined>;
  /** The nodes with their heartbeat age and the sessions each runs. */
  listNodes(): Promise<NodeRow[]>;
  /** A node stopping cleanly: its leases go at once (others need not wait), and its row. */
  leave(nodeId: string): Promise<void>;
  /** Sends `payload` to every process listening on `channel` (committed at once). */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * Hears `channel` on the ledger's one LISTEN connection; resolves once it is heard. After that
   * connection was lost and opened again (every channel listened again), `reconnected` is called:
   * what was sent meanwhile is lost, so read what it would have said. Returns the stop function.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    reconnected?: () => void,
  ): Promise<() => void>;
}
