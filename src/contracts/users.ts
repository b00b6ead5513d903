// The hub's users as the ledger keeps them (issue 22): who may connect to `acphub serve`, with
// which role, their tokens (stored as SHA-256 hashes only), one-time web login codes, who may
// see which session, and the audit log. Implemented by both ledgers (src/ledger/user-store.ts).
import { HubError } from "../shared/errors.js";

/** What a user may do on the hub: everything; their own and shared sessions; only watch. */
export type UserRole = "admin" | "member" | "viewer";
export const USER_ROLES: readonly UserRole[] = ["admin", "member", "viewer"];

/** A user's access to one session: its creator, or shared to drive it or only to watch it. */
export type ShareRole = "owner" | "driver" | "viewer";
export const SHARE_ROLES: readonly ShareRole[] = ["owner", "driver", "viewer"];

/** Per-user quota overrides (config `users.limits` gives the defaults). */
export interface UserLimits {
  concurrentTurns?: number;
  liveSessions?: number;
  promptsPerMinute?: number;
  promptBytes?: number;
  /** Agent processes a user's sessions may run in at once (issue 36; default 4). */
  agentProcesses?: number;
}

export interface UserRecord {
  name: string;
  role: UserRole;
  /** SHA-256 (hex) of the user's current token. */
  tokenHash: string;
  createdAt: number;
  limits: UserLimits | null;
}

export interface SessionGrant {
  sessionId: string;
  user: string;
  role: ShareRole;
}

export interface AuditEntry {
  at: number;
  /** Who did it: a user's name; "admin" for the serve token's holder and the local command line. */
  user: string;
  /** What: login, user.add, user.remove, user.rotate, session.share, session.unshare, … */
  action: string;
  sessionId: string | null;
  /** How it reached acphub (`via`, see AuditVia), then what the action was about. */
  detail: Record<string, unknown> | null;
}

/** How an action reached acphub: a local `acphub` command, a hub client, the web login, a proxy. */
export type AuditVia = "cli" | "hub" | "web" | "proxy";

/** Who acted, one spelling everywhere: a user's name (or "admin") and how it reached acphub. */
export interface Actor {
  user: string;
  via: AuditVia;
}

/** The local command line's operator: whoever holds the state folder holds the serve token. */
export const CLI_ACTOR: Actor = { user: "admin", via: "cli" };

/**
 * The one writer of the audit log (built in app/audit-log.ts, given to the hub as a port): the
 * entry's time, who acted, and `via` first in its detail are set there and nowhere else.
 */
export interface AuditPort {
  record(
    actor: Actor,
    action: string,
    sessionId: string | null,
    detail?: Record<string, unknown>,
  ): Promise<void>;
}

export interface AuditFilter {
  since?: number;
  /** Only entries before this time (ms since the epoch). */
  until?: number;
  user?: string;
  sessionId?: string;
  /** Only this action (`login`, `user.role`, `session.share`, …). */
  action?: string;
  limit?: number;
  /** Newest first (the admin page's pages), else oldest first. */
  newestFirst?: boolean;
  /** Entries skipped before the page starts (in the order asked). */
  offset?: number;
}

export interface UserStore {
  /** Adds a user; a HubError `USAGE` when the name is taken. */
  addUser(user: UserRecord): Promise<void>;
  getUser(name: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<UserRecord[]>;
  /** Removes a user, their login codes and their shares; false when there was none. */
  removeUser(name: string): Promise<boolean>;
  /** Replaces a user's token hash; false when there is no such user. */
  setTokenHash(name: string, tokenHash: string): Promise<boolean>;
  /** Sets (or, with null, clears) a user's own quota limits; false when there is no such user. */
  setLimits(name: string, limits: UserLimits | null): Promise<boolean>;
  /** Changes a user's role, nothing else (token, shares, limits kept); false when there is none. */
  setRole(name: string, role: UserRole): Promise<boolean>;
  /** Grows on every change to users (add, remove, rotate, limits, role): other processes poll it. */
  usersVersion(): Promise<number>;
  addLoginCode(
    codeHash: string,
    user: string,
    expiresAt: number,
  ): Promise<void>;
  /** A code's user when it is valid (unexpired, unused), without spending it. */
  peekLoginCode(codeHash: string, now: number): Promise<string | undefined>;
  /** Spends a code: the user's name when it was valid (unexpired, unused), else undefined. */
  redeemLoginCode(codeHash: string, now: number): Promise<string | undefined>;
  grant(grant: SessionGrant): Promise<void>;
  revoke(sessionId: string, user: string): Promise<boolean>;
  grantsOf(sessionId: string): Promise<SessionGrant[]>;
  audit(entry: AuditEntry): Promise<void>;
  auditLog(filter: AuditFilter): Promise<AuditEntry[]>;
}

/** The name rule (pattern, reserved and look-alike names) lives in shared/user-names.ts. */
export { USER_NAME_PATTERN } from "../shared/user-names.js";

/** The refusal of any change to an owner's grant by sharing (the share writer's and the store's). */
export function ownerGrantUnchanged(user: string, sessionId: string): HubError {
  return new HubError(
    "USAGE",
    `${user} owns session ${sessionId}: an owner's access is not changed by sharing`,
  );
}
/** The serve token's holder, the built-in admin: no stored user may take this name. */
export const BUILTIN_ADMIN = "admin";

/** Who a request is: a stored user, or the serve token's holder (the built-in admin). */
export interface HubUser {
  name: string;
  role: UserRole;
}

/**
 * The user who chose a permission answer, stamped by the hub on the answer's outcome object. A
 * symbol: no client can send it, and it never reaches the wire (JSON leaves symbols out).
 */
export const ANSWERED_BY: unique symbol = Symbol("acphub.answeredBy");

/**
 * Whose remembered decision an "always" answer becomes (issue 34): the answering user's, and
 * only when the session is theirs. An answer in another user's session holds for that request
 * (and its turn) only: undefined, nothing is remembered.
 */
export function rememberedFor(
  answeredBy: string,
  sessionOwner: string,
): string | undefined {
  return answeredBy === sessionOwner ? answeredBy : undefined;
}
