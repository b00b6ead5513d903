// Whether the node holding a session's lease stopped answering (issue 38): a node killed keeps
// its lease until it lapses, and until then the other nodes could only say "wait for it to end"
// of a turn that will never end. Its heartbeat's age says it stopped; the lease lapses one lease
// after the last heartbeat renewed it — then another node takes the session over.
import type { ClusterStore } from "../contracts/cluster-store.js";
import type { StalledRunner } from "../hub/runner.js";

/** Heartbeats a node may miss before it is said to have stopped answering. */
const MISSED_BEATS = 2;

// The node that holds the session's lease if it stopped answering, and when its lease lapses.
export async function stalledHolder(
  store: ClusterStore,
  sessionId: string,
  me: string,
  timing: { leaseMs: number; heartbeatMs: number },
): Promise<StalledRunner | undefined> {
  const holder = await store.holderOf(sessionId);
  if (!holder || holder === me) return undefined;
  const row = (await store.listNodes()).find((n) => n.id === holder);
  // A holder without a row left, or was never seen beating: its lease lapses within one lease.
  const age = row ? row.heartbeatAgeMs : 0;
  if (row && age < MISSED_BEATS * timing.heartbeatMs) return undefined;
  const now = Date.now();
  return {
    node: holder,
    silentMs: age,
    takeoverAt: Math.max(now, now - age + timing.leaseMs),
  };
}
