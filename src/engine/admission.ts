// The one admission step of a prompt: the prompt measured once (its shape, its whole request's
// bytes) and its session read once, then every check in order before anything is recorded —
// limits (of this process: prompt size), quotas (per hub user: hub/quotas.ts), budgets
// (tokens and cost: the BudgetPort) — three kinds of one check with one refusal shape.
import type { RawContentBlock } from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import type { BudgetPort } from "./budget-port.js";
import type { SessionRecord } from "./ports.js";

/** Which family a check belongs to (the config it comes from). */
export type AdmissionKind = "limit" | "quota" | "budget";

/** A prompt request, checked for shape and measured once. */
export interface MeasuredPrompt {
  params: Params;
  blocks: RawContentBlock[];
  /** The whole request's size as sent and stored (blocks, `_meta`, every other field). */
  bytes: number;
}

/** What the checks of a prompt read: its session (read once), the prompt, who sends it. */
export interface PromptFacts {
  record: SessionRecord;
  prompt: MeasuredPrompt;
  /** The hub user recorded as the prompt's author (their budget counts it). */
  author?: string;
  /** The prompt runs one of acphub's session commands (a workflow), not an agent turn. */
  command?: { name: string; input: string };
  /** It waits in line for a turn running now (a hub's queued prompt): it is not one of its
   *  user's turns running at once (`concurrentTurns`) while it waits. */
  waits?: boolean;
}

/** Ends what an admitted prompt holds (a quota's turn at once), once its turn ended. */
export type Release = () => void;

/** One check of the admission: throws a refusal, or admits (optionally holding something). */
export interface AdmissionCheck {
  kind: AdmissionKind;
  admit(facts: PromptFacts): void | Release | Promise<void | Release>;
}

/** A refusal: the limit it names and when it frees up are in the message. */
export interface RefusalOptions {
  /** Whether trying again later can pass (a window, a period); a size never does. */
  retryable: boolean;
  /** Seconds until it frees up, when known (sent as data.retryAfterS). */
  retryAfterS?: number;
  /** More data for the wire (a budget's `budget`). */
  details?: Record<string, unknown>;
}

// The one shape of every refusal: LIMIT_EXCEEDED (limits, quotas) or BUDGET_EXCEEDED, a message
// naming the limit and when it frees up, data {retryable, retryAfterS?}.
export function refusal(
  kind: AdmissionKind,
  message: string,
  o: RefusalOptions,
): HubError {
  return new HubError(
    kind === "budget" ? "BUDGET_EXCEEDED" : "LIMIT_EXCEEDED",
    message,
    {
      retryable: o.retryable,
      details: {
        ...o.details,
        ...(o.retryAfterS !== undefined ? { retryAfterS: o.retryAfterS } : {}),
      },
    },
  );
}

/** A request's size as sent and stored: all of it (blocks, `_meta`, any other field), in bytes. */
export function requestBytes(params: unknown): number {
  return Buffer.byteLength(JSON.stringify(params ?? null));
}

function isBlock(value: unknown): value is RawContentBlock {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string"
  );
}

// A session/prompt request's blocks checked for shape, and its size measured, once.
export function measurePrompt(params: Params): MeasuredPrompt {
  const blocks = params["prompt"];
  if (!Array.isArray(blocks) || !blocks.every(isBlock))
    throw new HubError("USAGE", "prompt must be an array of content blocks");
  return { params, blocks, bytes: requestBytes(params) };
}

// Runs the checks in order; a refusal gives back what the earlier checks held.
export async function admit(
  checks: readonly AdmissionCheck[],
  facts: PromptFacts,
): Promise<Release> {
  const held: Release[] = [];
  const releaseAll = () => {
    for (const release of held.splice(0)) release();
  };
  try {
    for (const check of checks) {
      const release = await check.admit(facts);
      if (release) held.push(release);
    }
  } catch (error) {
    releaseAll();
    throw error;
  }
  return releaseAll;
}

// The process's prompt size limit (limits.maxPromptBytes) on the measured request; over it, a
// block too big on its own is named.
export function promptSizeLimit(maxBytes: number): AdmissionCheck {
  return {
    kind: "limit",
    admit: ({ prompt }) => {
      if (prompt.bytes <= maxBytes) return;
      prompt.blocks.forEach((block, index) => {
        const bytes = requestBytes(block);
        if (bytes > maxBytes)
          throw refusal(
            "limit",
            `prompt block ${index} is ${bytes} bytes; the limit is ${maxBytes} (limits.maxPromptBytes)`,
            { retryable: false },
          );
      });
      throw refusal(
        "limit",
        `prompt request is ${prompt.bytes} bytes (its blocks, _meta and every other field); the limit is ${maxBytes} (limits.maxPromptBytes)`,
        { retryable: false },
      );
    },
  };
}

// The budgets of the prompt's agent and author (limits.budget); a session command's own step
// agents are admitted by their own gateways, so it is not counted here.
export function budgetCheck(budget: BudgetPort | undefined): AdmissionCheck {
  return {
    kind: "budget",
    admit: async ({ record, author, command }) => {
      if (!budget || command) return;
      await budget.admit({
        sessionId: record.id,
        agent: record.agent,
        ...(author !== undefined ? { user: author } : {}),
      });
    },
  };
}
