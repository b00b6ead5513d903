// What ties the hub's gateways to its clients both ways: the one editor port every gateway talks
// to (the fan-out, with the watch counting open questions and the audit log hearing answers),
// and what the hub does with the gateways' engine events (the watch and the metrics hear them).
import type { EngineEvents } from "../engine/events.js";
import type { EditorPort, LedgerPort } from "../engine/ports.js";
import { noteAnswer, type SessionAccess } from "./access.js";
import type { Attachments } from "./attachments.js";
import { fanOutEditor, type FanOutObserver } from "./fan-out.js";
import type { QuestionBoard } from "./ask-everywhere.js";
import { askingEditor, type HubWatch } from "./watch.js";

/** What the hub tells its observers (the metrics). */
export interface SessionHubObserver extends FanOutObserver {
  turnEnded?(stopReason: string): void;
}

// The EditorPort shared by every gateway of the hub (`board`: a cluster's questions, issue 37).
export function hubEditor(
  attachments: Attachments,
  watch: HubWatch,
  access: SessionAccess,
  observer: SessionHubObserver | undefined,
  answerGraceMs: number | undefined,
  board?: QuestionBoard,
): EditorPort {
  return askingEditor(
    fanOutEditor(
      attachments,
      {
        updateRelayed: (n) => observer?.updateRelayed?.(n),
        permissionDecided: (o) => observer?.permissionDecided?.(o),
        permissionAnswered: (client, request, answer) =>
          void noteAnswer(access, client.user, request, answer, board?.nodeId),
      },
      answerGraceMs,
      board,
    ),
    watch,
  );
}

// What the hub does with its gateways' events: the watch and the metrics hear of them.
export function hubEngineEvents(
  watch: HubWatch,
  ledger: LedgerPort,
  observer: SessionHubObserver | undefined,
): EngineEvents {
  return {
    turnStarted: (e) =>
      watch.prompted(e.sessionId, e.promptSeq, e.prompt, e.author),
    turnEnded: (e) => {
      // The usage row is the ledger's and budgets' (issue 34), not the watchers'.
      const { sessionId, recorded: _recorded, ...end } = e;
      watch.ended(sessionId, end);
      if (e.stopReason) observer?.turnEnded?.(e.stopReason);
    },
    sessionChanged: (id) => {
      void ledger
        .getSession(id)
        .then((record) => watch.changed(id, record?.title))
        .catch(() => watch.changed(id));
    },
  };
}
