// What a cluster of `acphub serve` processes keeps in its shared ledger (docs/deploy.md): the
// nodes, the lease that says which node runs a session's agent, messages between nodes, and
// the per-user quota counts (quota-store.ts) and the permission questions every node may answer.
// The PostgreSQL ledger implements it (src/ledger/postgres/pg-cluster.ts) over its own pool,
// retry and one LISTEN connection; the cluster (src/cluster/) decides when to claim, take over
// and drain. Times are the database's clock, so that nodes whose clocks differ agree on expiry.

import type { QuotaStore } from "./quota-store.js";
import type { WebLoginStore } from "./web-logins.js";

/** The channel on which the ledger tells every node of a changed session grant (issue 38):
 *  `{sessionId, user, role?}` (no role: unshared). */
export const GRANTS_CHANNEL = "acphub_grants";

/** The channel on which the ledger tells every node that a turn began or ended on a node (issue
 *  38; a lease made busy or idle): `{sessionId, node, running}`, for the session lists of nodes
 *  where no client follows the session. */
export const TURNS_CHANNEL = "acphub_turns";

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

/** A turn another node runs, as a session list shows it (issue 38). */
export interface TurnElsewhere {
  node: string;
  /** `waiting`: a permission question of that turn waits for an answer. */
  state: "running" | "waiting";
}

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
  /** The node is stopping: other nodes take its idle sessions. */
  draining: boolean;
}

/** One claim of a session's lease by a node. */
export interface LeaseClaim {
  sessionId: string;
  nodeId: string;
  leaseMs: number;
  /** For a turn: marks the lease busy. (Another live node's lease is taken only when that
   *  node drains and the session is idle there.) */
  turn: boolean;
  /** Called once the session's row is locked, just before the lease is written. */
  locked?: () => void;
}

/** A request for a session carried to the node that runs it (issue 37). */
export interface NodeRequest {
  /** Unique: a request sent again with it is the same request (run once, answered once). */
  op: string;
  sessionId: string;
  from: string;
  to: string;
  /** The ACP method (session/prompt, session/set_mode, …) or acphub's own move. */
  method: string;
  params: Record<string, unknown>;
  /** Who asks (name and role), as the sending node knows the connection's user. */
  caller?: { name: string; role: string };
}

/** What the runner answered: a result or an error as it gave it, and the session's last seq. */
export interface NodeAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  /** The sending node acts on these (try again elsewhere); never shown as they are. */
  reroute?: boolean;
  lastSeq: number;
}

/** A request as the sender finds it while it waits, with the session's live lease holder. */
export interface NodeRequestState {
  state: "pending" | "running" | "done" | "abandoned";
  answer?: NodeAnswer;
  holder?: string;
}

/** What a forced move of a session's lease found (`acphub sessions move`). */
export type LeaseMove =
  { moved: true; from?: string } | { moved: false; holder: string; busy: true };

/** The channel between nodes: requests in a table, their notices by NOTIFY. */
export interface NodeRequestStore {
  /** Writes the request (again: nothing) and tells its node. */
  sendRequest(request: NodeRequest, channel: string): Promise<void>;
  /** The request, pending until now, is this node's to run: marked running; else undefined. */
  takeRequest(
    op: string,
    nodeId: string,
  ): Promise<(NodeRequest & { cancelled: boolean }) | undefined>;
  /** The answer, stored once, and the sender told. */
  answerRequest(op: string, answer: NodeAnswer, channel: string): Promise<void>;
  /** How the request stands, and the session's live lease holder. */
  requestState(op: string): Promise<NodeRequestState | undefined>;
  /** The requests for this node nobody took yet (a notice lost with the LISTEN connection). */
  pendingRequests(nodeId: string): Promise<string[]>;
  /** The sender gave up waiting (the client cancelled): the runner is told. */
  cancelRequest(op: string, channel: string): Promise<void>;
  /** A request nobody took yet will never run (its runner died): true when this call made it so. */
  abandonRequest(op: string): Promise<boolean>;
  /** The sender read the answer: the row goes. */
  forgetRequest(op: string): Promise<void>;
  /** Deletes answered requests older than `answeredMs` and any older than `maxAgeMs`. */
  sweepRequests(answeredMs: number, maxAgeMs: number): Promise<number>;
  /** Gives an idle session's lease to `nodeId` (a live node), whoever held it. */
  moveLease(
    sessionId: string,
    nodeId: string,
    leaseMs: number,
  ): Promise<LeaseMove>;
  /** Marks the node draining: other nodes take its idle sessions rather than route to it. */
  setDraining(nodeId: string): Promise<void>;
}

