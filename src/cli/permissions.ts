// `acphub permissions list|forget`: the remembered always-allow / always-reject decisions, each
// its user's (the operator's is "admin"); `--user NAME` narrows either to one user's.
import { forgetDecisions, rememberedDecisions } from "../app/decisions.js";
import type { GlobalOptions } from "../app/context.js";
import type { ExitCode } from "./exit-codes.js";
import { out, withContext } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export function permissionsList(
  options: GlobalOptions & { json?: boolean; user?: string },
): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const decisions = rememberedDecisions(ctx, options.user);
    if (options.json) out(inertJson(decisions) + "\n");
    else if (decisions.length === 0) out("no remembered decisions\n");
    else
      for (const d of decisions)
        // The subject is the agent's command or title: shown inert.
        out(
          `${d.id}  ${safeText(d.user).padEnd(8)} ${d.decision.padEnd(6)} ${d.kind.padEnd(8)} ${safeText(JSON.stringify(d.subject))}  in ${safeText(d.workspace)}\n`,
        );
  });
}

export function permissionsForget(
  id: string | undefined,
  options: GlobalOptions & { all?: boolean; json?: boolean; user?: string },
): Promise<ExitCode> {
  return withContext(options, (ctx) => {
    const removed = forgetDecisions(ctx, { ...options, id });
    if (options.json) out(JSON.stringify({ forgot: removed }) + "\n");
    else if (removed === 0) out("no remembered decisions\n");
    else out(`forgot ${removed} decision${removed === 1 ? "" : "s"}\n`);
  });
}
