// A cluster of `acphub serve` processes on one PostgreSQL ledger (docs/deploy.md): the node
// (leases, heartbeat) as the hub's runner, and the feed of other nodes' turns, wired together.
import type { SessionHub } from "../hub/session-hub.js";
import type { Logger } from "../shared/logger.js";
import { ClusterFeed, type Follow } from "./feed.js";
import { ClusterNode, type ClusterOptions } from "./node.js";

export { ClusterNode, DEFAULT_DRAIN_MS, DEFAULT_LEASE_MS } from "./node.js";
export { readNodes, type NodeRow } from "./leases.js";

/** A ledger that can follow sessions other processes write (the PostgreSQL ledger). */
export interface FollowableLedger {
  follow: Follow;
}

// The node, before the hub exists: the hub takes it as its runner.
export function createClusterNode(options: ClusterOptions): ClusterNode {
  return new ClusterNode(options);
}

// Connects the node to the hub once both exist.
export function joinHub(
  node: ClusterNode,
  hub: SessionHub,
  ledger: FollowableLedger,
  logger: Logger,
): void {
  const feed = new ClusterFeed(
    hub,
    ledger.follow.bind(ledger),
    (id) => node.runs(id),
    logger,
  );
  node.hooks = {
    lost: (id) => {
      logger.info(
        { sessionId: id },
        "cluster: this node no longer runs the session",
      );
      void hub.giveUp(id, () => node.runs(id)).catch(() => undefined);
    },
    cancel: (id) => void hub.cancel({ sessionId: id }).catch(() => undefined),
    attached: (id) => feed.attached(id),
    tick: () => feed.tick(),
  };
}
