// The one writer of shares (issue 34, item 6): the hub's `_acphub/session/share|unshare` and
// `acphub sessions share|unshare` both change a grant here, so both meet the same checks — the
// user exists, and an owner's grant is never changed by sharing (the store refuses it too) —
// and each change is audited the same way. Only a new session's owner grant is written elsewhere
// (`SessionAccess.own`).
import {
  ownerGrantUnchanged,
  type Actor,
  type AuditPort,
  type ShareRole,
  type UserRecord,
  type UserStore,
} from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

/** What the writer reads and writes of the users store. */
export type GrantStore = Pick<
  UserStore,
  "grant" | "revoke" | "grantsOf" | "getUser"
>;

/** A share (with a role) or an unshare (without one) of a session with a user, by someone. */
export interface GrantChange {
  sessionId: string;
  user: string;
  /** viewer or driver; none: take the user's access back. */
  role?: Exclude<ShareRole, "owner">;
  /** Who made the change, for the audit log. */
  by: Actor;
}

export interface GrantResult {
  /** The user the session was shared with or taken from. */
  found: UserRecord;
  /** For an unshare: whether the user had a grant to take back. */
  removed?: boolean;
}

// Applies one share or unshare after its checks, and audits it.
export async function changeGrant(
  store: GrantStore,
  audit: AuditPort,
  change: GrantChange,
): Promise<GrantResult> {
  const { sessionId, user, role } = change;
  const found = await store.getUser(user);
  if (!found)
    throw new HubError("USAGE", `no user named ${JSON.stringify(user)}`);
  const grants = await store.grantsOf(sessionId);
  if (grants.some((g) => g.user === user && g.role === "owner"))
    throw ownerGrantUnchanged(user, sessionId);
  let removed: boolean | undefined;
  if (role) await store.grant({ sessionId, user, role });
  else removed = await store.revoke(sessionId, user);
  await audit.record(
    change.by,
    role ? "session.share" : "session.unshare",
    sessionId,
    role ? { user, role } : { user },
  );
  return { found, ...(role ? {} : { removed }) };
}
