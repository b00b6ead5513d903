// The user of the request being handled, carried from the HTTP edge to the ACP connection the
// SDK creates for it (its agent factory takes no request): set around the SDK's handlers.
import { AsyncLocalStorage } from "node:async_hooks";
import type { HubUser } from "../contracts/users.js";

const scope = new AsyncLocalStorage<HubUser>();

/** Runs `work` (and what it starts) as `user`. */
export function runAs<T>(user: HubUser, work: () => T): T {
  return scope.run(user, work);
}

/** The user of the request that is creating a connection now, if any. */
export function currentUser(): HubUser | undefined {
  return scope.getStore();
}