export interface ClusterStore extends NodeRequestStore {
  /** The per-user counts behind quotas, shared by every node (issue 37). */
  readonly quotas: QuotaStore;
  /** The web page's logins, shared by every node (issue 38). */
  readonly webLogins: WebLoginStore;
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
  /** Takes a session's lease when free, lapsed, this node's, or a draining node's idle one
   *  (for a turn: TURNS_CHANNEL told). */
  claimLease(claim: LeaseClaim): Promise<Claim>;
  /**
   * The turn the node ran ended: the lease stays, no longer busy (a lost connection retried for
   * at most `retryMs`); TURNS_CHANNEL told.
   */
  leaseIdle(sessionId: string, nodeId: string, retryMs: number): Promise<void>;
  /** The node that holds a session's unexpired lease, if any. */
  holderOf(sessionId: string): Promise<string | undefined>;
  /** The nodes with their heartbeat age and the sessions each runs. */
  listNodes(): Promise<NodeRow[]>;
  /** Of these sessions, those with a turn running on another node than `nodeId` (busy lease). */
  turnsElsewhere(
    sessionIds: string[],
    nodeId: string,
  ): Promise<Map<string, TurnElsewhere>>;
  /** The last stored seq of each of these sessions that exists (one query). */
  lastSeqs(sessionIds: string[]): Promise<Map<string, number>>;
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
  /** Permission questions open to every node (issue 37). */
  readonly questions: QuestionStore;
}

/** A permission question another node asked, as a node offering it reads it. */
export interface OpenQuestion {
  id: string;
  sessionId: string;
  /** The node whose agent asked (it runs the turn). */
  node: string;
  /** The session/request_permission params, as JSON text. */
  request: string;
}

/** Who claimed a question first: a user on a node; none when it was withdrawn (or taken). */
export interface QuestionAnswerer {
  user?: string;
  node?: string;
}

/** An answer another node claimed, as the asking node takes it. */
export interface TakenAnswer {
  answer: string;
  user: string;
  node: string;
}

/**
 * Permission questions open to every node (issue 37): the runner node asks (a row), any node
 * claims it with one answer (the first wins), the runner takes that answer (the row goes).
 * Messages about them go over the cluster's NOTIFY channel; these rows are the truth.
 */
export interface QuestionStore {
  ask(q: {
    id: string;
    sessionId: string;
    node: string;
    request: string;
  }): Promise<void>;
  /**
   * Claims the open question for an answer given on `node` by `user`: undefined when this was
   * the first answer (a retried claim that had landed too), else who was first.
   */
  claim(c: {
    id: string;
    answer: string;
    user: string;
    node: string;
  }): Promise<QuestionAnswerer | undefined>;
  /** The answer another node claimed, taken (the row deleted); undefined while unanswered. */
  take(id: string): Promise<TakenAnswer | undefined>;
  /** The open questions of these sessions that other nodes than `node` asked. */
  open(sessionIds: string[], node: string): Promise<OpenQuestion[]>;
  /** This node's questions another node has answered (a notification lost on the way). */
  answered(node: string): Promise<string[]>;
  /** Other nodes ask these questions of their clients for `ms` more (renewed by their heartbeat). */
  hold(ids: string[], ms: number): Promise<void>;
  /** How long another node still holds the question (ms; 0: nobody, or it is gone). */
  heldFor(id: string): Promise<number>;
  /** Deletes questions (ended here) and, with `node`, all that node asked; the ids deleted. */
  withdraw(ids: string[], node?: string): Promise<string[]>;
  /** Deletes the questions of nodes whose heartbeat is older than `staleMs`; the ids deleted. */
  sweep(staleMs: number): Promise<string[]>;
}
