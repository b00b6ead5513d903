// Relays what comes back from the agent to the editor: each update is appended to the ledger
// first, then sent with acphub's session id, unchanged otherwise.
import type { RunEvent } from "../contracts/events.js";
import type { GatewayParts } from "./parts.js";

export type RelayContext = Pick<GatewayParts, "ledger" | "editor" | "logger">;

export async function relayEvent(
  ctx: RelayContext,
  hubId: string,
  event: RunEvent,
): Promise<void> {
  const { editor } = ctx;
  if (event.type === "permission") {
    editor.observe(hubId, {
      ...event,
      sessionId: hubId,
      request: { ...event.request, sessionId: hubId },
    });
  } else if (event.type !== "session_update") {
    editor.observe(hubId, { ...event, sessionId: hubId });
  }
  switch (event.type) {
    case "session_update": {
      const { update, meta } = event;
      ctx.ledger.append(hubId, "update", meta ? { update, meta } : { update });
      if (
        update.sessionUpdate === "session_info_update" &&
        typeof update["title"] === "string"
      ) {
        ctx.ledger.updateSession(hubId, { title: update["title"] });
      }
      await editor.send("session/update", {
        sessionId: hubId,
        update,
        ...(meta ? { _meta: meta } : {}),
      });
      return;
    }
    case "permission": {
      const { request, outcome, decidedBy, reason } = event;
      ctx.ledger.append(hubId, "permission", {
        toolCall: request.toolCall,
        outcome,
        decidedBy,
        reason,
      });
      return;
    }
    case "extension_notification":
      await editor.send(event.method, {
        ...(event.params as Record<string, unknown>),
        sessionId: hubId,
      });
      return;
    case "audit":
      ctx.logger.info({ ...event, sessionId: hubId }, "agent request");
      return;
    case "client_request":
      return;
  }
}
