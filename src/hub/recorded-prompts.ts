// Idempotent prompts: a prompt that carries an idempotency key the hub has already seen is
// answered from the turn running now or from the ledger's record of it, never run again.
import { HubError } from "../shared/errors.js";
import type { LedgerPort } from "../engine/ports.js";
import { recordedTurn } from "./turn-records.js";
import type { RunningTurns } from "./running-turns.js";

type Params = Record<string, unknown>;

/** Where a recorded prompt's answer is looked up, and how an interrupted one is ended. */
export interface RecordedPromptSources {
  ledger: LedgerPort;
  running: RunningTurns;
  /** Ends the session's turn a stop cut off (once; in a cluster under the session's lease). */
  endUnended: (sessionId: string) => Promise<void>;
}

// The answer to a prompt whose idempotency key the ledger has seen, without running it again.
export async function recordedAnswer(
  from: RecordedPromptSources,
  sessionId: string,
  key: string,
): Promise<Params | undefined> {
  const live = from.running.get(sessionId);
  if (live?.key === key) return live.done;
  let turn = recordedTurn(await from.ledger.events(sessionId), key);
  if (!turn) return undefined;
  if (turn.error !== undefined)
    throw new HubError(
      "AGENT_ERROR",
      `the recorded turn failed: ${turn.error}`,
    );
  if (turn.stopReason === undefined) {
    // Cut off by its runner's death: ended now (once), then answered as recorded.
    await from.endUnended(sessionId);
    turn = recordedTurn(await from.ledger.events(sessionId), key) ?? turn;
  }
  const interrupted = turn.interrupted === true || !turn.stopReason;
  return {
    stopReason: turn.stopReason ?? "cancelled",
    _meta: {
      acphub: {
        replayed: true,
        promptSeq: turn.promptSeq,
        interrupted,
        ...(interrupted ? { outcome: "unknown" } : {}),
        ...(turn.node ? { ranOn: turn.node } : {}),
      },
    },
  };
}
