// Session lists on every node follow turns run anywhere (issue 38): the ledger tells every node
// when a lease is made busy or idle (TURNS_CHANNEL, pg-turns.ts), and the watching clients here
// (the page's sidebar) hear `_acphub/sessions/changed` for a session no client here follows —
// the page reads its list again, which asks the ledger for turns elsewhere (listed-elsewhere.ts).
// A session a client here follows is told by the feed (or the turn runs here): not twice.
import {
  TURNS_CHANNEL,
  type ClusterStore,
} from "../contracts/cluster-store.js";
import { Note } from "../hub/frames.js";
import type { SessionHub } from "../hub/session-hub.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import type { Logger } from "../shared/logger.js";
import { listenGrants } from "./grant-notices.js";

// Listens for grant and turn notices (the lists' two sources elsewhere); the stop function.
export async function listenListChanges(
  store: ClusterStore,
  hub: () => SessionHub,
  logger: Logger,
): Promise<() => void> {
  const stopGrants = await listenGrants(store, hub, logger);
  const stopTurns = await store.listen(TURNS_CHANNEL, (payload) => {
    const notice = turnNoticeOf(payload);
    if (!notice) return logger.warn({ payload }, "cluster: bad turn notice");
    void turnHeard(hub(), notice.sessionId, notice.running).catch(
      (error: unknown) =>
        logger.warn({ err: error }, "cluster: turn notice not passed on"),
    );
  });
  return () => {
    stopGrants();
    stopTurns();
  };
}

// A turn began or ended on some node: the watching clients here that may see the session hear
// of it, unless a client here follows it (then the feed, or this node's own turn, tells them).
export async function turnHeard(
  hub: SessionHub,
  sessionId: string,
  running: boolean,
): Promise<void> {
  if (hub.attachments.followed(sessionId) || hub.running.has(sessionId)) return;
  const watchers = hub.attachments.allClients.filter(
    (c) => c.watch && !c.closed,
  );
  if (watchers.length === 0) return;
  // Grants not seen lately here are read once (for every user of the session).
  const member = watchers.find((c) => hub.access.restricted(c.user));
  if (member && !hub.access.knows(sessionId))
    await hub.access.standing(member.user, sessionId);
  const state = running
    ? { running: true, state: "running" }
    : hub.watch.listed(sessionId);
  const note = new Note(HUB_METHOD.sessionsChanged, { sessionId, ...state });
  for (const c of watchers)
    if (hub.access.mayTell(c.user, sessionId)) c.notify(note);
}

// Reads a turn notice; undefined when it is not one.
function turnNoticeOf(
  payload: string,
): { sessionId: string; running: boolean } | undefined {
  try {
    const m = JSON.parse(payload) as Record<string, unknown>;
    if (typeof m["sessionId"] !== "string" || typeof m["running"] !== "boolean")
      return undefined;
    return { sessionId: m["sessionId"], running: m["running"] };
  } catch {
    return undefined;
  }
}
