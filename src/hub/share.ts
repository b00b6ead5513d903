// Sharing a hub session (issue 22): `_acphub/session/share` {sessionId, user, role: viewer |
// driver}, `_acphub/session/unshare` {sessionId, user} and `_acphub/session/grants` {sessionId}
// (who has access). Only the session's owner or an admin may share; each change is audited,
// and watching clients that may see the session hear of it (`_acphub/sessions/changed`).
import { SHARE_ROLES, type ShareRole } from "../contracts/users.js";
import type { Params } from "../protocol/raw.js";
import { invalidParams } from "../protocol/wire-errors.js";
import { HubError } from "../shared/errors.js";
import type { HubClient } from "./attachments.js";
import type { SessionHub } from "./session-hub.js";

export const SHARE_METHODS = {
  share: "_acphub/session/share",
  unshare: "_acphub/session/unshare",
  grants: "_acphub/session/grants",
} as const;

// Answers a sharing method, or undefined for any other method.
export async function sharing(
  hub: SessionHub,
  client: HubClient,
  method: string,
  params: Params,
): Promise<Params | undefined> {
  if (!(Object.values(SHARE_METHODS) as string[]).includes(method))
    return undefined;
  const store = hub.access.users;
  if (!store) throw new HubError("UNSUPPORTED", "this hub keeps no users");
  const record = await hub.record(params["sessionId"], client);
  if (method === SHARE_METHODS.grants)
    return { grants: await store.grantsOf(record.id) };
  await hub.access.mustOwn(client.user, record.id);
  const user = params["user"];
  const found =
    typeof user === "string" ? await store.getUser(user) : undefined;
  if (typeof user !== "string" || !found)
    throw invalidParams(`no user ${JSON.stringify(user)}`);
  const by = client.user?.name ?? "admin";
  if (method === SHARE_METHODS.unshare) {
    const removed = await store.revoke(record.id, user);
    // Told while still known as theirs: their session lists drop it at once.
    hub.watch.changed(record.id, record.title);
    hub.access.remember(record.id, user, undefined);
    if (removed) applyGrant(hub, record.id, user, undefined);
    await audit(hub, by, "session.unshare", record.id, { user });
    return { removed };
  }
  const role = shareRoleOf(params["role"]);
  // Sharing would overwrite the owner's grant (and leave the session without an owner).
  const grants = await store.grantsOf(record.id);
  if (grants.some((g) => g.user === user && g.role === "owner"))
    throw invalidParams(
      `${user} owns session ${record.id}: an owner's access is not changed by sharing`,
    );
  await store.grant({ sessionId: record.id, user, role });
  hub.access.remember(record.id, user, role);
  // The user's watching clients (the page's session list) hear of it at once.
  hub.watch.changed(record.id, record.title);
  const watchOnly = role === "viewer" || found.role === "viewer";
  applyGrant(hub, record.id, user, watchOnly);
  await audit(hub, by, "session.share", record.id, { user, role });
  return { sessionId: record.id, user, role };
}

// A changed grant reaches the user's connections attached here at once: unshared, they are
// detached (no more updates); made a viewer, they are no longer asked permission questions.
function applyGrant(
  hub: SessionHub,
  sessionId: string,
  user: string,
  watchOnly: boolean | undefined,
): void {
  for (const { client } of hub.attachments.attached(sessionId)) {
    if (client.user?.name !== user) continue;
    if (watchOnly === undefined) hub.attachments.detach(client, sessionId);
    else hub.attachments.setWatchOnly(sessionId, client, watchOnly);
  }
}

// viewer (default) or driver; the owner's grant is not given by sharing.
export function shareRoleOf(value: unknown): Exclude<ShareRole, "owner"> {
  const role = value ?? "viewer";
  if (role !== "viewer" && role !== "driver")
    throw invalidParams(
      `role must be viewer or driver, got ${JSON.stringify(role)} (roles: ${SHARE_ROLES.join(", ")})`,
    );
  return role;
}

function audit(
  hub: SessionHub,
  user: string,
  action: string,
  sessionId: string,
  detail: Params,
): Promise<void> {
  return hub.access.users!.audit({
    at: Date.now(),
    user,
    action,
    sessionId,
    detail,
  });
}
