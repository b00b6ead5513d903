// Browser logins for the web page: `acphub serve` prints a URL with a one-time login code;
// the page it opens posts the code back (web-login.ts), which trades it for an HttpOnly,
// SameSite=Strict session cookie. Codes and cookies are random, kept by hash only, where the
// hub keeps logins (contracts/web-logins.ts: the state folder's file for one hub, PostgreSQL for
// the nodes of a cluster, which then share them: issue 38), and logout forgets them. Each code and
// browser session belongs to a user (issue 22): the serve token's holder ("admin") for the
// printed one, the user of `acphub users login-link` for codes kept in the ledger — and to that
// user's credentials' generation (issue 34): once the user is removed or rotated (also while the
// hub was down, or on another node), the code and the session are dead.
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { BUILTIN_ADMIN, type UserStore } from "../contracts/users.js";
import type { WebLogin, WebLoginStore } from "../contracts/web-logins.js";
import { HubError } from "../shared/errors.js";
import { clientOf } from "./client-address.js";

/** The session cookie's name before issue 38 (still read), and the stem of the per-hub names. */
export const COOKIE_NAME = "acphub_session";
/** How long a printed login code stays valid. */
export const LOGIN_CODE_TTL_MS = 15 * 60_000;
/** How long a browser stays logged in. */
export const WEB_SESSION_TTL_MS = 7 * 24 * 3_600_000;
/** Browser sessions remembered between a request's read and its checks (oldest dropped first). */
const MAX_SEEN = 1024;

export interface WebAuthOptions {
  /** Where codes and browser sessions are kept. */
  logins: WebLoginStore;
  /** Where `acphub users login-link` leaves its codes. */
  store?: UserStore;
  /** The generation of a user's credentials now (user-directory.ts); undefined: no such user. */
  stampOf: (user: string) => string | undefined;
  /** The same after a fresh look at the ledger, for a login. */
  freshStampOf?: (user: string) => Promise<string | undefined>;
  /** The URL browsers reach the hub by (serve.publicUrl): its port names the cookie. */
  publicUrl?: string;
  now?: () => number;
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

export class WebAuth {
  /** Browser sessions as a request's `prepare` read them, for its synchronous checks. */
  private readonly seen = new Map<string, WebLogin>();
  /** Codes of this process whose write is under way (a redeem waits for it). */
  private readonly writing = new Map<string, Promise<unknown>>();
  private readonly now: () => number;

  constructor(private readonly options: WebAuthOptions) {
    this.now = options.now ?? Date.now;
  }

  // A fresh single-use code for a login URL, for a user (default: the serve token's holder).
  newLoginCode(user = BUILTIN_ADMIN): string {
    const stamp = this.options.stampOf(user);
    if (stamp === undefined)
      throw new HubError("AUTH_REQUIRED", `no user named ${user}`);
    const code = randomBytes(24).toString("base64url");
    const key = hash(code);
    const login = { user, stamp, expiresAt: this.now() + LOGIN_CODE_TTL_MS };
    const write = this.options.logins
      .put("code", key, login)
      .catch(() => undefined)
      .finally(() => this.writing.delete(key));
    this.writing.set(key, write);
    return code;
  }

  // A fresh code once it is kept where every node of a cluster finds it (for a URL that may be
  // opened on another node at once).
  async storedLoginCode(user = BUILTIN_ADMIN): Promise<string> {
    const code = this.newLoginCode(user);
    await this.writing.get(hash(code));
    return code;
  }

  // The user a code would log in as, without spending it; undefined when it would not.
  async peek(code: string): Promise<string | undefined> {
    const key = hash(code);
    await this.writing.get(key);
    const mine = await this.options.logins.get("code", key, this.now());
    if (mine !== undefined)
      return (await this.live(mine)) ? mine.user : undefined;
    const user = await this.options.store?.peekLoginCode(key, this.now());
    return user !== undefined && (await this.fresh(user)) !== undefined
      ? user
      : undefined;
  }

  // Spends a login code (a printed one, else one of `users login-link`; on any node, once): a
  // new browser-session cookie value and its user, or undefined when the code is wrong,
  // expired, already used, or its user was removed or given a new token since it was made.
  async redeem(
    code: string,
  ): Promise<{ cookie: string; user: string } | undefined> {
    const key = hash(code);
    await this.writing.get(key);
    const mine = await this.options.logins.take("code", key, this.now());
    const grant = mine ?? (await this.fromLedger(key).catch(() => undefined));
    if (grant === undefined || !(await this.live(grant))) return undefined;
    const cookie = randomBytes(32).toString("base64url");
    const session = {
      user: grant.user,
      stamp: grant.stamp,
      expiresAt: this.now() + WEB_SESSION_TTL_MS,
    };
    await this.options.logins.put("session", hash(cookie), session);
    this.remember(hash(cookie), session);
    return { cookie, user: grant.user };
  }

