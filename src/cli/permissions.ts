// `acphub permissions list|forget`: the remembered always-allow / always-reject decisions, each
// its user's (the operator's is "admin"); `--user NAME` narrows either to one user's.
import { forgetDecisions, rememberedDecisions } from "../app/decisions.js";
import { HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export function permissionsList(
  options: GlobalOptions & { json?: boolean; user?: string },
): ExitCode {
  return guarded(() => {
    const decisions = rememberedDecisions(cliContext(options), options.user);
    if (options.json) {
      process.stdout.write(inertJson(decisions) + "\n");
    } else if (decisions.length === 0) {
      process.stdout.write("no remembered decisions\n");
    } else {
      for (const d of decisions) {
        // The subject is the agent's command or title: shown inert.
        process.stdout.write(
          `${d.id}  ${safeText(d.user).padEnd(8)} ${d.decision.padEnd(6)} ${d.kind.padEnd(8)} ${safeText(JSON.stringify(d.subject))}  in ${safeText(d.workspace)}\n`,
        );
      }
    }
  });
}

export function permissionsForget(
  id: string | undefined,
  options: GlobalOptions & { all?: boolean; json?: boolean; user?: string },
): ExitCode {
  return guarded(() => {
    const { user } = options;
    // --user alone forgets all of that user's decisions.
    const target = options.all || (user !== undefined && !id) ? "all" : id;
    if (!target)
      throw new HubError(
        "USAGE",
        "name a decision id (see `acphub permissions list`), --user NAME or --all",
      );
    const removed = forgetDecisions(cliContext(options), target, user);
    if (removed === 0 && target !== "all")
      throw new HubError(
        "USAGE",
        `no remembered decision with id ${JSON.stringify(target)}${user === undefined ? "" : ` of user ${JSON.stringify(user)}`}`,
      );
    if (options.json) {
      process.stdout.write(JSON.stringify({ forgot: removed }) + "\n");
      return;
    }
    if (removed === 0) {
      process.stdout.write("no remembered decisions\n");
      return;
    }
    process.stdout.write(
      `forgot ${removed} decision${removed === 1 ? "" : "s"}\n`,
    );
  });
}
