// The port a gateway asks before a prompt runs and after it ends: whether the prompt's budgets
// (per agent, per user) still admit a turn, and which budget notices its usage earned. The
// counting itself listens to the engine's events (telemetry/budgets.ts implements both).
import type { NoticePayload } from "./notices.js";

/** Whom a turn's usage counts against. */
export interface TurnPayer {
  sessionId: string;
  agent: string;
  /** The hub user who sent the prompt; absent outside `acphub serve` with users. */
  user?: string;
}

export interface BudgetPort {
  /** Throws a HubError `BUDGET_EXCEEDED` when a budget of the payer is spent; before anything
   *  of the prompt is recorded. */
  admit(payer: TurnPayer): Promise<void>;
  /** The turn of `sessionId` ended (its usage already counted): the notices it earned (a
   *  budget passing 80 %, or spent). */
  noticesAfterTurn(sessionId: string): NoticePayload[];
}
