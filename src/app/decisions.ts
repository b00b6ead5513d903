// What `acphub permissions list | forget` ask: the remembered always-allow / always-reject
// decisions in the state folder, each its user's.
import { DecisionMemory } from "../host/decision-memory.js";
import type { AppContext } from "../config/context.js";

// The remembered decisions, all or one user's.
export function rememberedDecisions(ctx: AppContext, user?: string) {
  return DecisionMemory.inStateDir(ctx.paths.stateDir).list(user);
}

// Forgets one decision by id, or "all" (of one user, with `user`); how many went.
export function forgetDecisions(
  ctx: AppContext,
  target: string,
  user?: string,
): number {
  return DecisionMemory.inStateDir(ctx.paths.stateDir).forget(target, user);
}
