// What a hub connection checks before it opens a session or runs a prompt (issue 22): the
// user's quotas (sessions open at once; turns at once, prompts per minute, prompt size) and
// their right to drive; what passes is noted in the audit log.
import type { HubClient } from "../hub/attachments.js";
import type { Params } from "../protocol/raw.js";
import type { SessionHub } from "../hub/session-hub.js";
import type { Quotas } from "../hub/quotas.js";
import { requestBytes } from "../engine/limits.js";

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
  const open = o.hub.attachments.openBy(client.user?.name);
  const release =
    o.quotas?.admitOpen(client.user, open, sessionId) ?? (() => undefined);
  try {
    return await run();
  } finally {
    release();
  }
}

// A prompt the user may send, within their quotas, is written to the audit log (with its
// size) before it runs; the returned function ends its quota turn.
export async function admitPrompt(
  o: Admission,
  client: HubClient,
  params: Params,
): Promise<() => void> {
  await o.hub.mustDrive(client, params["sessionId"]);
  // The whole request counts (blocks, `_meta`, any other field): all of it may be stored.
  const bytes = requestBytes(params);
  const release = o.quotas?.admit(client.user, bytes) ?? (() => undefined);
  o.hub.access.note(client.user, "prompt", String(params["sessionId"]), {
    bytes,
  });
  return release;
}
