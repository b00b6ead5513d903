// Requests that are about no one session reach the agent process every user of the hub shares:
// `authenticate`, `logout`, `providers/set`, `providers/disable`, an extension method without
// a `sessionId`, … They change (or read) what every user's sessions run with, so only an admin
// may send them (the serve token is an admin; issue 34). The rule is the method's scope, not a
// list of names: an ACP method outside `session/` is agent-wide even when a `sessionId` is
// added to it; an extension method is agent-wide unless it names a session (then the user
// must drive that session).
import type { HubUser } from "../contracts/users.js";
import { isExtensionMethod } from "../protocol/methods.js";
import { HubError } from "../shared/errors.js";

type Params = Record<string, unknown>;

/** Whether a request is about the agent process as a whole rather than one session. */
export function agentWide(method: string, params: Params | undefined): boolean {
  const named = typeof params?.["sessionId"] === "string";
  if (isExtensionMethod(method)) return !named;
  return !method.startsWith("session/") || !named;
}

// Refuses an agent-wide request to anyone but an admin.
export function agentWideAdminOnly(
  user: HubUser | undefined,
  method: string,
  params: Params | undefined,
): void {
  if (!agentWide(method, params)) return;
  const role = user?.role ?? "admin";
  if (role === "admin") return;
  throw new HubError(
    "PERMISSION_DENIED",
    `${method} is not about one session: it reaches the agent process every user of this hub shares, so it is for admins; you are a ${role}`,
  );
}
