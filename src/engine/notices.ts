// acphub's own notices ("acphub resumed this session on a new … process") are part of the
// session's history: stored as `notice` events at their place, and shown live and in a replay in
// the same form — the ACP `notice` update to an editor that takes it, else agent text on a line
// of its own (never glued to the agent's words), marked `_meta.acphub.notice`.
import type { Params } from "../protocol/raw.js";
import type { LedgerPort } from "./ports.js";

export type NoticeSeverity = "info" | "warning" | "error";

/** A stored notice: the `notice` event's payload. */
export interface NoticePayload {
  severity: NoticeSeverity;
  title: string;
}

// The session/update params (without sessionId) that show a notice to an editor.
export function noticeParams(notice: NoticePayload, asNotice: boolean): Params {
  if (asNotice)
    return {
      update: {
        sessionUpdate: "notice",
        severity: notice.severity,
        title: notice.title,
      },
    };
  return {
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `\n[acphub] ${notice.title}\n` },
    },
    _meta: { acphub: { notice: { severity: notice.severity } } },
  };
}

/** What shows a stored notice to the editor (the gateway's EditorChannel). */
export interface NoticeEditor {
  showNotice(hubId: string, seq: number, notice: NoticePayload): Promise<void>;
}

// Stores a notice at its place in the session, then shows it (a notice the ledger did not keep
// is not shown: a replay must show what was seen live).
export async function tellStored(
  parts: { ledger: LedgerPort; editor: NoticeEditor },
  hubId: string,
  title: string,
  severity: NoticeSeverity = "info",
): Promise<void> {
  const notice: NoticePayload = { severity, title };
  const seq = await parts.ledger.append(hubId, "notice", { ...notice });
  await parts.editor.showNotice(hubId, seq, notice);
}
