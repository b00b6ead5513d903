// The one writer of the audit log (issue 35): every entry — the command line's user and share
// changes, the hub's prompts, cancels, settings, answers and shares, web logins, a trusted
// proxy's new users — is written here, with one spelling of who acted (a user's name, "admin"
// for the serve token's holder and the local command line) and how (`detail.via`).
import type {
  Actor,
  AuditEntry,
  AuditFilter,
  AuditPort,
  UserStore,
} from "../contracts/users.js";
import type { AppContext } from "../config/context.js";
import { withUserStore } from "./user-store.js";

// The writer over a users store; a failed write is not the acting user's problem to see
// unless the caller awaits it.
export function auditWriter(store: Pick<UserStore, "audit">): AuditPort {
  return {
    record: (actor: Actor, action, sessionId, detail) =>
      store.audit({
        at: Date.now(),
        user: actor.user,
        action,
        sessionId,
        detail: { via: actor.via, ...detail },
      }),
  };
}

// What `acphub audit` reads.
export function readAuditLog(
  ctx: AppContext,
  filter: AuditFilter,
): Promise<AuditEntry[]> {
  return withUserStore(ctx, (store) => store.auditLog(filter));
}
