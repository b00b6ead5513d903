// The checks every request and WebSocket upgrade passes before any ACP processing: the Origin
// (browsers send it; only the server's own origins and --allow-origin ones pass), then the
// credential (bearer token or login cookie), then a back-off for addresses that keep sending
// wrong ones (behind a trusted proxy, the client's own address: client-address.ts). A right
// credential is always accepted, even from an address in back-off; an absent one is a plain 401
// that never counts (any web page can make credential-less requests to 127.0.0.1, and all local
// clients share that address).
import type { IncomingMessage } from "node:http";
import { tokenMatches } from "./token.js";
import { clientOf } from "./client-address.js";

export interface GuardOptions {
  token: string;
  /** Origins allowed besides the server's own. */
  allowOrigins: readonly string[];
  /** Wrong credentials from one address before its wrong ones get 429. */
  maxFailedAuth: number;
  /** How long an address's wrong credentials get 429 once it passed maxFailedAuth. */
  authBackoffMs: number;
  /** Another credential that counts as the token (the web page's session cookie). */
  alsoAccepts?: OtherCredential;
  /** An address just went into back-off (for the log). */
  onBackoff?: (address: string, seconds: number) => void;
  now?: () => number;
}

/** A credential besides the bearer token: whether a request carries one, and whether it is good. */
export interface OtherCredential {
  presented(req: IncomingMessage): boolean;
  accepts(req: IncomingMessage): boolean;
  /** Reads what `accepts` needs of a request before it is checked (a cluster's logins are in
   *  its database); undefined when there is nothing to read. */
  prepare?(req: IncomingMessage): Promise<void> | undefined;
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

  // Origin, then the credential, then the back-off; the first that fails decides the answer.
  check(req: IncomingMessage, needsToken: boolean): Verdict {
    const origin = req.headers.origin;
    if (origin !== undefined && !this.originAllowed(origin))
      return {
        ok: false,
        status: 403,
        message: `origin ${origin} is not allowed`,
      };
    if (!needsToken) return { ok: true };
    if (this.accepts(req)) return { ok: true };
    const other = this.options.alsoAccepts;
    const presented =
      req.headers.authorization !== undefined || other?.presented(req) === true;
    if (!presented)
      return { ok: false, status: 401, message: "missing bearer token" };
    return this.wrong(clientOf(req).address);
  }

  // True when the request carries a right credential (nothing is counted either way).
  accepts(req: IncomingMessage): boolean {
    const bearer = bearerOf(req);
    return (
      (bearer !== undefined && tokenMatches(bearer, this.options.token)) ||
      this.options.alsoAccepts?.accepts(req) === true
    );
  }

  // A wrong credential: 429 while its address is in back-off, else counted and 401.
  private wrong(address: string): Verdict {
    const entry = this.failures.get(address);
    const t = this.now();
    if (entry && entry.blockedUntil > t)
      return {
        ok: false,
        status: 429,
        message:
          "too many wrong credentials from this address; try again later",
        retryAfterS: Math.ceil((entry.blockedUntil - t) / 1000),
      };
    this.fail(address, entry, t);
    return { ok: false, status: 401, message: "wrong bearer token" };
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
    if (next.count >= this.options.maxFailedAuth) {
      next.blockedUntil = t + this.options.authBackoffMs;
      this.options.onBackoff?.(address, this.options.authBackoffMs / 1000);
    }
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
