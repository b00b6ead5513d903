// Ends a turn that its process's stop cut off (the hub restarted, or a cluster node died mid-
// turn): the ledger holds its prompt but no end, and nothing will ever write one. It ends
// `cancelled` on the wire (ACP has no other stop reason for it) but is recorded and shown as
// what it is (issue 37): interrupted, outcome unknown — the agent may have acted before it
// stopped — with a notice naming the node that ran it, when known. Ending it is
// idempotent (issue 34): one at a time per session here, and only while the ledger's last prompt
// still has no end and no turn of the session runs here — however many paths (a claim that
// found the lease lapsed, a re-sent prompt, a load) and nodes try. In a cluster every caller
// holds the session's lease first, so another node's attempt is fenced or sees this one's end.
import type { EditorPort, LedgerPort } from "../engine/ports.js";
import { noticeParams, type NoticePayload } from "../engine/notices.js";
import { parseObject } from "../engine/stored-events.js";
import type { Logger } from "../shared/logger.js";
import type { HubWatch } from "./watch.js";

/** What ending an interrupted turn writes to: the ledger, the clients, the watch. */
export interface InterruptedTurnSinks {
  ledger: LedgerPort;
  editor: EditorPort;
  watch: HubWatch;
  /** True while a turn of the session runs in this process (its prompt is not cut off). */
  runsHere: (sessionId: string) => boolean;
  logger: Logger;
}

/** Events read per page while looking back for the session's last prompt or end. */
const PAGE = 500;

/** How a cut-off turn is ended: who ran it, and which prompts may be cut off. */
export interface EndHow {
  ranOn?: string;
  promptBefore?: number;
}

/** What a turn_end records of a turn whose runner died: `interrupted`'s value. */
export const OUTCOME_UNKNOWN = "outcome_unknown";

export class InterruptedTurns {
  private readonly ending = new Map<string, Promise<void>>();
  /** The node that ran each session's cut-off turn, as a claim of its lease found it. */
  private readonly ranOn = new Map<string, string>();

  constructor(private readonly sinks: InterruptedTurnSinks) {}

