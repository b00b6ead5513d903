// A step session's turns told as the engine tells an editor's (turn started, its events, its
// end), so whoever listens — tracing — sees `flow run`'s step turns as `invoke_agent` turns.
import type { RawContentBlock, RunEvent } from "../../contracts/events.js";
import type { EngineEvents } from "../../engine/events.js";

export interface StepTurns {
  /** The prompt is sent: the turn starts; returns the `_meta` keys for the agent's prompt. */
  began(prompt: RawContentBlock[]): Record<string, unknown> | undefined;
  heard(event: RunEvent): void;
  ended(result: {
    stopReason?: string;
    usage?: Record<string, unknown> | null;
  }): void;
  /** The step's session closes: a turn still open (it failed) ends with an error. */
  closed(): void;
}

// The turn events of step session `id` for `events` (nothing when nobody listens).
export function stepTurns(
  events: EngineEvents | undefined,
  id: string,
  cwd: string,
): StepTurns {
  let seq = 0;
  let open = false;
  const end = (e: {
    stopReason?: string;
    error?: string;
    usage?: Record<string, unknown> | null;
  }) => {
    if (!open) return;
    open = false;
    events?.turnEnded?.({ sessionId: id, ...e });
  };
  return {
    began: (prompt) => {
      if (!events) return undefined;
      seq += 1;
      open = true;
      events.turnStarted?.({ sessionId: id, promptSeq: seq, prompt, cwd });
      return events.promptMeta?.(id);
    },
    heard: (event) => {
      if (open) events?.turnEvent?.(id, event);
    },
    ended: (r) =>
      end({
        ...(r.stopReason ? { stopReason: r.stopReason } : {}),
        ...(r.usage ? { usage: r.usage } : {}),
      }),
    closed: () => end({ error: "the step's turn failed" }),
  };
}
