// `acphub nodes list`: the `acphub serve` nodes sharing this PostgreSQL ledger, how long ago
// each last beat, and the sessions whose agents each runs.
import { clusterNodes, type NodeRow } from "../app/reports.js";
import { moveSession, type MoveOptions } from "../app/hub-sessions.js";
import type { ExitCode } from "./exit-codes.js";
import { out, withContext, type JsonOptions } from "./guard.js";
import { safeText } from "./tty/safe-text.js";

// One line per node; a node silent for longer than the lease is shown as down, a stopping one
// as draining.
function line(n: NodeRow & { alive: boolean }): string {
  const age = `${(n.heartbeatAgeMs / 1000).toFixed(1)} s ago`;
  const state = !n.alive ? "DOWN" : n.draining ? "drain" : "up";
  return safeText(
    `${n.id.padEnd(24)} ${state.padEnd(5)} ${n.url.padEnd(28)} heartbeat ${age.padStart(10)}  ${n.sessions} sessions (${n.running} running)\n`,
  );
}

export function nodesList(options: JsonOptions): Promise<ExitCode> {
  return withContext(options, async (ctx) => {
    const nodes = await clusterNodes(ctx);
    if (options.json) out(`${JSON.stringify({ nodes })}\n`);
    else if (nodes.length === 0) out("no nodes\n");
    else for (const n of nodes) out(line(n));
  });
}
// `sessions move ID --to NODE`: the session's agent to another node.
export const sessionsMove = (id: string, o: MoveOptions & JsonOptions) =>
  withContext(o, async (ctx) => {
    const m = await moveSession(ctx, id, o);
    out(safeText(o.json ? JSON.stringify(m) : `moved to ${m.node}`) + "\n");
  });
