// The port through which the hub asks whether this process may run a session's agent: with one
// process it always may (no runner given); in a cluster (src/cluster/) a lease decides.
import type { Claim } from "../contracts/cluster-store.js";
import type { QuestionBoard } from "./ask-everywhere.js";

export type { Claim };

export interface SessionRunner {
  /** Takes the lease when free, expired or ours; `turn` also takes an idle one and marks it busy. */
  claim(sessionId: string, turn: boolean): Promise<Claim>;
  /** The turn this node ran ended: the lease stays, no longer busy. */
  turnEnded(sessionId: string): Promise<void>;
  /** Asks the node that runs the session to cancel its turn. */
  relayCancel(sessionId: string): Promise<void>;
  /** A client on this node attached to the session (to follow turns run elsewhere). */
  attached(sessionId: string): void;
  /** Permission questions asked of every node's clients (issue 37); none: this process's only. */
  readonly questions?: QuestionBoard;
}
