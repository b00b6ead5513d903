// `acphub nodes list`: the `acphub serve` nodes sharing this PostgreSQL ledger, how long ago
// each last beat, and the sessions whose agents each runs.
import { HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { ledgerUrl, openLedger } from "../app/wiring.js";
import { DEFAULT_LEASE_MS } from "../cluster/index.js";
import type { NodeRow } from "../contracts/cluster-store.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";
import { safeText } from "./tty/safe-text.js";

export interface NodesOptions extends GlobalOptions {
  json?: boolean;
}

const out = (text: string) => process.stdout.write(text);

// One line per node; a node silent for longer than the lease is shown as down.
function line(n: NodeRow & { alive: boolean }): string {
  const age = `${(n.heartbeatAgeMs / 1000).toFixed(1)} s ago`;
  const state = n.alive ? "up" : "DOWN";
  return safeText(
    `${n.id.padEnd(24)} ${state.padEnd(5)} ${n.url.padEnd(28)} heartbeat ${age.padStart(10)}  ${n.sessions} sessions (${n.running} running)\n`,
  );
}

export async function nodesList(options: NodesOptions): Promise<ExitCode> {
  try {
    const ctx = cliContext(options);
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
    const nodes = rows.map((n) => ({
      ...n,
      alive: n.heartbeatAgeMs <= leaseMs,
    }));
    if (options.json) out(`${JSON.stringify({ nodes })}\n`);
    else if (nodes.length === 0) out("no nodes\n");
    else for (const n of nodes) out(line(n));
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}
