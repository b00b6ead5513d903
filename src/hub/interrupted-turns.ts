// Ends a turn that its process's stop cut off (the hub restarted, or a cluster node died mid-
// turn): the ledger holds its prompt but no end, and nothing will ever write one. Ending it is
// idempotent (issue 34): one at a time per session here, and only while the ledger's last prompt
// still has no end and no turn of the session runs here — however many paths (a claim that
// found the lease lapsed, a re-sent prompt, a load) and nodes try. In a cluster every caller
// holds the session's lease first, so another node's attempt is fenced or sees this one's end.
import type { EditorPort, LedgerPort } from "../engine/ports.js";
import { noticeParams, type NoticePayload } from "../engine/notices.js";
import type { HubWatch } from "./watch.js";

/** What ending an interrupted turn writes to: the ledger, the clients, the watch. */
export interface InterruptedTurnSinks {
  ledger: LedgerPort;
  editor: EditorPort;
  watch: HubWatch;
  /** True while a turn of the session runs in this process (its prompt is not cut off). */
  runsHere: (sessionId: string) => boolean;
}

/** Events read per page while looking back for the session's last prompt or end. */
const PAGE = 500;

export class InterruptedTurns {
  private readonly ending = new Map<string, Promise<void>>();

  constructor(private readonly sinks: InterruptedTurnSinks) {}

  // Ends the session's cut-off turn, if it has one; after any end of it already under way.
  end(sessionId: string): Promise<void> {
    const before = this.ending.get(sessionId) ?? Promise.resolve();
    const next = before.then(() => this.endIfOpen(sessionId));
    const settled = next.catch(() => undefined);
    this.ending.set(sessionId, settled);
    void settled.then(() => {
      if (this.ending.get(sessionId) === settled) this.ending.delete(sessionId);
    });
    return next;
  }

  /** Resolves once no end of the session's turn is under way here. */
  settled(sessionId: string): Promise<void> {
    return this.ending.get(sessionId) ?? Promise.resolve();
  }

  private async endIfOpen(sessionId: string): Promise<void> {
    const { sinks } = this;
    if (sinks.runsHere(sessionId)) return;
    if (!(await lastPromptOpen(sinks.ledger, sessionId))) return;
    if (sinks.runsHere(sessionId)) return;
    await endInterrupted(sinks, sessionId);
  }
}

// Whether the session's last prompt has no turn_end after it (paging back from the newest).
async function lastPromptOpen(
  ledger: LedgerPort,
  sessionId: string,
): Promise<boolean> {
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await ledger.readPage(sessionId, {
      from: "newest",
      limit: PAGE,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    for (let i = page.length - 1; i >= 0; i--) {
      const kind = page[i]!.kind;
      if (kind === "turn_end") return false;
      if (kind === "prompt") return true;
    }
    if (page.length < PAGE) return false;
    beforeSeq = page[0]!.seq;
  }
}

// A turn the hub's restart killed: tell the session why (a notice of its own, stored as one so a
// replay shows it apart from the agent's words), and record its end as cancelled.
async function endInterrupted(
  sinks: InterruptedTurnSinks,
  sessionId: string,
): Promise<void> {
  const notice: NoticePayload = {
    severity: "warning",
    title: "the hub stopped while this turn ran; it ended as cancelled",
  };
  const seq = await sinks.ledger.append(sessionId, "notice", { ...notice });
  await sinks.editor.notify(
    "session/update",
    { sessionId, ...noticeParams(notice, false) },
    { seq },
  );
  const end = { stopReason: "cancelled", interrupted: true };
  await sinks.ledger.append(sessionId, "turn_end", end);
  sinks.watch.ended(sessionId, end);
}
