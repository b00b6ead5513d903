// The one EditorPort the hub's shared gateways talk to: it fans each session's updates out to
// every attached editor (stamped with the ledger sequence number, never one an editor already
// has) and routes the agent's requests — permission questions first to the editor whose prompt
// is running, then to the others, waiting a grace period for one to re-attach; in a cluster, to
// every client that may answer on every node at once (ask-everywhere.ts).
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { ANSWERED_BY, BUILTIN_ADMIN } from "../contracts/users.js";
import { outcomeFor } from "../protocol/permission-options.js";
import { HubError } from "../shared/errors.js";
import type { EditorPort } from "../engine/ports.js";
import { withSeq } from "../engine/wire-updates.js";
import { Note, shownNote } from "./frames.js";
import { offer, type Attachments, type HubClient } from "./attachments.js";
import { askEverywhere, type QuestionBoard } from "./ask-everywhere.js";
import { tellLate } from "./askees.js";

type Params = Record<string, unknown>;

/** What the fan-out tells the hub's observers (metrics, the audit log). */
export interface FanOutObserver {
  /** A session/update went to `clients` clients. */
  updateRelayed?(clients: number): void;
  permissionDecided?(outcome: string): void;
  /** A client answered a permission question (the policy's own refusals are not answers). */
  permissionAnswered?(
    client: HubClient,
    request: Params,
    answer: unknown,
  ): void;
}

// The EditorPort shared by every gateway of the hub (`board`: the cluster's questions).
export function fanOutEditor(
  attachments: Attachments,
  observer: FanOutObserver = {},
  graceMs = ANSWER_GRACE_MS,
  board?: QuestionBoard,
): EditorPort {
  return {
    notify: (method, raw, delivery) => {
      const params = raw as Params;
      const sessionId = params["sessionId"];
      if (typeof sessionId !== "string") {
        const note = new Note(method, params);
        for (const c of attachments.allClients) c.notify(note);
        return;
      }
      const clients = attachments.countAttached(sessionId);
      const note = stampedNote(method, params, sessionId, delivery, clients);
      let relayed = 0;
      for (const a of attachments.eachAttached(sessionId))
        if (offer(a, note, delivery?.seq)) relayed += 1;
      if (relayed > 0 && method === "session/update")
        observer.updateRelayed?.(relayed);
    },
    request: async <T>(method: string, raw: unknown, signal?: AbortSignal) => {
      const params = raw as Params;
      if (method === "session/request_permission") {
        const answered = (client: HubClient, answer: unknown) => {
          stampAnswerer(answer, client.user?.name);
          observer.permissionAnswered?.(client, params, answer);
        };
        const question = await board
          ?.ask(String(params["sessionId"]), params)
          .catch(() => undefined);
        const outcome = question
          ? await askEverywhere(
              attachments,
              question,
              params,
              graceMs,
              signal,
              (client, answer, by) =>
                client
                  ? answered(client, answer)
                  : stampAnswerer(answer, by?.user),
            )
          : await askPermission(attachments, params, graceMs, signal, answered);
        observer.permissionDecided?.(
          (outcome as { outcome: { outcome: string } }).outcome.outcome,
        );
        return outcome as T;
      }
      const target = targetsOf(attachments, params)[0];
      if (!target)
        throw new HubError(
          "CLOSED",
          `no editor is attached to answer ${method}`,
        );
      return target.request<T>(method, params, signal);
    },
  };
}

// Marks the user who chose an answer on its outcome (a hidden property no client can send): the
// host remembers an "always" answer as that user's, and only in their own session (issue 34).
function stampAnswerer(answer: unknown, user: string | undefined): void {
  const outcome = (answer as { outcome?: unknown } | null)?.outcome;
  if (outcome !== null && typeof outcome === "object")
    Object.defineProperty(outcome, ANSWERED_BY, {
      value: user || BUILTIN_ADMIN,
    });
}

