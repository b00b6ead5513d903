// Browser logins for the web page: `acphub serve` prints a URL with a one-time login code;
// opening it trades the code for an HttpOnly, SameSite=Strict session cookie. Codes and
// cookies are random, compared by hash; browser sessions are kept (hashed) in the state folder
// so that a hub restart does not log the browser out, and logout forgets them.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { IncomingMessage } from "node:http";

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
  now?: () => number;
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex");

export class WebAuth {
  private readonly codes = new Map<string, number>();
  private readonly sessions: Map<string, number>;
  private readonly now: () => number;
  private readonly file?: string;

  constructor(o: WebAuthOptions = {}) {
    this.now = o.now ?? Date.now;
    this.file = o.stateDir ? join(o.stateDir, "web-sessions.json") : undefined;
    this.sessions = this.load();
  }

  // A fresh single-use code for a login URL.
  newLoginCode(): string {
    const code = randomBytes(24).toString("base64url");
    this.codes.set(hash(code), this.now() + LOGIN_CODE_TTL_MS);
    trim(this.codes, MAX_CODES);
    return code;
  }

  // Spends a login code: a new browser-session cookie value, or undefined when the code is
  // wrong, expired or already used.
  redeem(code: string): string | undefined {
    const key = hash(code);
    const expires = this.codes.get(key);
    this.codes.delete(key);
    if (expires === undefined || expires < this.now()) return undefined;
    const cookie = randomBytes(32).toString("base64url");
    this.sessions.set(hash(cookie), this.now() + WEB_SESSION_TTL_MS);
    trim(this.sessions, MAX_SESSIONS);
    this.save();
    return cookie;
  }

  // True when the request carries a live browser-session cookie.
  authenticated(req: IncomingMessage): boolean {
    const cookie = cookieOf(req);
    if (!cookie) return false;
    const expires = this.sessions.get(hash(cookie));
    return expires !== undefined && expires > this.now();
  }

  // Ends the browser session the request's cookie names.
  logout(req: IncomingMessage): void {
    const cookie = cookieOf(req);
    if (cookie && this.sessions.delete(hash(cookie))) this.save();
  }

  private load(): Map<string, number> {
    if (!this.file) return new Map();
    try {
      const data = JSON.parse(readFileSync(this.file, "utf8")) as unknown;
      const t = this.now();
      return new Map(
        Object.entries(data as Record<string, number>).filter(
          ([k, v]) =>
            /^[0-9a-f]{64}$/.test(k) && typeof v === "number" && v > t,
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

// Drops the oldest entries past a bound (Maps keep insertion order).
function trim(map: Map<string, number>, max: number): void {
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
