// The line under the transcript: what the session is doing, in words (turn-words.ts).
import type { HubStore } from "../state/hub-store.js";
import { turnWords } from "./turn-words.js";

// The status line under the transcript, with the turn's state as data attributes.
export function TurnState({ store, mine }: { store: HubStore; mine: boolean }) {
  return (
    <div
      class="turn-state"
      role="status"
      data-running={String(store.turn.running)}
      data-stop-reason={store.turn.stopReason ?? ""}
      data-outcome={store.turn.interrupted ? "unknown" : ""}
    >
      {turnWords(store, mine)}
    </div>
  );
}
