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
import { HubError } from "../shared/errors.js";

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
  return withUserStore(ctx, (store) => store.auditLog(auditFilter(filter)));
}

// A filter checked once for the command line and `_acphub/audit` alike: a time range that ends
// before it starts is refused, not answered with nothing.
export function auditFilter(f: AuditFilter): AuditFilter {
  if (f.since !== undefined && f.until !== undefined && f.until <= f.since)
    throw new HubError(
      "USAGE",
      `the audit's time range ends (${new Date(f.until).toISOString()}) before it starts (${new Date(f.since).toISOString()})`,
    );
  return f;
}
