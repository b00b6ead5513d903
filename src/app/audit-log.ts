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
  return withUserStore(ctx, (store) => store.auditLog(filter));
}

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

// `acphub audit --since`: a duration back from now (30m, 2h, 7d) or a date (2026-12-01, an ISO time).
export function sinceOf(
  value: string | undefined,
  now = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2]!]!;
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new HubError(
      "USAGE",
      `--since ${JSON.stringify(value)}: give a duration (30m, 2h, 7d) or a date (2026-12-01T09:00Z)`,
    );
  return at;
}
