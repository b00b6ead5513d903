// The web page's part of `acphub serve`: browser logins (kept in the state folder, or in a
// cluster's database: issue 38) and the page's routes, wired into the hub's server; the login
// URL is known once it listens.
import type { UserStore } from "../contracts/users.js";
import type { WebLoginStore } from "../contracts/web-logins.js";
import type { OtherCredential } from "../server/guard.js";
import { WebAuth } from "../server/web-auth.js";
import { FileWebLogins } from "../server/web-login-file.js";
import type { ServeUsers } from "./serve-users.js";
import { webRoutes, type WebRoutes } from "../server/web-routes.js";
import { DEFAULT_WEB_ROOT } from "../server/web-static.js";

export interface ServeWeb {
  routes: WebRoutes;
  alsoAccepts: OtherCredential;
  /** Call once the server listens: its URL is the login URL's base. */
  listening(url: string): void;
}

export interface ServeWebOptions {
  stateDir: string;
  /** Cookies get `Secure`. */
  secure: boolean;
  /** serve.publicUrl: its port names the session cookie. */
  publicUrl?: string;
  /** A cluster's shared logins (PostgreSQL); none: the state folder's file. */
  shared?: WebLoginStore;
}

export function serveWeb(
  o: ServeWebOptions,
  users: { store?: UserStore; serve: ServeUsers },
): ServeWeb {
  const directory = users.serve.directory;
  // Codes and browser sessions live only while their user's credentials stay as they were.
  const auth = new WebAuth({
    logins: loginsOf(o),
    publicUrl: o.publicUrl,
    store: users.store,
    stampOf: (name) => directory.stampOf(name),
    freshStampOf: (name) => directory.freshStampOf(name),
  });
  directory.useCookies((req) => auth.userOf(req));
  users.serve.onRevoked.push((name) => auth.forgetUser(name));
  let base = "";
  return {
    routes: webRoutes({
      auth,
      root: DEFAULT_WEB_ROOT,
      secure: o.secure,
      baseUrl: () => base,
      identify: (req) => directory.identify(req),
      onLogin: (user, address) => users.serve.loggedIn(user, address),
    }),
    alsoAccepts: {
      presented: (req) => auth.presented(req),
      accepts: (req) => auth.authenticated(req),
      // The page's assets need no login: read none for them. A token no known user holds has
      // the users read again first (one just added by `acphub users add`).
      prepare: (req) => {
        if (req.url?.startsWith("/assets/")) return undefined;
        const reads = [auth.prepare(req), directory.prepare(req)];
        return reads.some(Boolean)
          ? Promise.all(reads).then(() => undefined)
          : undefined;
      },
    },
    listening: (url) => (base = url),
  };
}

// Where the logins are kept: the cluster's store (the state folder's logins of before moved into
// it once, first), else the state folder's file.
function loginsOf(o: ServeWebOptions): WebLoginStore {
  const file = new FileWebLogins(o.stateDir);
  const shared = o.shared;
  if (!shared) return file;
  const moved = file.movedInto(shared).catch(() => undefined);
  return {
    put: (...a) => moved.then(() => shared.put(...a)),
    get: (...a) => moved.then(() => shared.get(...a)),
    take: (...a) => moved.then(() => shared.take(...a)),
    delete: (...a) => moved.then(() => shared.delete(...a)),
    deleteUser: (...a) => moved.then(() => shared.deleteUser(...a)),
  };
}
