// One prompt on a hub session: the busy-session rule, the prompt recorded before the agent sees
// it, the transcript given to a primed session, and every event of the turn relayed in order.
import type { RawContentBlock } from "../contracts/events.js";
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
  const { ledger } = parts;
  ledger.append(record.id, "prompt", { prompt, ...(meta ? { meta } : {}) });
  if (record.title === null)
    ledger.updateSession(record.id, { title: titleFromPrompt(prompt) });
  const blocks = live.needsPriming
    ? [primingBlock(ledger.events(record.id).slice(0, -1)), ...prompt]
    : prompt;
  live.needsPriming = false;
  const turn = live.session.prompt(blocks, { meta });
  return runTurn(parts, record.id, live, turn, signal);
}

// Relays a turn's events, records how it ended, and clears it from the session either way.
async function runTurn(
  parts: TurnParts,
  hubId: string,
  live: LiveSession,
  turn: TurnPort,
  signal: AbortSignal,
): Promise<Params> {
  live.turn = turn;
  const onAbort = () => turn.cancel();
  signal.addEventListener("abort", onAbort, { once: true });
  const done = (async () => {
    for await (const event of turn) await relayEvent(parts, hubId, event);
    return turn.result;
  })();
  live.turnDone = done.catch(() => undefined);
  try {
    const result = await done;
    parts.ledger.append(hubId, "turn_end", { stopReason: result.stopReason });
    return result.response;
  } catch (error) {
    parts.ledger.append(hubId, "turn_end", {
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    live.turn = undefined;
  }
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