// A notification from a gateway with its ledger seq stamped in; a stored update's frame is
// built from its stored text (`delivery.text`) rather than by serializing the params again.
function stampedNote(
  method: string,
  params: Params,
  sessionId: string,
  delivery: { seq?: number; text?: string } | undefined,
  clients: number,
): Note {
  const seq = delivery?.seq;
  if (seq === undefined) return new Note(method, params);
  const stored = delivery?.text;
  if (stored !== undefined && method === "session/update")
    return shownNote(sessionId, stored, seq, params, clients);
  return new Note(method, () => withSeq(params, seq));
}

// The prompting editor first, then every other attached editor.
function targetsOf(attachments: Attachments, params: Params): HubClient[] {
  const sessionId = String(params["sessionId"]);
  const owner = attachments.owner(sessionId);
  const others = attachments
    .attached(sessionId)
    .map((a) => a.client)
    .filter(
      (c) => c !== owner && !c.closed && attachments.mayAnswer(sessionId, c),
    );
  return owner && !owner.closed ? [owner, ...others] : others;
}

/** How long a permission question waits for an editor to re-attach when the ones that could
 *  answer it have gone (a reconnecting shim or page), before the policy's refusal. */
export const ANSWER_GRACE_MS = 10_000;

// Asks the prompting editor; if it is gone, races the other attached editors (first answer
// wins, the rest are cancelled). With nobody left to answer, waits up to `graceMs` for an
// editor to attach (the prompting one reconnecting: an answer lost with its link is asked
// again), then refuses (the policy's "ask" fallback).
async function askPermission(
  attachments: Attachments,
  params: Params,
  graceMs: number,
  signal: AbortSignal | undefined,
  answered: (client: HubClient, answer: unknown) => void,
): Promise<unknown> {
  const sessionId = String(params["sessionId"]);
  const deadline = Date.now() + graceMs;
  const owner = attachments.owner(sessionId);
  if (owner && !owner.closed) {
    try {
      const answer = await owner.request(
        "session/request_permission",
        params,
        signal,
      );
      answered(owner, answer);
      return answer;
    } catch (error) {
      if (signal?.aborted || !owner.closed) throw error;
    }
  }
  for (;;) {
    const others = targetsOf(attachments, params);
    if (others.length > 0) {
      try {
        return await firstAnswer(others, params, signal, answered);
      } catch (error) {
        if (signal?.aborted || others.some((c) => !c.closed)) throw error;
        continue; // every one of them left while asked
      }
    }
    const left = deadline - Date.now();
    if (left <= 0 || !(await attachments.nextAttach(sessionId, left, signal))) {
      const options = (params as unknown as RequestPermissionRequest).options;
      return { outcome: outcomeFor("reject", options) };
    }
  }
}

// Sends the request to every client; the first answer wins and the others are cancelled.
async function firstAnswer(
  clients: HubClient[],
  params: Params,
  signal: AbortSignal | undefined,
  answered: (client: HubClient, answer: unknown) => void,
): Promise<unknown> {
  const controllers = clients.map(() => new AbortController());
  const onAbort = () => controllers.forEach((c) => c.abort());
  signal?.addEventListener("abort", onAbort, { once: true });
  const asked = clients.map(async (c, i) =>
    c.request("session/request_permission", params, controllers[i]!.signal),
  );
  try {
    const [client, answer] = await Promise.any(
      asked.map((p, i) => p.then((a) => [clients[i]!, a] as const)),
    );
    answered(client, answer);
    // A client whose answer crossed its cancel is told who answered first.
    const first = { user: client.user?.name ?? BUILTIN_ADMIN };
    asked.forEach((p, i) => {
      if (clients[i] !== client)
        p.then((late) => tellLate(clients[i]!, params, late, first)).catch(
          () => undefined,
        );
    });
    return answer;
  } catch (error) {
    const first = (error as AggregateError).errors?.[0] as unknown;
    throw first ?? error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    onAbort();
  }
}
