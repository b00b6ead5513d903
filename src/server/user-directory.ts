// Who a request to `acphub serve` is (issue 22): the serve token's holder (the built-in admin),
// a user of the ledger by their token, or — from a trusted proxy's address — the user its header
// names. Users are cached and reloaded when the ledger's users version changes (polled every
// second, so a change made by `acphub users` in any process lands within a second, and at once
// for a token no known user holds; a new role reaches open connections too); a user removed or rotated is reported so that their
// connections and web logins close.
import type { IncomingMessage } from "node:http";
import {
  BUILTIN_ADMIN,
  type HubUser,
  type UserLimits,
  type UserRecord,
  type UserStore,
} from "../contracts/users.js";
import { hashSecret, newSecret, sameHash } from "../shared/user-token.js";
import { userNameProblem } from "../shared/user-names.js";
import type { Logger } from "../shared/logger.js";
import { tokenMatches } from "./token.js";

export const BUILTIN_ADMIN_USER: HubUser = {
  name: BUILTIN_ADMIN,
  role: "admin",
};

export interface TrustedProxy {
  /** Remote addresses whose user header is believed (exact match, e.g. 127.0.0.1, ::1). */
  addresses: readonly string[];
  /** The header naming the user (default X-Forwarded-User). */
  userHeader?: string;
  /** Create an unknown user as a member on first sight (default false: refused). */
  autoCreate?: boolean;
}

export interface UserDirectoryOptions {
  serveToken: string;
  store?: UserStore;
  /** The users writer (app/): a trusted proxy's new user is stored and audited through it. */
  storeUser?: (user: UserRecord) => Promise<void>;
  trustedProxy?: TrustedProxy;
  /** How often to check the users version (ms, default 1000). */
  pollMs?: number;
  /** Users whose credentials changed or who are gone: close what they hold open. */
  onRevoked?: (names: string[]) => void;
  logger: Logger;
}

export class UserDirectory {
  private users = new Map<string, UserRecord>();
  /** One HubUser per stored user, shared by every connection of theirs: a changed role is
   *  written into it, so a connection opened before `acphub users role` sees the new role at
   *  its next request. */
  private live = new Map<string, HubUser>();
  private version = -1;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private cookieUser: (req: IncomingMessage) => string | undefined = () =>
    undefined;

  constructor(private readonly o: UserDirectoryOptions) {}

