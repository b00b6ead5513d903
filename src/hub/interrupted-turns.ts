// Ends a turn that its process's stop cut off (the hub restarted, or a cluster node died mid-
// turn): the ledger holds its prompt but no end, and nothing will ever write one.
import type { EditorPort, LedgerPort } from "../engine/ports.js";
import type { HubWatch } from "./watch.js";

/** What ending an interrupted turn writes to: the ledger, the clients, the watch. */
export interface InterruptedTurnSinks {
  ledger: LedgerPort;
  editor: EditorPort;
  watch: HubWatch;
}

// A turn the hub's restart killed: tell the session why, and record its end as cancelled.
export async function endInterrupted(
  sinks: InterruptedTurnSinks,
  sessionId: string,
): Promise<void> {
  const update = {
    sessionUpdate: "agent_message_chunk",
    content: {
      type: "text",
      text: "[acphub] the hub stopped while this turn ran; it ended as cancelled\n",
    },
  };
  const seq = await sinks.ledger.append(sessionId, "update", { update });
  await sinks.editor.notify("session/update", { sessionId, update }, { seq });
  const end = { stopReason: "cancelled", interrupted: true };
  await sinks.ledger.append(sessionId, "turn_end", end);
  sinks.watch.ended(sessionId, end);
}
