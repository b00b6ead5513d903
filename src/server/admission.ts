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
  try {
    return await run();
  } finally {
    release();
  }
}
