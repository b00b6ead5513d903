// One prompt on a hub session, once it holds the session's turn: the prompt recorded before the
// agent sees it, the transcript given to a primed session, and every event of the turn relayed in order.
import type {
  PromptResult,
  RawContentBlock,
  RunEvent,
} from "../contracts/events.js";
import type { Params } from "../protocol/raw.js";
import { errorMessage, hubsOwnError } from "../shared/errors.js";
import { primingBlock, titleFromPrompt } from "./history.js";
import { tellStored } from "./notices.js";
import type { GatewayParts } from "./parts.js";
import type { SessionRecord, TurnPort, UsageEntry } from "./ports.js";
import type { SessionRelay } from "./session-relay.js";
import type { LiveSession } from "./session-table.js";
import type { TurnClaim } from "./turn-gate.js";
import { CostMeter, recordTurnUsage, type TurnOf } from "./turn-usage.js";

type TurnParts = Pick<
  GatewayParts,
  | "ledger"
  | "editor"
  | "logger"
  | "limits"
  | "compactAfterMs"
  | "closing"
  | "sessions"
  | "events"
  | "budget"
  | "agentIsHub"
  | "agentName"
>;

/** A checked prompt: its blocks, the editor's `_meta`, the hub user who sent it. */
export interface TurnRequest {
  blocks: RawContentBlock[];
  meta?: Params;
  author?: string;
  /** The session's model when known (traces name it). */
  model?: string;
}

// Runs a prompt on a live session, under the claim on the session's turn its caller holds (a
// refused prompt changed nothing); the prompt is checked and admitted already.
export async function promptLive(
  parts: TurnParts,
  record: SessionRecord,
  live: LiveSession,
  request: TurnRequest,
  signal: AbortSignal,
  claim: TurnClaim,
): Promise<Params> {
  // Cancelled before the agent saw it (while restoring, or waiting for the turn before it).
  if (signal.aborted || claim.cancelled) return { stopReason: "cancelled" };
  return await startTurn(parts, record, live, request, signal, claim);
}

// Records the prompt (and the title it gives a new session), then runs the turn.
async function startTurn(
  parts: TurnParts,
  record: SessionRecord,
  live: LiveSession,
  request: TurnRequest,
  signal: AbortSignal,
  claim: TurnClaim,
): Promise<Params> {
  const { ledger } = parts;
  const { blocks: prompt, meta, author, model } = request;
  const promptSeq = await ledger.append(record.id, "prompt", {
    prompt,
    ...(meta ? { meta } : {}),
    ...(author ? { author } : {}),
  });
  parts.events.turnStarted({
    sessionId: record.id,
    promptSeq,
    prompt,
    ...(meta ? { meta } : {}),
    ...(author ? { author } : {}),
    cwd: record.cwd,
    ...(model ? { model } : {}),
  });
  if (record.title === null)
    await ledger.updateSession(record.id, { title: titleFromPrompt(prompt) });
  const primed = live.needsPriming;
  const blocks = primed
    ? [
        primingBlock(
          await ledger.events(record.id, { uptoSeq: promptSeq - 1 }),
        ),
        ...prompt,
      ]
    : prompt;
  const extra = parts.events.promptMeta(record.id);
  const sent = extra ? { ...meta, ...extra } : meta;
  const turn = live.session.prompt(blocks, { meta: sent, signal });
  claim.turn = turn;
  if (claim.cancelled) turn.cancel();
  return runTurn(parts, record.id, live, turn, primed, promptSeq, author);
}

