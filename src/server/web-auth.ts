// Browser logins for the web page: `acphub serve` prints a URL with a one-time login code;
// the page it opens posts the code back (web-login.ts), which trades it for an HttpOnly,
// SameSite=Strict session cookie. Codes and cookies are random, compared by hash; browser
// sessions are kept (hashed) in the state folder so that a hub restart does not log the browser
// out, and logout forgets them. Each code and browser session belongs to a user (issue 22): the
// serve token's holder ("admin") for the printed one, the user of `acphub users login-link` for
// codes kept in the ledger — and to that user's credentials' generation (issue 34): once the
// user is removed or rotated (also while the hub was down), the code and the session are dead.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomingMessage } from "node:http";
import { BUILTIN_ADMIN, type UserStore } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";

export const COOKIE_NAME = "acphub_session";
/** How long a printed login code stays valid. */
export const LOGIN_CODE_TTL_MS = 15 * 60_000;
/** How long a browser stays logged in. */
export const WEB_SESSION_TTL_MS = 7 * 24 * 3_600_000;
/** Bounds on outstanding codes and browser sessions (oldest dropped first). */
const MAX_CODES = 64;
const MAX_SESSIONS = 256;

export interface WebAuthOptions {
  /** Folder for the browser-session file; none keeps them in memory only. */
  stateDir?: string;
  /** Where `acphub users login-link` leaves its codes. */
  store?: UserStore;
  /** The generation of a user's credentials now (user-directory.ts); undefined: no such user. */
  stampOf: (user: string) => string | undefined;
  /** The same after a fresh look at the ledger, for a login. */
  freshStampOf?: (user: string) => Promise<string | undefined>;
  now?: () => number;
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

/** A login code's or browser session's expiry (ms), user and that user's credentials' stamp. */
interface Grant {
  e: number;
  u: string;
  s: string;
}

export class WebAuth {
  private readonly codes = new Map<string, Grant>();
  private readonly sessions: Map<string, Grant>;
  private readonly now: () => number;
  private readonly file?: string;

  constructor(private readonly options: WebAuthOptions) {
    const o = options;
    this.now = o.now ?? Date.now;
    this.file = o.stateDir ? join(o.stateDir, "web-sessions.json") : undefined;
    this.sessions = this.load();
  }

  // A fresh single-use code for a login URL, for a user (default: the serve token's holder).
  newLoginCode(user = BUILTIN_ADMIN): string {
    const stamp = this.options.stampOf(user);
    if (stamp === undefined)
      throw new HubError("AUTH_REQUIRED", `no user named ${user}`);
    const code = randomBytes(24).toString("base64url");
    this.codes.set(hash(code), {
      e: this.now() + LOGIN_CODE_TTL_MS,
      u: user,
      s: stamp,
    });
    trim(this.codes, MAX_CODES);
    return code;
  }

  // The user a code would log in as, without spending it; undefined when it would not.
  async peek(code: string): Promise<string | undefined> {
    const key = hash(code);
    const grant = this.codes.get(key);
    if (grant !== undefined)
      return (await this.live(grant)) ? grant.u : undefined;
    const user = await this.options.store?.peekLoginCode(key, this.now());
    return user !== undefined && (await this.fresh(user)) !== undefined
      ? user
      : undefined;
  }

  // Spends a login code (this process's, else one in the ledger): a new browser-session
  // cookie value and its user, or undefined when the code is wrong, expired, already used, or
  // its user was removed or given a new token since it was made.
  async redeem(
    code: string,
  ): Promise<{ cookie: string; user: string } | undefined> {
    const key = hash(code);
    const mine = this.codes.get(key);
    this.codes.delete(key);
    const grant = mine ?? (await this.fromLedger(key).catch(() => undefined));
    if (grant === undefined || !(await this.live(grant))) return undefined;
    const cookie = randomBytes(32).toString("base64url");
    this.sessions.set(hash(cookie), {
      e: this.now() + WEB_SESSION_TTL_MS,
      u: grant.u,
      s: grant.s,
    });
    trim(this.sessions, MAX_SESSIONS);
    this.save();
    return { cookie, user: grant.u };
  }

