// What a hub connection checks before it opens a session (issue 22): the user's live-sessions
// quota (the sessions they have open on any node, hub/quotas.ts). A prompt's admission (role, size, quotas, budgets) is one step in the hub
// (hub/prompt-admission.ts).
import type { HubClient } from "../hub/attachments.js";
import type { SessionHub } from "../hub/session-hub.js";
import type { Quotas } from "../hub/quotas.js";

/** What the checks need of a connection's options. */
export interface Admission {
  hub: SessionHub;
  quotas?: Quotas;
}

// Opens a session (new, load, resume, fork; `sessionId`: the one loaded or resumed) within the
// user's live-sessions quota: refused before anything is created or attached.
export async function opening<T>(
  o: Admission,
  client: HubClient,
  sessionId: unknown,
  run: () => Promise<T>,
): Promise<T> {
  const release = o.quotas
    ? await o.quotas.admitOpen(client.user, sessionId)
    : () => undefined;
  let opened = typeof sessionId === "string" ? sessionId : undefined;
  try {
    const result = await run();
    opened ??= idOf(result);
    return result;
  } finally {
    release();
    // Answered once every node counts the session as open and this open's hold as given back:
    // before, a load on another node right after a session/new could still count the hold.
    await o.quotas?.settled(client.user, opened);
  }
}

// The session an open answered with (session/new, session/fork).
function idOf(result: unknown): string | undefined {
  const id = (result as { sessionId?: unknown } | null)?.sessionId;
  return typeof id === "string" ? id : undefined;
}
