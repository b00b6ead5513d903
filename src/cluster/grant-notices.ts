// Grants changed anywhere reach this node's clients (issue 38): the ledger tells every node of a
// share or unshare (GRANTS_CHANNEL, sent by the PostgreSQL user store whoever changed it: a hub
// client on any node, `acphub sessions share`), and the hub here tells the user's open pages
// (`_acphub/sessions/changed`) and adjusts their attachments. A notice lost while the LISTEN
// connection was down costs only liveness: the page's list is read from the ledger on reload.
import {
  GRANTS_CHANNEL,
  type ClusterStore,
} from "../contracts/cluster-store.js";
import { SHARE_ROLES, type ShareRole } from "../contracts/users.js";
import type { SessionHub } from "../hub/session-hub.js";
import { grantHeard } from "../hub/share.js";
import type { Logger } from "../shared/logger.js";

// Listens for grant notices; the stop function.
export function listenGrants(
  store: ClusterStore,
  hub: () => SessionHub,
  logger: Logger,
): Promise<() => void> {
  return store.listen(GRANTS_CHANNEL, (payload) => {
    const notice = grantNoticeOf(payload);
    if (!notice) return logger.warn({ payload }, "cluster: bad grant notice");
    grantHeard(hub(), notice.sessionId, notice.user, notice.role);
  });
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
