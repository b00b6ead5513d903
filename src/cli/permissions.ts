// `acphub permissions list|forget`: the remembered always-allow / always-reject decisions.
import { DecisionMemory } from "../host/decision-memory.js";
import { HubError } from "../shared/errors.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import type { ExitCode } from "./exit-codes.js";
import { guarded } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export function permissionsList(
  options: GlobalOptions & { json?: boolean },
): ExitCode {
  return guarded(() => {
    const memory = DecisionMemory.inStateDir(
      cliContext(options).paths.stateDir,
    );
    const decisions = memory.list();
    if (options.json) {
      process.stdout.write(inertJson(decisions) + "\n");
    } else if (decisions.length === 0) {
      process.stdout.write("no remembered decisions\n");
    } else {
      for (const d of decisions) {
        // The subject is the agent's command or title: shown inert.
        process.stdout.write(
          `${d.id}  ${d.decision.padEnd(6)} ${d.kind.padEnd(8)} ${safeText(JSON.stringify(d.subject))}  in ${safeText(d.workspace)}\n`,
        );
      }
    }
  });
}

export function permissionsForget(
  id: string | undefined,
  options: GlobalOptions & { all?: boolean; json?: boolean },
): ExitCode {
  return guarded(() => {
    const target = options.all ? "all" : id;
    if (!target)
      throw new HubError(
        "USAGE",
        "name a decision id (see `acphub permissions list`) or pass --all",
      );
    const removed = DecisionMemory.inStateDir(
      cliContext(options).paths.stateDir,
    ).forget(target);
    if (removed === 0 && !options.all)
      throw new HubError(
        "USAGE",
        `no remembered decision with id ${JSON.stringify(target)}`,
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
