// The web page's HTTP routes on `acphub serve`: the page itself (`/`, for a logged-in browser
// or a bearer token), its hashed assets, the one-time login (`/login?code=…` shows a button
// that posts the code back → cookie and a redirect to the clean URL; web-login.ts), `/auth`
// (is this browser logged in), `/logout`, and `/login/code` (a new login URL, for a
// bearer-token holder).
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { BUILTIN_ADMIN } from "../contracts/users.js";
import type { RequestGuard } from "./guard.js";
import { sessionCookie, type WebAuth } from "./web-auth.js";
import { postLogin, showLogin } from "./web-login.js";
import { securityHeaders, sendStatic } from "./web-static.js";
import { secureFor } from "./client-address.js";

export interface WebRoutesOptions {
  auth: WebAuth;
  /** The built page (dist/web). */
  root: string;
  /** Cookies get `Secure` when the hub serves HTTPS (or a trusted proxy says it does). */
  secure: boolean;
  /** The hub's own URL, known once it listens (never taken from the Host header). */
  baseUrl: () => string;
  /** The user a request authenticates as (for `/login/code`: a code for that user). */
  identify?: (req: IncomingMessage) => { name: string } | undefined;
  /** A browser logged in (for the audit log). */
  onLogin?: (user: string, address: string) => void;
}

export interface WebRoutes {
  /** True for the paths these routes answer. */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, guard: RequestGuard): void;
  /** A login URL with a fresh one-time code. */
  loginUrl(): string;
}

const LOGIN_NEEDED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>acphub — log in</title></head><body><h1>acphub</h1><p>This browser is not logged in. Open the login URL that <code>acphub serve</code> printed when it started (each one works once), or get a new one with <code>curl -X POST -H "Authorization: Bearer $TOKEN" URL/login/code</code>.</p></body></html>`;

function html(res: ServerResponse, status: number, body: string): void {
  securityHeaders(res);
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
  });
  res.end(body);
}

function plain(res: ServerResponse, status: number, body = ""): void {
  securityHeaders(res);
  res.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
  });
  res.end(body);
}

type Route = (
  o: WebRoutesOptions,
  req: IncomingMessage,
  res: ServerResponse,
  guard: RequestGuard,
) => void;

const loginUrlOf = (o: WebRoutesOptions, user?: string) =>
  `${o.baseUrl()}/login?code=${o.auth.newLoginCode(user)}`;

const ROUTES: Record<string, Route> = {
  "GET /": (o, req, res, guard) => {
    if (!guard.check(req, true).ok) return html(res, 401, LOGIN_NEEDED);
    void sendStatic(res, o.root, "index.html", req.method === "HEAD");
  },
  "GET /login": (o, req, res) => showLogin(o, req, res),
  "POST /login": (o, req, res) => postLogin(o, req, res),
  "GET /auth": (o, req, res) =>
    plain(res, o.auth.authenticated(req) ? 204 : 401),
  "POST /logout": (o, req, res) => {
    // Forgotten where logins are kept before the answer: no node accepts the cookie after it.
    void o.auth.logout(req).then(
      () => {
        const name = o.auth.cookieName(req);
        res.setHeader(
          "Set-Cookie",
          sessionCookie(name, "", secureFor(req, o.secure)),
        );
        plain(res, 204);
      },
      () => plain(res, 503, "the logout could not be stored; try again"),
    );
  },
  "POST /login/code": (o, req, res, guard) => {
    const verdict = guard.check(req, true);
    if (!verdict.ok) return plain(res, verdict.status, verdict.message);
    // A code for the user the request is, never for anyone else (issue 34).
    const user = o.identify ? o.identify(req)?.name : BUILTIN_ADMIN;
    if (user === undefined) return plain(res, 401, "unknown user");
    // Answered once the code is stored: the URL may be opened on another node at once.
    void o.auth.storedLoginCode(user).then(
      (code) => {
        securityHeaders(res);
        res.writeHead(200, {
          "Content-Type": "application/json",
          "Cache-Control": "no-store",
        });
        res.end(JSON.stringify({ url: `${o.baseUrl()}/login?code=${code}` }));
      },
      () => plain(res, 401, "unknown user"),
    );
  },
};

const OWN_PATHS = new Set(["/", "/login", "/auth", "/logout", "/login/code"]);

export function webRoutes(o: WebRoutesOptions): WebRoutes {
  return {
    owns: (path) => OWN_PATHS.has(path) || path.startsWith("/assets/"),
    handle(req, res, guard) {
      const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
      const origin = guard.check(req, false);
      if (!origin.ok) return plain(res, origin.status, origin.message);
      const method = req.method === "HEAD" ? "GET" : (req.method ?? "GET");
      const route = ROUTES[`${method} ${path}`];
      if (route) return route(o, req, res, guard);
      if (method !== "GET") return plain(res, 405, "method not allowed");
      // Only files inside assets/: "/assets/../index.html" must not bypass the login.
      void sendStatic(
        res,
        join(o.root, "assets"),
        path.slice("/assets/".length),
        req.method === "HEAD",
      );
    },
    loginUrl: () => loginUrlOf(o),
  };
}
