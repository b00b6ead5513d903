// Grants changed anywhere reach this node's clients (issue 38): the ledger tells every node of a
// share or unshare (GRANTS_CHANNEL, sent by the PostgreSQL user store whoever changed it: a hub
// client on any node, `acphub sessions share`), and the hub here tells the user's open pages
// (`_acphub/sessions/changed`) and adjusts their attachments. Notices sent while the LISTEN
// connection was down are lost: when it listens again, every watching client here is told its
// list changed, and reads it again from the ledger (a share made meanwhile shows, no reload).
import {
  GRANTS_CHANNEL,
  type ClusterStore,
} from "../contracts/cluster-store.js";
import { SHARE_ROLES, type ShareRole } from "../contracts/users.js";
import type { SessionHub } from "../hub/session-hub.js";
import { grantHeard } from "../hub/share.js";
import type { Logger } from "../shared/logger.js";
import type { HubClient } from "../hub/attachments.js";
import { Note } from "../hub/frames.js";
import { HUB_METHOD } from "../shared/hub-extension.js";

// Listens for grant notices; the stop function.
export function listenGrants(
  store: ClusterStore,
  hub: () => SessionHub,
  logger: Logger,
): Promise<() => void> {
  const missed = () =>
    void grantsMissed(hub()).catch((error: unknown) =>
      logger.warn({ err: error }, "cluster: session lists not refreshed"),
    );
  return store.listen(
    GRANTS_CHANNEL,
    (payload) => {
      const notice = grantNoticeOf(payload);
      if (!notice) return logger.warn({ payload }, "cluster: bad grant notice");
      grantHeard(hub(), notice.sessionId, notice.user, notice.role);
    },
    missed,
  );
}

// Grant notices may have been missed: each watching client hears that its list changed (one
// notice naming the newest session its user may see, one list read per user), and reads it again.
export async function grantsMissed(hub: SessionHub): Promise<void> {
  const byUser = new Map<string, HubClient[]>();
  for (const c of hub.attachments.allClients) {
    if (!c.watch || c.closed) continue;
    const name = c.user?.name ?? "";
    byUser.set(name, [...(byUser.get(name) ?? []), c]);
  }
  for (const clients of byUser.values()) {
    const sharedWith = hub.access.sharedWith(clients[0]!.user);
    const page = await hub.ledger.listSessions({
      limit: 1,
      ...(sharedWith === undefined ? {} : { sharedWith }),
    });
    const newest = page.sessions[0];
    if (!newest) continue;
    const note = new Note(HUB_METHOD.sessionsChanged, {
      sessionId: newest.id,
      ...hub.watch.listed(newest.id),
      ...(newest.title ? { title: newest.title } : {}),
    });
    for (const c of clients) if (!c.closed) c.notify(note);
  }
}

// Reads a notice; undefined when it is not one.
function grantNoticeOf(
  payload: string,
):
  { sessionId: string; user: string; role: ShareRole | undefined } | undefined {
  try {
    const m = JSON.parse(payload) as Record<string, unknown>;
    const role = m["role"];
    if (typeof m["sessionId"] !== "string" || typeof m["user"] !== "string")
      return undefined;
    if (role !== undefined && !SHARE_ROLES.includes(role as ShareRole))
      return undefined;
    return {
      sessionId: m["sessionId"],
      user: m["user"],
      role: role as ShareRole | undefined,
    };
  } catch {
    return undefined;
  }
}