// Records how a turn ended, compacts it, and clears it from the session either way. A primed
// session stops needing the transcript only once a primed turn ended well; the next prompt waits
// (turnDone) until the turn's events are all relayed.
async function runTurn(
  parts: TurnParts,
  hubId: string,
  live: LiveSession,
  turn: TurnPort,
  primed: boolean,
  promptSeq: number,
  author: string | undefined,
): Promise<Params> {
  live.turn = turn;
  const meter = new CostMeter();
  const done = relayTurn(live.relay, turn, (event) => {
    meter.heard(event);
    parts.events.turnEvent(hubId, event);
  });
  live.turnDone = done.catch(() => undefined);
  const usageOf = (usage?: Record<string, unknown> | null) =>
    keepUsage(parts, live, meter, usage, {
      sessionId: hubId,
      agent: parts.agentName,
      user: author,
      promptSeq,
    });
  try {
    const result = await done;
    if (primed) live.needsPriming = false;
    // The answer's token usage is kept with the turn's end, and in the usage table.
    const endSeq = await parts.ledger.append(hubId, "turn_end", {
      stopReason: result.stopReason,
      ...(result.usage ? { usage: result.usage } : {}),
    });
    const recorded = await usageOf(result.usage);
    parts.events.turnEnded({
      sessionId: hubId,
      stopReason: result.stopReason,
      ...(result.usage ? { usage: result.usage } : {}),
      ...(recorded ? { recorded } : {}),
    });
    await tellBudgetNotices(parts, hubId);
    live.compacting = compactTurn(parts, hubId, promptSeq, endSeq);
    return result.response;
  } catch (caught) {
    // A hub as the agent: its own refusals (a spent budget) keep their code.
    const error = parts.agentIsHub ? hubsOwnError(caught) : caught;
    const message = errorMessage(error);
    await parts.ledger
      .append(hubId, "turn_end", { error: message })
      .catch(() => undefined);
    const recorded = await usageOf(undefined);
    parts.events.turnEnded({
      sessionId: hubId,
      error: message,
      ...(recorded ? { recorded } : {}),
    });
    throw error;
  } finally {
    live.turn = undefined;
  }
}

// Records the turn's usage row (none when the agent is a hub: that hub records it). A failure is
// logged: the turn's answer is not lost over it.
async function keepUsage(
  parts: TurnParts,
  live: LiveSession,
  meter: CostMeter,
  usage: Record<string, unknown> | null | undefined,
  turn: TurnOf,
): Promise<UsageEntry | undefined> {
  if (parts.agentIsHub) return undefined;
  const knownCost = live.lastCost;
  if (meter.last !== undefined) live.lastCost = meter.last;
  try {
    return await recordTurnUsage({
      ledger: parts.ledger,
      turn,
      meter,
      usage,
      knownCost,
    });
  } catch (error) {
    parts.logger.warn(
      { err: error, sessionId: turn.sessionId },
      "usage of the turn not recorded",
    );
    return undefined;
  }
}

// The budget notices the turn's usage earned, stored after its end and shown before its answer.
async function tellBudgetNotices(parts: TurnParts, hubId: string) {
  for (const n of parts.budget?.noticesAfterTurn(hubId) ?? [])
    await tellStored(parts, hubId, n.title, n.severity).catch(
      (error: unknown) =>
        parts.logger.warn(
          { err: error, sessionId: hubId },
          "budget notice lost",
        ),
    );
}

// Relays a turn's events through the session's relay (each sent to the editor after its commit).
// When relaying fails (a failed append, or the turn's event queue overflowed), the agent's turn is
// cancelled and waited for: the agent must not keep working on a turn nobody relays, and the
// session must not be left busy for the next prompt.
async function relayTurn(
  relay: SessionRelay,
  turn: TurnPort,
  heard: (event: RunEvent) => void,
): Promise<PromptResult> {
  relay.hold(() => turn.cancel());
  try {
    await pumpEvents(relay, turn, heard);
  } catch (error) {
    turn.cancel();
    await turn.result.catch(() => undefined);
    throw error;
  } finally {
    relay.release();
  }
  const result = await turn.result;
  await relay.settled();
  const failed = relay.takeFailure();
  if (failed !== undefined) throw failed;
  return result;
}

// The turn's events, each heard and pushed to the relay as it comes. A function of its own: the
// loop is what V8 compiles, and code after it in the same function (not run until the first
// turn ended) threw the compiled loop away for every session streaming then.
async function pumpEvents(
  relay: SessionRelay,
  turn: TurnPort,
  heard: (event: RunEvent) => void,
): Promise<void> {
  for await (const first of turn)
    for (let event: RunEvent | undefined = first; event;) {
      heard(event);
      relay.push(event);
      if (relay.failed === undefined && relay.congested) await relay.settled();
      event = turn.poll?.();
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
  // When the gateway closes, a compaction still waiting runs at once.
  await parts.closing.wait(parts.compactAfterMs);
  const compactable = parts.ledger.whenCompactable?.(hubId, endSeq);
  if (compactable) await parts.closing.until(compactable);
  await parts.ledger
    .compact(hubId, promptSeq, endSeq)
    .catch((error: unknown) =>
      parts.logger.warn({ err: error, sessionId: hubId }, "compaction failed"),
    );
}
