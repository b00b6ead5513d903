// Logging a browser in with a one-time code (issue 34, item 16). Opening `/login?code=…` only
// shows a page naming the account the code is for, with a button; the button posts the code
// back from the hub's own page. The post must carry the hub's Origin (a browser always sends
// it on a form post; another site's is refused by the guard, a missing one here) and the nonce
// of the page's own `SameSite=Strict` cookie, which a post from another site never carries. So a
// link from someone else cannot log a browser into their account behind its user's back.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { COOKIE_NAME, sessionCookie, type WebAuth } from "./web-auth.js";
import { securityHeaders } from "./web-static.js";
import { clientOf, secureFor } from "./client-address.js";

/** The short-lived cookie that ties a login post to the page that showed the button (with the
 *  session cookie's per-hub suffix: two hubs on one host do not overwrite each other's). */
const NONCE_COOKIE = "acphub_login";
const nonceName = (o: WebLoginOptions, req: IncomingMessage) =>
  o.auth.cookieName(req).replace(COOKIE_NAME, NONCE_COOKIE);
/** Largest login form body: a code and a nonce. */
const MAX_FORM_BYTES = 4096;

export interface WebLoginOptions {
  auth: WebAuth;
  secure: boolean;
  /** A browser logged in, from the client address (behind a trusted proxy, the forwarded one). */
  onLogin?: (user: string, address: string) => void;
}

const PAGE_HEAD = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">`;
export const CODE_REFUSED = `${PAGE_HEAD}<title>acphub — login refused</title></head><body><h1>Login refused</h1><p>This login code is wrong, expired or was already used, or its user was removed or given a new token. Each printed login URL works once: restart <code>acphub serve</code> or ask it for a new one (<code>POST /login/code</code> with the bearer token, or <code>acphub users login-link NAME</code>).</p></body></html>`;
const NOT_FROM_PAGE = `${PAGE_HEAD}<title>acphub — login refused</title></head><body><h1>Login refused</h1><p>A login must be sent from the hub's own login page: open the login URL again and press the button.</p></body></html>`;

// Escapes text for HTML (a user name or a code in the page).
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function html(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  securityHeaders(res);
  res.writeHead(status, {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(body);
}

// The page a login URL opens: who the code logs in as, and the button that does it.
function confirmPage(user: string, code: string, nonce: string): string {
  const who = escapeHtml(user);
  return `${PAGE_HEAD}<title>acphub — log in as ${who}</title></head><body><h1>Log in to acphub</h1><p>This login link logs this browser in as <strong>${who}</strong>. Press the button only if you asked for it: a link someone else sent you would log you into their account.</p><form method="post" action="/login"><input type="hidden" name="code" value="${escapeHtml(code)}"><input type="hidden" name="nonce" value="${nonce}"><button type="submit">Log in as ${who}</button></form></body></html>`;
}

// GET /login?code=…: the confirmation page (the code is not spent), or the refusal.
export function showLogin(
  o: WebLoginOptions,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const code = new URL(req.url ?? "/", "http://x").searchParams.get("code");
  void (code ? o.auth.peek(code) : Promise.resolve(undefined)).then(
    (user) => {
      if (user === undefined || !code) return html(res, 401, CODE_REFUSED);
      const nonce = randomBytes(24).toString("base64url");
      html(res, 200, confirmPage(user, code, nonce), {
        // With no-referrer a browser posts `Origin: null`: this page's own post must carry the
        // hub's origin, and a same-origin policy still sends nothing to any other site.
        "Referrer-Policy": "same-origin",
        "Set-Cookie": `${nonceName(o, req)}=${nonce}; Path=/login; HttpOnly; SameSite=Strict; Max-Age=900${secureFor(req, o.secure) ? "; Secure" : ""}`,
      });
    },
    () => html(res, 503, CODE_REFUSED),
  );
}

// POST /login from the hub's page: spends the code for the session cookie; the redirect goes
// to the clean URL.
export function postLogin(
  o: WebLoginOptions,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  void readForm(req)
    .then(async (form) => {
      const nonce = cookieValue(req, nonceName(o, req));
      const fromPage =
        req.headers.origin !== undefined &&
        nonce !== undefined &&
        form?.get("nonce") === nonce;
      if (!fromPage) return html(res, 403, NOT_FROM_PAGE);
      const granted = await o.auth.redeem(form?.get("code") ?? "");
      if (!granted) return html(res, 401, CODE_REFUSED);
      o.onLogin?.(granted.user, clientOf(req).address);
      securityHeaders(res);
      res.writeHead(303, {
        Location: "/",
        "Set-Cookie": [
          sessionCookie(
            o.auth.cookieName(req),
            granted.cookie,
            secureFor(req, o.secure),
          ),
          `${nonceName(o, req)}=; Path=/login; HttpOnly; SameSite=Strict; Max-Age=0`,
        ],
        "Cache-Control": "no-store",
      });
      res.end();
    })
    .catch(() => html(res, 503, CODE_REFUSED));
}

// The url-encoded form of a request, up to a small bound; undefined past it.
function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > MAX_FORM_BYTES) {
        resolve(undefined);
        req.destroy();
      }
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

// A cookie's value in a request, if any.
function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=") || undefined;
  }
  return undefined;
}
