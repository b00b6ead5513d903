// One prompt on a hub session: the busy-session rule, the prompt recorded before the agent sees
// it, the transcript given to a primed session, and every event of the turn relayed in order.
import { setTimeout } from "node:timers/promises";
import type { RawContentBlock } from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import { errorMessage, HubError } from "../shared/errors.js";
import { primingBlock, titleFromPrompt } from "./history.js";
import { checkPromptSize } from "./limits.js";
import type { GatewayParts } from "./parts.js";
import type { SessionRecord, TurnPort } from "./ports.js";
import type { LiveSession } from "./session-table.js";

/** How long after a turn's answer its compaction starts. */
const COMPACT_AFTER_MS = 20;

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
  const promptSeq = await ledger.append(record.id, "prompt", {
    prompt,
    ...(meta ? { meta } : {}),
  });
  if (record.title === null)
    await ledger.updateSession(record.id, { title: titleFromPrompt(prompt) });
  const blocks = live.needsPriming
    ? [
        primingBlock(
          await ledger.events(record.id, { uptoSeq: promptSeq - 1 }),
        ),
        ...prompt,
      ]
    : prompt;
  const turn = live.session.prompt(blocks, { meta });
  live.needsPriming = false;
  return runTurn(parts, record.id, live, turn, signal, promptSeq);
}

// Relays a turn's events through the session's relay (each sent to the editor after its commit),
// records how the turn ended, compacts it, and clears it from the session either way.
async function runTurn(
  parts: TurnParts,
  hubId: string,
  live: LiveSession,
  turn: TurnPort,
  signal: AbortSignal,
  promptSeq: number,
): Promise<Params> {
  live.turn = turn;
  const { relay } = live;
  const onAbort = () => turn.cancel();
  signal.addEventListener("abort", onAbort, { once: true });
  relay.hold();
  const done = (async () => {
    try {
      for await (const event of turn) {
        relay.push(event);
        if (relay.failed !== undefined) turn.cancel();
        else if (relay.congested) await relay.settled();
      }
    } finally {
      relay.release();
    }
    const result = await turn.result;
    await relay.settled();
    if (relay.failed !== undefined) throw relay.failed;
    return result;
  })();
  live.turnDone = done.catch(() => undefined);
  try {
    const result = await done;
    const endSeq = await parts.ledger.append(hubId, "turn_end", {
      stopReason: result.stopReason,
    });
    live.compacting = compactTurn(parts, hubId, promptSeq, endSeq);
    return result.response;
  } catch (error) {
    await parts.ledger
      .append(hubId, "turn_end", { error: errorMessage(error) })
      .catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    live.turn = undefined;
  }
}

// Merges the finished turn's streamed chunks in the ledger, once the editor has its answer (a
// timer: the answer is written first).
async function compactTurn(
  parts: TurnParts,
  hubId: string,
  promptSeq: number,
  endSeq: number,
): Promise<void> {
  await setTimeout(COMPACT_AFTER_MS);
  await parts.ledger
    .compact(hubId, promptSeq, endSeq)
    .catch((error: unknown) =>
      parts.logger.warn({ err: error, sessionId: hubId }, "compaction failed"),
    );
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