  // Ends the session's cut-off turn, if it has one; after any end of it already under way.
  // `ranOn`: the node that ran it, when the caller knows (any caller's word is kept);
  // `promptBefore`: only a prompt recorded before then (ms) is cut off.
  end(sessionId: string, how: EndHow = {}): Promise<void> {
    if (how.ranOn) this.ranOn.set(sessionId, how.ranOn);
    const before = this.ending.get(sessionId) ?? Promise.resolve();
    const next = before.then(() => this.endIfOpen(sessionId, how.promptBefore));
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

  private async endIfOpen(sessionId: string, promptBefore = Infinity) {
    const { sinks } = this;
    if (sinks.runsHere(sessionId)) return;
    const open = await openPrompt(sinks.ledger, sessionId);
    if (open === undefined || open.at >= promptBefore) return;
    if (sinks.runsHere(sessionId)) return;
    const node = this.ranOn.get(sessionId);
    const endSeq = await endInterrupted(sinks, sessionId, node);
    if (this.ranOn.get(sessionId) === node) this.ranOn.delete(sessionId);
    // Its chunks merged as a finished turn's are (they would stay a row each).
    await sinks.ledger
      .compact(sessionId, open.seq, endSeq)
      .catch((error: unknown) =>
        sinks.logger.warn(
          { err: error, sessionId },
          "compaction of an interrupted turn failed",
        ),
      );
  }
}

// The session's last prompt (when it was recorded, its seq), if no turn_end follows it (paging
// back from the newest); undefined when it has one.
export async function openPrompt(
  ledger: LedgerPort,
  sessionId: string,
): Promise<{ at: number; seq: number } | undefined> {
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await ledger.readPage(sessionId, {
      from: "newest",
      limit: PAGE,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    for (let i = page.length - 1; i >= 0; i--) {
      const event = page[i]!;
      if (event.kind === "turn_end") return undefined;
      if (event.kind === "prompt") return { at: event.at, seq: event.seq };
    }
    if (page.length < PAGE) return undefined;
    beforeSeq = page[0]!.seq;
  }
}

/** The notice of a turn whose runner died: what it may have done, and where it ran. */
export function interruptedNotice(node: string | undefined): string {
  const stopped = node
    ? `node ${node}, which ran this turn, stopped (or lost the database) before it ended`
    : "acphub stopped (killed or restarted) before this turn ended";
  return `interrupted: outcome unknown — ${stopped}. The agent may have acted (changed files, run commands) before it stopped: check before you go on. The turn ended as cancelled.`;
}

// A turn its runner's death cut off: tell the session (a stored notice), and record its end as
// cancelled on the wire, interrupted with its outcome unknown in the ledger. Resolves to the
// end's seq.
async function endInterrupted(
  sinks: InterruptedTurnSinks,
  sessionId: string,
  node: string | undefined,
): Promise<number> {
  const notice: NoticePayload = {
    severity: "warning",
    title: interruptedNotice(node),
  };
  await endToolCalls(sinks, sessionId);
  const seq = await sinks.ledger.append(sessionId, "notice", { ...notice });
  const shown = noticeParams(notice, false);
  await sinks.editor.notify("session/update", { sessionId, ...shown }, { seq });
  const end = {
    stopReason: "cancelled",
    interrupted: OUTCOME_UNKNOWN,
    ...(node ? { node } : {}),
  };
  const endSeq = await sinks.ledger.append(sessionId, "turn_end", end);
  sinks.watch.ended(sessionId, end);
  return endSeq;
}

/** Tool call statuses after which a call is over. */
const FINISHED = new Set(["completed", "failed"]);

// The cut-off turn's tool calls that never finished (issue 38): each is recorded, and shown
// live and in replay, as failed with its outcome unknown — never left "running".
async function endToolCalls(
  sinks: InterruptedTurnSinks,
  sessionId: string,
): Promise<void> {
  for (const toolCallId of await unfinishedCalls(sinks.ledger, sessionId)) {
    const update = {
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "failed",
      _meta: { acphub: { interrupted: OUTCOME_UNKNOWN } },
    };
    const seq = await sinks.ledger.append(sessionId, "update", { update });
    await sinks.editor.notify("session/update", { sessionId, update }, { seq });
  }
}

// The ids of the tool calls the session's last turn began and did not finish.
async function unfinishedCalls(
  ledger: LedgerPort,
  sessionId: string,
): Promise<string[]> {
  const status = new Map<string, string | undefined>();
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await ledger.readPage(sessionId, {
      from: "newest",
      limit: PAGE,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    for (let i = page.length - 1; i >= 0; i--) {
      const event = page[i]!;
      if (event.kind === "prompt" || event.kind === "turn_end")
        return [...status]
          .filter(([, s]) => s === undefined || !FINISHED.has(s))
          .map(([id]) => id);
      const call = event.kind === "update" ? toolCallOf(event.text) : undefined;
      // Read newest first: a call's newest status given is the first one seen.
      if (call && status.get(call.id) === undefined)
        status.set(call.id, call.status);
    }
    if (page.length < PAGE) return [];
    beforeSeq = page[0]!.seq;
  }
}

// A stored update's tool call id and the status it gives (if any), when it is a tool call.
function toolCallOf(text: string): { id: string; status?: string } | undefined {
  const update = parseObject(text)?.["update"] as
    Record<string, unknown> | undefined;
  const kind = update?.["sessionUpdate"];
  if (kind !== "tool_call" && kind !== "tool_call_update") return undefined;
  const id = update?.["toolCallId"];
  if (typeof id !== "string") return undefined;
  const status = update?.["status"];
  return typeof status === "string" ? { id, status } : { id };
}
