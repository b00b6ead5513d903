// Sharing a hub session (issue 22): `_acphub/session/share` {sessionId, user, role: viewer |
// driver}, `_acphub/session/unshare` {sessionId, user} and `_acphub/session/grants` {sessionId}
// (who has access). Only the session's owner or an admin may share; each change is audited,
// and watching clients that may see the session hear of it (`_acphub/sessions/changed`).
import {
  BUILTIN_ADMIN,
  SHARE_ROLES,
  type ShareRole,
} from "../contracts/users.js";
import type { Params } from "../protocol/raw.js";
import { invalidParams } from "../protocol/wire-errors.js";
import { HubError } from "../shared/errors.js";
import type { HubClient } from "./attachments.js";
import { changeGrant } from "./grants.js";
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
  const audit = hub.access.audit;
  if (!store || !audit)
    throw new HubError("UNSUPPORTED", "this hub keeps no users");
  const record = await hub.record(params["sessionId"], client);
  if (method === SHARE_METHODS.grants)
    return { grants: await store.grantsOf(record.id) };
  await hub.access.mustOwn(client.user, record.id);
  const user = params["user"];
  if (typeof user !== "string")
    throw invalidParams(`no user named ${JSON.stringify(user)}`);
  const by = { user: client.user?.name ?? BUILTIN_ADMIN, via: "hub" as const };
  const role =
    method === SHARE_METHODS.share ? shareRoleOf(params["role"]) : undefined;
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
