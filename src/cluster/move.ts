// An admin's move of a session's agent to a node of the cluster (`acphub sessions move`, issue
// 37): asked of any node (over `_acphub/sessions/move`) or straight through the ledger by the
// command line; the node named takes the session's lease (refused while a turn runs), restores
// the agent there, and tells the node that ran it to close its session.
import { RequestError } from "@agentclientprotocol/sdk";
import type { ClusterStore } from "../contracts/cluster-store.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import { HubError } from "../shared/errors.js";
import { CHANNEL, sendAndWait, Waiters } from "./node-requests.js";

/** How long a move waits for the node it names (ms): restoring an agent takes a while. */
const MOVE_WAIT_MS = 60_000;

/** A move asked of `node` by `from` (a node, or the command line). */
export interface MoveAsk {
  store: ClusterStore;
  waiters: Waiters;
  from: string;
  leaseMs: number;
  pollMs: number;
}

// Refuses a node that is not live (unknown, or its heartbeat older than the lease).
export async function mustBeLive(
  store: ClusterStore,
  node: string,
  leaseMs: number,
): Promise<void> {
  const live = (await store.listNodes()).filter(
    (n) => n.heartbeatAgeMs < leaseMs,
  );
  if (!live.some((n) => n.id === node))
    throw new HubError(
      "USAGE",
      `no live node named ${JSON.stringify(node)} (live: ${live.map((n) => n.id).join(", ") || "none"})`,
    );
}

/** Asks `node` to take the session and restore its agent; its answer, or its error as given. */
export async function askMove(
  ask: MoveAsk,
  sessionId: string,
  node: string,
): Promise<Record<string, unknown>> {
  await mustBeLive(ask.store, node, ask.leaseMs);
  const outcome = await sendAndWait(
    ask.store,
    ask.waiters,
    ask.from,
    { sessionId, to: node, method: HUB_METHOD.sessionsMove, params: {} },
    new AbortController().signal,
    { pollMs: ask.pollMs, untilMs: MOVE_WAIT_MS },
  );
  if (!("answer" in outcome))
    throw new HubError(
      "CLOSED",
      `node ${node} did not answer the move of session ${sessionId} within ${MOVE_WAIT_MS / 1000} s`,
      { retryable: true },
    );
  const { error, result } = outcome.answer;
  if (error) throw new RequestError(error.code, error.message, error.data);
  return result as Record<string, unknown>;
}

/** A move from outside the cluster (the command line on the ledger): listens for its answer. */
export async function moveThroughLedger(
  store: ClusterStore,
  sessionId: string,
  node: string,
  leaseMs: number,
  from: string,
): Promise<Record<string, unknown>> {
  const waiters = new Waiters();
  const stop = await store.listen(CHANNEL, (payload) => {
    try {
      const notice = JSON.parse(payload) as { to?: string; answer?: string };
      if (notice.to === from && notice.answer) waiters.wake(notice.answer);
    } catch {
      // not a notice of ours
    }
  });
  try {
    return await askMove(
      { store, waiters, from, leaseMs, pollMs: 250 },
      sessionId,
      node,
    );
  } finally {
    stop();
  }
}
