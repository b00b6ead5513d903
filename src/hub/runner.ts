// The port through which the hub asks whether this process may run a session's agent: with one
// process it always may (no runner given); in a cluster (src/cluster/) a lease decides, and a
// request for a session another live node runs is carried there (issue 37).
import type {
  Claim,
  NodeAnswer,
  TurnElsewhere,
} from "../contracts/cluster-store.js";
import type { HubUser } from "../contracts/users.js";
import type { QuestionBoard } from "./ask-everywhere.js";

export type { Claim };

/** A request for a session to be answered on the node that runs it. */
export interface RouteCall {
  sessionId: string;
  method: string;
  params: Record<string, unknown>;
  user?: HubUser;
}

/** How a carried request ended: its answer (the session's updates up to it offered here
 *  first), the runner no longer runs the session (decide again), or the runner was lost while
 *  it ran the request (the node named). */
export type RouteOutcome =
  { answer: NodeAnswer } | { reroute: true } | { lost: string };

/** The node holding a session's lease stopped answering (its heartbeat is overdue). */
export interface StalledRunner {
  node: string;
  /** How long ago it last renewed its leases (ms). */
  silentMs: number;
  /** When its lease lapses (ms since the epoch, this machine's clock): the session is free then. */
  takeoverAt: number;
}

export interface SessionRunner {
  /** Takes the lease when free, lapsed, ours or a draining node's idle one; `turn` marks it busy. */
  claim(sessionId: string, turn: boolean): Promise<Claim>;
  /** The turn this node ran ended: the lease stays, no longer busy. */
  turnEnded(sessionId: string): Promise<void>;
  /** Asks the node that runs the session to cancel its turn. */
  relayCancel(sessionId: string): Promise<void>;
  /** The node holding the session's lease, if it stopped answering (issue 38). */
  stalled?(sessionId: string): Promise<StalledRunner | undefined>;
  /** Of these sessions, those whose turn another node runs (a session list; issue 38). */
  turnsElsewhere?(sessionIds: string[]): Promise<Map<string, TurnElsewhere>>;
  /** A client on this node attached to the session (to follow turns run elsewhere). */
  attached(sessionId: string): void;
  /** Permission questions asked of every node's clients (issue 37); none: this process's only. */
  readonly questions?: QuestionBoard;
  /** Carries a request to the live node that runs the session; the signal cancels it there. */
  route(
    node: string,
    call: RouteCall,
    signal: AbortSignal,
  ): Promise<RouteOutcome>;
  /** Moves an idle session's agent to a live node (an admin's `sessions move`). */
  move(sessionId: string, node: string): Promise<Record<string, unknown>>;
}