  // A ledger code (`acphub users login-link`), spent: its user under their stamp now (a
  // rotation or removal deletes the user's codes, so a code still there is of this generation).
  private async fromLedger(key: string): Promise<Grant | undefined> {
    const user = await this.options.store?.redeemLoginCode(key, this.now());
    const stamp = user === undefined ? undefined : await this.fresh(user);
    return user === undefined || stamp === undefined
      ? undefined
      : { e: this.now() + LOGIN_CODE_TTL_MS, u: user, s: stamp };
  }

  // The user's stamp after a fresh look at the users.
  private fresh(user: string): Promise<string | undefined> {
    const o = this.options;
    return o.freshStampOf
      ? o.freshStampOf(user)
      : Promise.resolve(o.stampOf(user));
  }

  // True while a code is unexpired and its user's credentials are those it was made under.
  private async live(grant: Grant): Promise<boolean> {
    return grant.e >= this.now() && (await this.fresh(grant.u)) === grant.s;
  }

  // The user of the request's live browser-session cookie, if any: unexpired, and made under
  // the user's credentials as they are now (checked at every use, so also after a restart).
  userOf(req: IncomingMessage): string | undefined {
    const cookie = cookieOf(req);
    if (!cookie) return undefined;
    const grant = this.sessions.get(hash(cookie));
    if (grant === undefined || grant.e <= this.now()) return undefined;
    return this.options.stampOf(grant.u) === grant.s ? grant.u : undefined;
  }

  // True when the request carries a live browser-session cookie.
  authenticated(req: IncomingMessage): boolean {
    return this.userOf(req) !== undefined;
  }

  // Ends every browser session of a user (removed, or given a new token).
  forgetUser(user: string): void {
    let changed = false;
    for (const [key, grant] of this.sessions)
      if (grant.u === user) changed = this.sessions.delete(key);
    if (changed) this.save();
  }

  // Ends the browser session the request's cookie names.
  logout(req: IncomingMessage): void {
    const cookie = cookieOf(req);
    if (cookie && this.sessions.delete(hash(cookie))) this.save();
  }

  private load(): Map<string, Grant> {
    if (!this.file) return new Map();
    try {
      const data = JSON.parse(readFileSync(this.file, "utf8")) as unknown;
      const t = this.now();
      // A session without a stamp is from before issue 34: dropped (its browser logs in again).
      return new Map(
        Object.entries(data as Record<string, unknown>)
          .map(([k, v]): [string, Grant | undefined] => [k, grantOf(v)])
          .filter(
            (entry): entry is [string, Grant] =>
              /^[0-9a-f]{64}$/.test(entry[0]) &&
              entry[1] !== undefined &&
              entry[1].e > t,
          ),
      );
    } catch {
      return new Map();
    }
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.sessions)), {
      mode: 0o600,
    });
    renameSync(tmp, this.file);
  }
}

// A stored browser session, when it has the expected shape.
function grantOf(v: unknown): Grant | undefined {
  const g = v as Partial<Grant> | null;
  return g &&
    typeof g.e === "number" &&
    typeof g.u === "string" &&
    typeof g.s === "string"
    ? { e: g.e, u: g.u, s: g.s }
    : undefined;
}

// Drops the oldest entries past a bound (Maps keep insertion order).
function trim(map: Map<string, Grant>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as string);
}

/** The value of acphub's session cookie in a request, if any. */
export function cookieOf(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === COOKIE_NAME) return rest.join("=") || undefined;
  }
  return undefined;
}

/** The Set-Cookie header value that logs a browser in (or out, with an empty value). */
export function sessionCookie(value: string, secure: boolean): string {
  const maxAge = value ? Math.floor(WEB_SESSION_TTL_MS / 1000) : 0;
  return `${COOKIE_NAME}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}
