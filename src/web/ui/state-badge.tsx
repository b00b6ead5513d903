// A session's state in words with a colour: running, waiting for approval, failed, idle.
import type { SessionState } from "../state/hub-store.js";

export const STATE_WORDS: Record<SessionState, string> = {
  running: "running",
  waiting: "waiting for approval",
  failed: "failed",
  idle: "idle",
};

export function StateBadge({ state }: { state: SessionState }) {
  return (
    <span class={`state state-${state}`} data-state={state}>
      {STATE_WORDS[state]}
    </span>
  );
}
