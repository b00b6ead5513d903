// Browser logins for the web page: `acphub serve` prints a URL with a one-time login code;
// opening it trades the code for an HttpOnly, SameSite=Strict session cookie. Codes and
// cookies are random, compared by hash; browser sessions are kept (hashed) in the state folder
// so that a hub restart does not log the browser out, and logout forgets them. Each code and
// browser session belongs to a user (issue 22): the serve token's holder ("admin") for the
// printed one, the user of `acphub users login-link` for codes kept in the ledger.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomingMessage } from "node:http";
import { BUILTIN_ADMIN, type UserStore } from "../contracts/users.js";

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
  now?: () => number;
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

/** A login code's or browser session's expiry (ms) and user. */
interface Grant {
  e: number;
  u: string;
}

export class WebAuth {
  private readonly codes = new Map<string, Grant>();
  private readonly sessions: Map<string, Grant>;
  private readonly now: () => number;
  private readonly file?: string;

  constructor(private readonly options: WebAuthOptions = {}) {
    const o = options;
    this.now = o.now ?? Date.now;
    this.file = o.stateDir ? join(o.stateDir, "web-sessions.json") : undefined;
    this.sessions = this.load();
  }

  // A fresh single-use code for a login URL, for a user (default: the serve token's holder).
  newLoginCode(user = BUILTIN_ADMIN): string {
    const code = randomBytes(24).toString("base64url");
    this.codes.set(hash(code), { e: this.now() + LOGIN_CODE_TTL_MS, u: user });
    trim(this.codes, MAX_CODES);
    return code;
  }

  // Spends a login code (this process's, else one in the ledger): a new browser-session
  // cookie value and its user, or undefined when the code is wrong, expired or already used.
  async redeem(
    code: string,
  ): Promise<{ cookie: string; user: string } | undefined> {
    const key = hash(code);
    const grant = this.codes.get(key);
    this.codes.delete(key);
    const user =
      grant !== undefined
        ? grant.e >= this.now()
          ? grant.u
          : undefined
        : await this.options.store?.redeemLoginCode(key, this.now());
    if (user === undefined) return undefined;
    const cookie = randomBytes(32).toString("base64url");
    this.sessions.set(hash(cookie), {
      e: this.now() + WEB_SESSION_TTL_MS,
      u: user,
    });
    trim(this.sessions, MAX_SESSIONS);
    this.save();
    return { cookie, user };
  }

  // The user of the request's live browser-session cookie, if any.
  userOf(req: IncomingMessage): string | undefined {
    const cookie = cookieOf(req);
    if (!cookie) return undefined;
    const grant = this.sessions.get(hash(cookie));
    return grant !== undefined && grant.e > this.now() ? grant.u : undefined;
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
      // A bare number is a session from before users: the serve token's holder's.
      return new Map(
        Object.entries(data as Record<string, unknown>)
          .map(([k, v]): [string, Grant | undefined] => [
            k,
            typeof v === "number" ? { e: v, u: BUILTIN_ADMIN } : grantOf(v),
          ])
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
  return g && typeof g.e === "number" && typeof g.u === "string"
    ? { e: g.e, u: g.u }
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
