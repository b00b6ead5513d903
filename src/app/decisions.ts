// What `acphub permissions list | forget` ask: the remembered always-allow / always-reject
// decisions in the state folder, each its user's.
import { DecisionMemory } from "../host/decision-memory.js";
import type { AppContext } from "../config/context.js";
import { HubError } from "../shared/errors.js";

// The remembered decisions, all or one user's.
export function rememberedDecisions(ctx: AppContext, user?: string) {
  return DecisionMemory.inStateDir(ctx.paths.stateDir).list(user);
}

// Forgets one decision by id, one user's (`user` alone) or all of them; how many went. An id
// that names no decision (of that user) is a USAGE error.
export function forgetDecisions(
  ctx: AppContext,
  asked: { id?: string; user?: string; all?: boolean },
): number {
  const { id, user } = asked;
  const target = asked.all || (user !== undefined && !id) ? "all" : id;
  if (!target)
    throw new HubError(
      "USAGE",
      "name a decision id (see `acphub permissions list`), --user NAME or --all",
    );
  const memory = DecisionMemory.inStateDir(ctx.paths.stateDir);
  const removed = memory.forget(target, user);
  if (removed === 0 && target !== "all")
    throw new HubError(
      "USAGE",
      `no remembered decision with id ${JSON.stringify(target)}${user === undefined ? "" : ` of user ${JSON.stringify(user)}`}`,
    );
  return removed;
}
