// `acphub sessions share | unshare`: a grant changed from the command line through the hub's
// one grant writer (hub/grants.ts: the same checks as `_acphub/session/share`), audited by the
// one audit writer as the command line's operator; running hubs read grants on every access.
import { CLI_ACTOR, type ShareRole } from "../contracts/users.js";
import { changeGrant } from "../hub/grants.js";
import { HubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";
import { auditWriter } from "./audit-log.js";
import { withUserStore } from "./user-store.js";

export { shareRoleOf } from "../hub/share.js";

// Shares the session with `user` as `role`, or with no role takes their access back; whether
// they had any to take back.
export function changeShare(
  ctx: AppContext,
  sessionId: string,
  user: string,
  role: Exclude<ShareRole, "owner"> | undefined,
): Promise<{ removed?: boolean }> {
  return withUserStore(ctx, async (store, ledger) => {
    if (!(await ledger.getSession(sessionId)))
      throw new HubError(
        "SESSION_NOT_FOUND",
        `no session ${JSON.stringify(sessionId)}`,
      );
    const { removed } = await changeGrant(store, auditWriter(store), {
      sessionId,
      user,
      role,
      by: CLI_ACTOR,
    });
    return { removed };
  });
}
