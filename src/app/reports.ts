// What the read-only reports ask: `acphub usage` (tokens and cost from the ledger) and
// `acphub nodes list` (the serve processes sharing a PostgreSQL ledger).
import { usageReport, type UsageRow } from "../telemetry/usage.js";
import { DEFAULT_LEASE_MS } from "../cluster/index.js";
import type { NodeRow } from "../contracts/cluster-store.js";
import { HubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";
import { ledgerUrl, openLedger } from "./wiring.js";
import { withLedger } from "./sessions.js";

export type { NodeRow, UsageRow };

// Usage summed per agent, session or user, over all time or since a moment.
export function usageRows(
  ctx: AppContext,
  by: "agent" | "session" | "user",
  since: number | undefined,
): Promise<UsageRow[]> {
  return withLedger(ctx, (ledger) =>
    usageReport(ledger, { by, ...(since === undefined ? {} : { since }) }),
  );
}

// The nodes, each marked alive when it beat within the lease.
export async function clusterNodes(
  ctx: AppContext,
): Promise<(NodeRow & { alive: boolean })[]> {
  const usage = new HubError(
    "USAGE",
    "nodes are `acphub serve` processes sharing a PostgreSQL ledger: set ledger.url or ACPHUB_LEDGER_URL",
  );
  if (!/^postgres(ql)?:/.test(ledgerUrl(ctx))) throw usage;
  const ledger = await openLedger(ctx); // brings the schema up to date
  let rows: NodeRow[];
  try {
    if (!ledger.cluster) throw usage;
    rows = await ledger.cluster.listNodes();
  } finally {
    await ledger.close();
  }
  const leaseMs = ctx.config.cluster?.leaseMs ?? DEFAULT_LEASE_MS;
  return rows.map((n) => ({ ...n, alive: n.heartbeatAgeMs <= leaseMs }));
}
