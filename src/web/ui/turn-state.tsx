// What the session is doing, in words: working, waiting for an answer (and who holds the
// question), or how the last turn ended.
import type { HubStore } from "../state/hub-store.js";

/** Stop reasons (ACP's StopReason) as a person would say them. */
export const STOP_WORDS: Record<string, string> = {
  end_turn: "The agent finished.",
  max_tokens: "Stopped: the reply reached the model's token limit.",
  max_turn_requests: "Stopped: the turn made too many model requests.",
  refusal: "The agent refused to continue.",
  cancelled: "Stopped.",
};

// The line under the transcript; `mine` is true while this page holds a question for it.
export function turnWords(store: HubStore, mine: boolean): string {
  const turn = store.turn;
  const info = store.model && store.infos.get(store.model.sessionId);
  if (turn.running) {
    if (mine) return "The agent is waiting for your answer.";
    if (info?.state === "waiting")
      return `The agent is waiting for an answer from ${info.askedOf ? `“${info.askedOf}”` : "another client"} (the one that sent the prompt).`;
    return "The agent is working…";
  }
  if (!turn.stopReason) return "";
  return STOP_WORDS[turn.stopReason] ?? `Stopped (${turn.stopReason}).`;
}

export function TurnState({ store, mine }: { store: HubStore; mine: boolean }) {
  return (
    <div
      class="turn-state"
      role="status"
      data-running={String(store.turn.running)}
      data-stop-reason={store.turn.stopReason ?? ""}
    >
      {turnWords(store, mine)}
    </div>
  );
}
