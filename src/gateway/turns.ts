// One prompt on a hub session: the busy-session rule, the prompt recorded before the agent sees
// it, the transcript given to a primed session, and every event of the turn relayed in order.
import type { PromptResult, RawContentBlock } from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import { HubError } from "../shared/errors.js";
import { primingBlock, titleFromPrompt } from "./history.js";
import { checkPromptSize } from "./limits.js";
import type { GatewayParts } from "./parts.js";
import type { SessionRecord, TurnPort } from "./ports.js";
import { relayEvent } from "./relay.js";
import type { LiveSession } from "./session-table.js";

type TurnParts = Pick<GatewayParts, "ledger" | "editor" | "logger" | "limits">;

// Runs a prompt on a live session whose prompt blocks are already checked.
export async function promptLive(
  parts: TurnParts,
  record: SessionRecord,
  live: LiveSession,
  prompt: RawContentBlock[],
  meta: Params | undefined,
  signal: AbortSignal,
): Promise<Params> {
  if (live.turn) {
    if (parts.limits.busyPrompt === "reject")
      throw new HubError(
        "PROMPT_IN_FLIGHT",
        `session ${record.id} already has a turn running`,
      );
    live.turn.cancel();
    await live.turnDone;
  }
  // Cancelled before the agent saw it (while restoring, or waiting for the turn before it).
  if (signal.aborted) return { stopReason: "cancelled" };
  const { ledger } = parts;
  ledger.append(record.id, "prompt", { prompt, ...(meta ? { meta } : {}) });
  if (record.title === null)
    ledger.updateSession(record.id, { title: titleFromPrompt(prompt) });
  const primed = live.needsPriming;
  const blocks = primed
    ? [primingBlock(ledger.events(record.id).slice(0, -1)), ...prompt]
    : prompt;
  const turn = live.session.prompt(blocks, { meta, signal });
  return runTurn(parts, record.id, live, turn, primed);
}

// Relays a turn's events, records how it ended, and clears it from the session either way. A
// primed session stops needing the transcript only once a primed turn ended well; the next
// prompt waits (turnDone) until all of this is done.
function runTurn(
  parts: TurnParts,
  hubId: string,
  live: LiveSession,
  turn: TurnPort,
  primed: boolean,
): Promise<Params> {
  live.turn = turn;
  const done = (async () => {
    try {
      const result = await relayTurn(parts, hubId, turn);
      if (primed) live.needsPriming = false;
      parts.ledger.append(hubId, "turn_end", { stopReason: result.stopReason });
      return result.response;
    } catch (error) {
      parts.ledger.append(hubId, "turn_end", {
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    } finally {
      live.turn = undefined;
    }
  })();
  live.turnDone = done.catch(() => undefined);
  return done;
}

// Relays every event of a turn. When relaying fails (or the turn's event queue overflowed), the
// agent's turn is cancelled and waited for: the agent must not keep working on a turn nobody
// relays, and the session must not be left busy for the next prompt.
async function relayTurn(
  parts: TurnParts,
  hubId: string,
  turn: TurnPort,
): Promise<PromptResult> {
  try {
    for await (const event of turn) await relayEvent(parts, hubId, event);
  } catch (error) {
    turn.cancel();
    await turn.result.catch(() => undefined);
    throw error;
  }
  return turn.result;
}

function isBlock(value: unknown): value is RawContentBlock {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string"
  );
}

// The prompt of a session/prompt request, checked for shape and size before anything is recorded.
export function promptOf(params: Params, maxBytes: number): RawContentBlock[] {
  const prompt = params["prompt"];
  if (!Array.isArray(prompt) || !prompt.every(isBlock))
    throw new HubError("USAGE", "prompt must be an array of content blocks");
  checkPromptSize(prompt, maxBytes);
  return prompt;
}
