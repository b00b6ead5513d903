// The users part of `acphub serve` (issue 22): the directory that tells who each request is,
// kept fresh from the ledger; revoking a user closes their connections and web logins; logins
// go to the audit log; the URL the hub listens on is left for `acphub users login-link`.
import { writeFileSync } from "node:fs";
import {
  BUILTIN_ADMIN,
  type HubUser,
  type UserStore,
} from "../contracts/users.js";
import type { AppContext } from "../config/context.js";
import { UserDirectory } from "../server/user-directory.js";
import { serveUrlFile, storeUser } from "./user-admin.js";
import { auditWriter } from "./audit-log.js";

export interface ServeUsers {
  directory: UserDirectory;
  /** Who to tell when a user is revoked (connections, web logins); set once they exist. */
  onRevoked: ((name: string) => void)[];
  /** Records a web login in the audit log. */
  loggedIn(user: string, address: string): void;
  /** Call once the server listens. */
  listening(url: string): void;
  /** The name a prompt is recorded with: none on a single-user hub (only the serve token). */
  authorOf(user: HubUser | undefined): string | undefined;
}

// Starts the directory (loads the users; then polls their version every second).
export async function serveUsers(
  ctx: AppContext,
  serveToken: string,
  store: UserStore | undefined,
): Promise<ServeUsers> {
  const onRevoked: ((name: string) => void)[] = [];
  const directory = new UserDirectory({
    serveToken,
    store,
    // A trusted proxy's new user: a member, added by themselves through the proxy.
    ...(store
      ? {
          storeUser: (user) =>
            storeUser(store, user, { user: user.name, via: "proxy" }),
        }
      : {}),
    trustedProxy: ctx.config.serve?.trustedProxy,
    logger: ctx.logger,
    onRevoked: (names) => {
      for (const name of names) {
        ctx.logger.info(
          { user: name },
          "user revoked; closing their connections",
        );
        for (const tell of onRevoked) tell(name);
      }
    },
  });
  await directory.start();
  return {
    directory,
    onRevoked,
    authorOf: (user) =>
      user && (user.name !== BUILTIN_ADMIN || directory.hasUsers)
        ? user.name
        : undefined,
    loggedIn: (user, address) =>
      void (
        store
          ? auditWriter(store).record({ user, via: "web" }, "login", null, {
              address,
            })
          : Promise.resolve()
      ).catch(() => undefined),
    listening: (url) => {
      try {
        writeFileSync(serveUrlFile(ctx.paths.stateDir), `${url}\n`, {
          mode: 0o600,
        });
      } catch (error) {
        ctx.logger.warn({ err: error }, "could not write serve-url");
      }
    },
  };
}
