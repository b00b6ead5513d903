// Sharing a hub session (issue 22): `_acphub/session/share` {sessionId, user, role: viewer |
// driver}, `_acphub/session/unshare` {sessionId, user} and `_acphub/session/grants` {sessionId}
// (who has access). Only the session's owner or an admin may share; each change is audited,
// and watching clients that may see the session hear of it (`_acphub/sessions/changed`).
import {
  BUILTIN_ADMIN,
  SHARE_ROLES,
  type AuditPort,
  type ShareRole,
} from "../contracts/users.js";
import type { AccessStore } from "./access.js";
import type { SessionRecord } from "../engine/ports.js";
import type { Params } from "../protocol/raw.js";
import { invalidParams } from "../protocol/wire-errors.js";
import { HubError } from "../shared/errors.js";
import type { HubClient } from "./attachments.js";
import { changeGrant } from "./grants.js";
import type { SessionHub } from "./session-hub.js";

// The users' store and audit log, refused on a hub that keeps none (before anything else is
// checked).
export function usersOf(hub: SessionHub): {
  store: AccessStore;
  audit: AuditPort;
} {
  const { users: store, audit } = hub.access;
  if (!store || !audit)
    throw new HubError("UNSUPPORTED", "this hub keeps no users");
  return { store, audit };
}

// `_acphub/session/grants`, for a user who may see the session.
export async function grantsOf(
  hub: SessionHub,
  record: SessionRecord,
): Promise<Params> {
  return { grants: await usersOf(hub).store.grantsOf(record.id) };
}

// `_acphub/session/share` (a role) or `unshare` (none), for the session's owner or an admin.
export async function changeShare(
  hub: SessionHub,
  client: HubClient,
  record: SessionRecord,
  params: Params,
  share: boolean,
): Promise<Params> {
  const { store, audit } = usersOf(hub);
  const user = params["user"];
  if (typeof user !== "string")
    throw invalidParams(`no user named ${JSON.stringify(user)}`);
  const by = { user: client.user?.name ?? BUILTIN_ADMIN, via: "hub" as const };
  const role = share ? shareRoleOf(params["role"]) : undefined;
  const { found, removed } = await changeGrant(store, audit, {
    sessionId: record.id,
    user,
    role,
    by,
  });
  if (!role) {
    // Told while still known as theirs: their session lists drop it at once.
    hub.watch.changed(record.id, record.title);
    hub.access.remember(record.id, user, undefined);
    if (removed) applyGrant(hub, record.id, user, undefined);
    return { removed };
  }
  hub.access.remember(record.id, user, role);
  // The user's watching clients (the page's session list) hear of it at once.
  hub.watch.changed(record.id, record.title);
  applyGrant(
    hub,
    record.id,
    user,
    role === "viewer" || found.role === "viewer",
  );
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

/** A grant changed by another node or the command line, as the ledger told it (issue 38): the
 *  user's watching clients here hear of it, and their attachments follow it, as for one made
 *  here. (This node's own changes come back too: doing it twice changes nothing.) */
export function grantHeard(
  hub: SessionHub,
  sessionId: string,
  user: string,
  role: ShareRole | undefined,
): void {
  if (!role) {
    hub.watch.changed(sessionId);
    hub.access.remember(sessionId, user, undefined);
    applyGrant(hub, sessionId, user, undefined);
    return;
  }
  hub.access.remember(sessionId, user, role);
  hub.watch.changed(sessionId);
  if (role === "owner") return;
  for (const { client } of hub.attachments.attached(sessionId))
    if (client.user?.name === user)
      hub.attachments.setWatchOnly(
        sessionId,
        client,
        role === "viewer" || client.user.role === "viewer",
      );
}