  /** Loads the users, then keeps them fresh. */
  async start(): Promise<void> {
    await this.refresh();
    if (!this.o.store) return;
    this.timer = setInterval(() => void this.refresh(), this.o.pollMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  // Reloads the users when their version moved; reports those removed or given a new token.
  refresh(): Promise<void> {
    this.refreshing ??= this.reload()
      .catch((error: unknown) =>
        this.o.logger.warn({ err: error }, "users: reload failed"),
      )
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async reload(): Promise<void> {
    const store = this.o.store;
    if (!store) return;
    const version = await store.usersVersion();
    if (version === this.version) return;
    const next = new Map((await store.listUsers()).map((u) => [u.name, u]));
    const revoked = [...this.users.values()]
      .filter((u) => next.get(u.name)?.tokenHash !== u.tokenHash)
      .map((u) => u.name);
    this.users = next;
    this.version = version;
    for (const [name, person] of this.live) {
      const now = next.get(name);
      if (!now || revoked.includes(name)) this.live.delete(name);
      else person.role = now.role;
    }
    if (revoked.length > 0) this.o.onRevoked?.(revoked);
  }

  /** True once the ledger keeps any user: the hub is shared (authors are recorded). */
  get hasUsers(): boolean {
    return this.users.size > 0;
  }

  /** A stored user's own quota limits (the users table's `limits`), if any. */
  limitsOf(name: string): UserLimits | null | undefined {
    return this.users.get(name)?.limits;
  }

  /** A stored user by name (the built-in admin is "admin"). */
  byName(name: string): HubUser | undefined {
    if (name === BUILTIN_ADMIN) return BUILTIN_ADMIN_USER;
    const u = this.users.get(name);
    return u ? this.person(u) : undefined;
  }

  // The shared HubUser of a stored user (made on first use).
  private person(u: UserRecord): HubUser {
    let person = this.live.get(u.name);
    if (!person)
      this.live.set(u.name, (person = { name: u.name, role: u.role }));
    return person;
  }

  /** The current credentials' generation of a user (changes with a rotation, a removal and
   *  re-adding, or a new serve token); undefined for nobody. A login code or browser session
   *  made under another generation is dead (issue 34, item 3). */
  stampOf(name: string): string | undefined {
    if (name === BUILTIN_ADMIN)
      return stampFrom(`serve:${hashSecret(this.o.serveToken)}`);
    const u = this.users.get(name);
    return u ? stampFrom(`user:${u.name}:${u.tokenHash}`) : undefined;
  }

  /** `stampOf` after a fresh look at the ledger (for a login, which must not race a removal). */
  async freshStampOf(name: string): Promise<string | undefined> {
    await this.refresh();
    return this.stampOf(name);
  }

  // The user a bearer token belongs to: every stored hash is compared, in constant time.
  byToken(token: string): HubUser | undefined {
    if (tokenMatches(token, this.o.serveToken)) return BUILTIN_ADMIN_USER;
    const hash = hashSecret(token);
    let found: UserRecord | undefined;
    for (const u of this.users.values())
      if (sameHash(hash, u.tokenHash)) found = u;
    return found ? this.person(found) : undefined;
  }

  /** Before a request is judged: a bearer token that no known user holds has the users read
   *  again first, so that a user `acphub users add` made a moment ago in another process is
   *  known at once, not at the next poll (concurrent reads are one). */
  prepare(req: IncomingMessage): Promise<void> | undefined {
    const bearer = bearerOf(req);
    if (!this.o.store || bearer === undefined || this.byToken(bearer)) return;
    return this.refresh();
  }

  /** How a browser's login cookie names its user (the web page's logins). */
  useCookies(userOf: (req: IncomingMessage) => string | undefined): void {
    this.cookieUser = userOf;
  }

  // The user a request's bearer token, login cookie or trusted-proxy header names, if any.
  identify(req: IncomingMessage): HubUser | undefined {
    const bearer = bearerOf(req);
    const byBearer = bearer === undefined ? undefined : this.byToken(bearer);
    if (byBearer) return byBearer;
    const cookie = this.cookieUser(req);
    const byCookie = cookie === undefined ? undefined : this.byName(cookie);
    return byCookie ?? (bearer === undefined ? this.fromProxy(req) : undefined);
  }

  // From a trusted address only: the header's stored user, never the built-in admin nor a
  // reserved or look-alike name (created as a member when configured and the name is free).
  private fromProxy(req: IncomingMessage): HubUser | undefined {
    const proxy = this.o.trustedProxy;
    if (!proxy || !proxy.addresses.includes(req.socket.remoteAddress ?? ""))
      return undefined;
    const header =
      req.headers[(proxy.userHeader ?? "x-forwarded-user").toLowerCase()];
    if (typeof header !== "string") return undefined;
    const known = this.users.get(header);
    if (known)
      return userNameProblem(header) === undefined
        ? this.person(known)
        : this.refused(header);
    const problem = userNameProblem(header, this.users.keys());
    if (problem !== undefined) return this.refused(header, problem);
    if (!proxy.autoCreate || !this.o.store) return undefined;
    return this.autoCreate(header);
  }

  // A proxy's user header that names no one it may: logged, and no user.
  private refused(name: string, problem?: string): undefined {
    this.o.logger.warn(
      { user: name, problem },
      "trusted proxy: user header refused",
    );
    return undefined;
  }

  // A trusted proxy's new user, a member, kept in the ledger.
  private autoCreate(name: string): HubUser {
    const user: UserRecord = {
      name,
      role: "member",
      tokenHash: hashSecret(newSecret()),
      createdAt: Date.now(),
      limits: null,
    };
    this.users.set(name, user);
    void this.o.storeUser?.(user).catch(() => undefined);
    return this.person(user);
  }
}

// A short digest that names a credentials' generation without revealing it.
function stampFrom(text: string): string {
  return hashSecret(`acphub-login-stamp:${text}`).slice(0, 32);
}

/** The bearer token of a request, if it carries one. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}
