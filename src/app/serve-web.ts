// The web page's part of `acphub serve`: browser logins (kept in the state folder) and the
// page's routes, wired into the hub's server; the login URL is known once it listens.
import type { UserStore } from "../contracts/users.js";
import type { OtherCredential } from "../server/guard.js";
import { cookieOf, WebAuth } from "../server/web-auth.js";
import type { ServeUsers } from "./serve-users.js";
import { webRoutes, type WebRoutes } from "../server/web-routes.js";
import { DEFAULT_WEB_ROOT } from "../server/web-static.js";

export interface ServeWeb {
  routes: WebRoutes;
  alsoAccepts: OtherCredential;
  /** Call once the server listens: its URL is the login URL's base. */
  listening(url: string): void;
}

export function serveWeb(
  stateDir: string,
  secure: boolean,
  users: { store?: UserStore; serve: ServeUsers },
): ServeWeb {
  const directory = users.serve.directory;
  // Codes and browser sessions live only while their user's credentials stay as they were.
  const auth = new WebAuth({
    stateDir,
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
      secure,
      baseUrl: () => base,
      identify: (req) => directory.identify(req),
      onLogin: (user) => users.serve.loggedIn(user),
    }),
    alsoAccepts: {
      presented: (req) => cookieOf(req) !== undefined,
      accepts: (req) => auth.authenticated(req),
    },
    listening: (url) => (base = url),
  };
}
