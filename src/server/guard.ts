// The checks every request and WebSocket upgrade passes before any ACP processing: the Origin
// (browsers send it; only the server's own origins and --allow-origin ones pass), a back-off
// for addresses that keep failing to log in, and the bearer token.
import type { IncomingMessage } from "node:http";
import { tokenMatches } from "./token.js";

export interface GuardOptions {
  token: string;
  /** Origins allowed besides the server's own. */
  allowOrigins: readonly string[];
  /** Failed logins from one address before it is refused with 429. */
  maxFailedAuth: number;
  /** How long an address is refused once it passed maxFailedAuth. */
  authBackoffMs: number;
  /** Another credential that counts as the token (the web page's session cookie). */
  alsoAccepts?: (req: IncomingMessage) => boolean;
  now?: () => number;
}

export type Verdict =
  | { ok: true }
  | { ok: false; status: number; message: string; retryAfterS?: number };

interface Failures {
  count: number;
  blockedUntil: number;
}

/** Bounds the failure table so a flood of addresses cannot grow it without limit. */
const MAX_TRACKED_ADDRESSES = 10_000;

export class RequestGuard {
  private readonly failures = new Map<string, Failures>();
  private readonly own = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly options: GuardOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The server's own origins, known once it listens. */
  setOwnOrigins(origins: string[]): void {
    for (const o of origins) this.own.add(o.toLowerCase());
  }

  // Origin, then back-off, then token (or cookie); the first that fails decides the answer.
  check(req: IncomingMessage, needsToken: boolean): Verdict {
    const origin = req.headers.origin;
    if (origin !== undefined && !this.originAllowed(origin))
      return {
        ok: false,
        status: 403,
        message: `origin ${origin} is not allowed`,
      };
    if (!needsToken) return { ok: true };
    const address = req.socket.remoteAddress ?? "unknown";
    const entry = this.failures.get(address);
    const t = this.now();
    if (entry && entry.blockedUntil > t)
      return {
        ok: false,
        status: 429,
        message: "too many failed logins from this address; try again later",
        retryAfterS: Math.ceil((entry.blockedUntil - t) / 1000),
      };
    if (
      tokenMatches(bearerOf(req) ?? "", this.options.token) ||
      this.options.alsoAccepts?.(req) === true
    ) {
      this.failures.delete(address);
      return { ok: true };
    }
    this.fail(address, entry, t);
    return { ok: false, status: 401, message: "missing or wrong bearer token" };
  }

  originAllowed(origin: string): boolean {
    const o = origin.toLowerCase();
    return (
      this.own.has(o) ||
      this.options.allowOrigins.some((a) => a.toLowerCase() === o)
    );
  }

  private fail(address: string, entry: Failures | undefined, t: number): void {
    const current = entry && entry.blockedUntil !== 0 ? undefined : entry;
    const next = { count: (current?.count ?? 0) + 1, blockedUntil: 0 };
    if (next.count >= this.options.maxFailedAuth)
      next.blockedUntil = t + this.options.authBackoffMs;
    if (!entry && this.failures.size >= MAX_TRACKED_ADDRESSES)
      this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(address, next);
  }
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}
