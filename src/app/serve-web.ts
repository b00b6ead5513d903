// The web page's part of `acphub serve`: browser logins (kept in the state folder) and the
// page's routes, wired into the hub's server; the login URL is known once it listens.
import type { OtherCredential } from "../server/guard.js";
import { cookieOf, WebAuth } from "../server/web-auth.js";
import { webRoutes, type WebRoutes } from "../server/web-routes.js";
import { DEFAULT_WEB_ROOT } from "../server/web-static.js";

export interface ServeWeb {
  routes: WebRoutes;
  alsoAccepts: OtherCredential;
  /** Call once the server listens: its URL is the login URL's base. */
  listening(url: string): void;
}

export function serveWeb(stateDir: string, secure: boolean): ServeWeb {
  const auth = new WebAuth({ stateDir });
  let base = "";
  return {
    routes: webRoutes({
      auth,
      root: DEFAULT_WEB_ROOT,
      secure,
      baseUrl: () => base,
    }),
    alsoAccepts: {
      presented: (req) => cookieOf(req) !== undefined,
      accepts: (req) => auth.authenticated(req),
    },
    listening: (url) => (base = url),
  };
}
