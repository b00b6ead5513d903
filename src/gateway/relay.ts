// Relays what comes back from the agent to the editor: each update is appended to the ledger
// first, then sent with acphub's session id, unchanged otherwise.
import type { Logger } from "../shared/logger.js";
import type { EditorPort, GatewayEvent, LedgerPort } from "./ports.js";

export interface RelayContext {
  ledger: LedgerPort;
  editor: () => EditorPort | undefined;
  logger: Logger;
}

export async function relayEvent(
  ctx: RelayContext,
  hubId: string,
  event: GatewayEvent,
): Promise<void> {
  const editor = ctx.editor();
  switch (event.type) {
    case "session_update": {
      const update = event["update"] as Record<string, unknown>;
      const meta = event["meta"] as Record<string, unknown> | undefined;
      ctx.ledger.append(hubId, "update", meta ? { update, meta } : { update });
      if (
        update["sessionUpdate"] === "session_info_update" &&
        typeof update["title"] === "string"
      ) {
        ctx.ledger.updateSession(hubId, { title: update["title"] });
      }
      await editor?.notify("session/update", {
        sessionId: hubId,
        update,
        ...(meta ? { _meta: meta } : {}),
      });
      return;
    }
    case "permission": {
      const { request, outcome, decidedBy, reason } = event as Record<
        string,
        unknown
      >;
      ctx.ledger.append(hubId, "permission", {
        toolCall: (request as { toolCall?: unknown })?.toolCall,
        outcome,
        decidedBy,
        reason,
      });
      return;
    }
    case "extension_notification": {
      const params = {
        ...(event["params"] as Record<string, unknown>),
        sessionId: hubId,
      };
      await editor?.notify(String(event["method"]), params);
      return;
    }
    case "audit":
      ctx.logger.info({ sessionId: hubId, ...event }, "agent request");
      return;
    default:
      return;
  }
}

/** Tells the editor something about its session: a notice when it can show one, else text. */
export async function tellEditor(
  editor: EditorPort | undefined,
  hubId: string,
  text: string,
  notices: boolean,
) {
  const update = notices
    ? { sessionUpdate: "notice", severity: "info", title: text }
    : {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `[acphub] ${text}\n` },
      };
  await editor?.notify("session/update", { sessionId: hubId, update });
}
