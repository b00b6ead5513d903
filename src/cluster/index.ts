// A cluster of `acphub serve` processes on one PostgreSQL ledger (docs/deploy.md): the node
// (leases, heartbeat, the feed of other nodes' turns) as the hub's runner, built whole from the
// ledger's cluster store and the hub it serves; the per-user quota counts the nodes share.
import { ClusterNode, type ClusterOptions } from "./node.js";

export { ClusterNode, DEFAULT_DRAIN_MS, DEFAULT_LEASE_MS } from "./node.js";
export { ClusterQuotaCounter } from "./quota-counter.js";

// The node, before the hub exists: the hub takes it as its runner.
export function createClusterNode(options: ClusterOptions): ClusterNode {
  return new ClusterNode(options);
}
export { moveThroughLedger } from "./move.js";
