// What the session is doing, in words: working, waiting for an answer (and who holds the
// question), or how the last turn ended — a turn whose runner died is "interrupted: outcome
// unknown", not "stopped" (issue 37).
import type { HubStore } from "../state/hub-store.js";

/** Stop reasons (ACP's StopReason) as a person would say them. */
export const STOP_WORDS: Record<string, string> = {
  end_turn: "The agent finished.",
  max_tokens: "Stopped: the reply reached the model's token limit.",
  max_turn_requests: "Stopped: the turn made too many model requests.",
  refusal: "The agent refused to continue.",
  cancelled: "Stopped.",
};

// A turn whose runner died mid-turn: not stopped by anyone, and what it did is unknown.
export function interruptedWords(node: string | undefined): string {
  const who = node ? `node ${node}, which ran it,` : "acphub";
  return `Interrupted: outcome unknown. ${who[0]!.toUpperCase()}${who.slice(1)} stopped while the agent worked; it may have acted (changed files, run commands) before it stopped.`;
}

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
  if (turn.interrupted) return interruptedWords(turn.interrupted.node);
  if (!turn.stopReason) return "";
  return STOP_WORDS[turn.stopReason] ?? `Stopped (${turn.stopReason}).`;
}