  // A ledger code (`acphub users login-link`), spent: its user under their stamp now (a
  // rotation or removal deletes the user's codes, so a code still there is of this generation).
  private async fromLedger(key: string): Promise<WebLogin | undefined> {
    const user = await this.options.store?.redeemLoginCode(key, this.now());
    const stamp = user === undefined ? undefined : await this.fresh(user);
    return user === undefined || stamp === undefined
      ? undefined
      : { user, stamp, expiresAt: this.now() + LOGIN_CODE_TTL_MS };
  }

  // The user's stamp after a fresh look at the users.
  private fresh(user: string): Promise<string | undefined> {
    const o = this.options;
    return o.freshStampOf
      ? o.freshStampOf(user)
      : Promise.resolve(o.stampOf(user));
  }

  // True while a code is unexpired and its user's credentials are those it was made under.
  private async live(login: WebLogin): Promise<boolean> {
    return (
      login.expiresAt >= this.now() &&
      (await this.fresh(login.user)) === login.stamp
    );
  }

  private remember(key: string, login: WebLogin | undefined): void {
    this.seen.delete(key);
    if (login) this.seen.set(key, login);
    while (this.seen.size > MAX_SEEN)
      this.seen.delete(this.seen.keys().next().value as string);
  }

  // Reads the browser sessions a request's cookies name from where logins are kept, before the
  // request's synchronous checks: at every request, so that a logout or a removal on another
  // node of a cluster counts at once. Undefined when there is nothing to read.
  prepare(req: IncomingMessage): Promise<void> | undefined {
    const cookies = this.cookiesOf(req);
    if (cookies.length === 0) return undefined;
    const read = async (key: string) => {
      const login = await this.options.logins
        .get("session", key, this.now())
        .catch(() => this.seen.get(key));
      this.remember(key, login);
    };
    return Promise.all(cookies.map((c) => read(hash(c)))).then(() => {});
  }

  // The user of the request's live browser-session cookie, if any: unexpired, and made under
  // the user's credentials as they are now (checked at every use, so also after a restart).
  userOf(req: IncomingMessage): string | undefined {
    for (const cookie of this.cookiesOf(req)) {
      const login = this.seen.get(hash(cookie));
      if (login === undefined || login.expiresAt <= this.now()) continue;
      if (this.options.stampOf(login.user) === login.stamp) return login.user;
    }
    return undefined;
  }

  // True when the request carries a live browser-session cookie.
  authenticated(req: IncomingMessage): boolean {
    return this.userOf(req) !== undefined;
  }

  // True when the request carries this hub's session cookie (a wrong one counts as wrong).
  presented(req: IncomingMessage): boolean {
    return cookieValue(req, this.cookieName(req)) !== undefined;
  }

  // Ends every browser session of a user (removed, or given a new token), on every node.
  forgetUser(user: string): void {
    for (const [key, login] of this.seen)
      if (login.user === user) this.seen.delete(key);
    void this.options.logins.deleteUser(user).catch(() => undefined);
  }

  // Ends the browser session the request's cookie names, on every node.
  async logout(req: IncomingMessage): Promise<void> {
    for (const cookie of this.cookiesOf(req)) {
      this.seen.delete(hash(cookie));
      await this.options.logins.delete("session", hash(cookie));
    }
  }

  /**
   * The session cookie's name for the hub a request reached. A browser keeps cookies per host
   * name, not per port: the name carries the port the browser used (serve.publicUrl's, else the
   * Host header's, or a trusted proxy's X-Forwarded-Host), so two hubs on one host keep their
   * logins apart, while the nodes of a cluster behind one load balancer (one host and port to
   * the browser) share theirs.
   */
  cookieName(req: IncomingMessage): string {
    const port = this.options.publicUrl
      ? portOfUrl(this.options.publicUrl)
      : /:(\d{1,5})$/.exec(clientOf(req).host ?? "")?.[1];
    return port ? `${COOKIE_NAME}_${port}` : COOKIE_NAME;
  }

  // The request's session cookie values: this hub's name first, then the name of before issue
  // 38 (logins made then keep working until they expire).
  private cookiesOf(req: IncomingMessage): string[] {
    const name = this.cookieName(req);
    const values = [cookieValue(req, name)];
    if (name !== COOKIE_NAME) values.push(cookieValue(req, COOKIE_NAME));
    return values.filter((v): v is string => v !== undefined);
  }
}

// A URL's explicit port ("" for the scheme's default); undefined when it is no URL.
function portOfUrl(url: string): string | undefined {
  try {
    return new URL(url).port || undefined;
  } catch {
    return undefined;
  }
}

/** The value of a cookie in a request, if any. */
export function cookieValue(
  req: IncomingMessage,
  name: string,
): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=") || undefined;
  }
  return undefined;
}

/** The Set-Cookie header value that logs a browser in (or out, with an empty value). */
export function sessionCookie(
  name: string,
  value: string,
  secure: boolean,
): string {
  const maxAge = value ? Math.floor(WEB_SESSION_TTL_MS / 1000) : 0;
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}
