// `acphub permissions list|forget`: the remembered always-allow / always-reject decisions, each
// its user's (the operator's is "admin"); `--user NAME` narrows either to one user's.
import { forgetDecisions, rememberedDecisions } from "../app/decisions.js";
import type { ExitCode } from "./exit-codes.js";
import { out, outList, withContext, type JsonOptions } from "./guard.js";
import { safeText } from "./tty/safe-text.js";

type PermissionsOptions = JsonOptions & { all?: boolean; user?: string };

export function permissionsList(o: PermissionsOptions): Promise<ExitCode> {
  return withContext(o, (ctx) => {
    const decisions = rememberedDecisions(ctx, o.user);
    // The subject is the agent's command or title: shown inert.
    outList(
      o.json,
      decisions,
      "no remembered decisions\n",
      (d) =>
        `${d.id}  ${safeText(d.user).padEnd(8)} ${d.decision.padEnd(6)} ${d.kind.padEnd(8)} ${JSON.stringify(d.subject)}  in ${d.workspace}\n`,
    );
  });
}

export function permissionsForget(
  id: string | undefined,
  o: PermissionsOptions,
): Promise<ExitCode> {
  return withContext(o, (ctx) => {
    const removed = forgetDecisions(ctx, { ...o, id });
    if (o.json) out(JSON.stringify({ forgot: removed }) + "\n");
    else if (removed === 0) out("no remembered decisions\n");
    else out(`forgot ${removed} decision${removed === 1 ? "" : "s"}\n`);
  });
}
