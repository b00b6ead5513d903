// Managing the hub's users (issue 22) for `acphub users …`: names checked, tokens made and
// stored hashed, the last admin kept when no serve token stands in, one-time login links, and
// every change written to the audit log.
import { existsSync, readFileSync } from "node:fs";
import {
  CLI_ACTOR,
  USER_ROLES,
  type Actor,
  type UserLimits,
  type UserRecord,
  type UserRole,
  type UserStore,
} from "../contracts/users.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import { hashSecret, newSecret } from "../shared/user-token.js";
import { userNameProblem } from "../shared/user-names.js";
import { defaultTokenFile } from "../server/token.js";
import { LOGIN_CODE_TTL_MS } from "../server/web-auth.js";
import { join } from "node:path";
import { auditWriter } from "./audit-log.js";

export interface NewToken {
  name: string;
  role: UserRole;
  token: string;
}

// A name the ledger may keep: the name rule, not reserved, not like an existing user's.
export function checkUserName(name: string, existing: string[] = []): void {
  const problem = userNameProblem(name, existing);
  if (problem !== undefined) throw new HubError("USAGE", problem);
}

// The role a command line names, or a clear refusal.
export function roleOf(value: string | undefined): UserRole {
  const role = value ?? "member";
  if (!(USER_ROLES as readonly string[]).includes(role))
    throw new HubError(
      "USAGE",
      `invalid role ${JSON.stringify(role)}: one of ${USER_ROLES.join(", ")}`,
    );
  return role as UserRole;
}

// Adds a user with a fresh token, returned once (only its hash is kept).
export async function addUser(
  store: UserStore,
  name: string,
  role: UserRole,
  by: Actor = CLI_ACTOR,
): Promise<NewToken> {
  checkUserName(
    name,
    (await store.listUsers()).map((u) => u.name),
  );
  const token = newSecret();
  await storeUser(store, newUser(name, role, token), by);
  return { name, role, token };
}

// A user record with a token's hash (the token itself is never kept).
export function newUser(
  name: string,
  role: UserRole,
  token: string,
): UserRecord {
  return {
    name,
    role,
    tokenHash: hashSecret(token),
    createdAt: Date.now(),
    limits: null,
  };
}

// The one place a new user is written (the command line's, and a trusted proxy's through the
// users directory), audited as added by `by`; the name was checked by the caller.
export async function storeUser(
  store: UserStore,
  user: UserRecord,
  by: Actor,
): Promise<void> {
  await store.addUser(user);
  await auditWriter(store).record(by, "user.add", null, {
    name: user.name,
    role: user.role,
  });
}

// A stored user, or the error every command gives for an unknown one.
export async function requireUser(
  store: UserStore,
  name: string,
): Promise<UserRecord> {
  const user = await store.getUser(name);
  if (!user)
    throw new HubError("USAGE", `no user named ${JSON.stringify(name)}`);
  return user;
}

// Refuses to take away the last admin when no serve token stands in: no one could manage users
// over the hub any more.
async function keepLastAdmin(
  store: UserStore,
  name: string,
  instead: string,
): Promise<void> {
  const admins = (await store.listUsers()).filter((u) => u.role === "admin");
  if (admins.length <= 1)
    throw new HubError(
      "USAGE",
      `${name} is the last admin and there is no serve token (no serve-token file, no ACPHUB_TOKEN): ${instead}`,
    );
}

// Removes a user; the last admin stays unless a serve token can still administer the hub.
export async function removeUser(
  store: UserStore,
  name: string,
  serveTokenExists: boolean,
  by: Actor = CLI_ACTOR,
): Promise<void> {
  const user = await requireUser(store, name);
  if (user.role === "admin" && !serveTokenExists)
    await keepLastAdmin(store, name, "add another admin first");
  await store.removeUser(name);
  await audit(store, "user.remove", { name }, by);
}

/** What `acphub users role` (and `_acphub/users/role`) did. */
export interface RoleChange {
  name: string;
  role: UserRole;
  previous: UserRole;
}

// Changes a user's role in place: token, shares, limits and login stay (removing and re-adding
// would lose them). The last admin keeps the role unless a serve token can still administer the
// hub, as for removal: otherwise no one could manage users over the hub. Audited as `by`.
export async function setUserRole(
  store: UserStore,
  name: string,
  role: string,
  serveTokenExists: boolean,
  by: Actor = CLI_ACTOR,
): Promise<RoleChange> {
  const next = roleOf(role);
  const user = await requireUser(store, name);
  const change = { name, role: next, previous: user.role };
  if (user.role === next) return change;
  if (user.role === "admin" && !serveTokenExists)
    await keepLastAdmin(store, name, "make another user admin first");
  if (!(await store.setRole(name, next)))
    throw new HubError("USAGE", `no user named ${JSON.stringify(name)}`);
  await auditWriter(store).record(by, "user.role", null, {
    name,
    role: next,
    previous: user.role,
  });
  return change;
}

// `_acphub/users/role` from an admin over the hub: its params checked, then the command line's
// change. The hub always has a serve token, so the last admin may step down there.
export function setUserRoleOverHub(
  store: UserStore,
  by: Actor,
  name: unknown,
  role: unknown,
): Promise<RoleChange> {
  if (typeof name !== "string" || typeof role !== "string")
    throw new HubError(
      "USAGE",
      `${HUB_METHOD.usersRole} takes {name, role}: a user's name and one of ${USER_ROLES.join(", ")}`,
    );
  return setUserRole(store, name, role, true, by);
}

// Gives a user a new token; the old one stops working at once.
export async function rotateUser(
  store: UserStore,
  name: string,
): Promise<NewToken> {
  const user = await requireUser(store, name);
  const token = newSecret();
  await store.setTokenHash(name, hashSecret(token));
  await audit(store, "user.rotate", { name });
  return { name, role: user.role, token };
}

/** The quota limits `acphub users limits` may set on a user. */
export const USER_LIMIT_KEYS = [
  "concurrentTurns",
  "liveSessions",
  "promptsPerMinute",
  "promptBytes",
  "agentProcesses",
] as const;

/** The command line's flag for each limit. */
const LIMIT_FLAGS: Record<keyof UserLimits, string> = {
  concurrentTurns: "--concurrent-turns",
  liveSessions: "--live-sessions",
  promptsPerMinute: "--prompts-per-minute",
  promptBytes: "--prompt-bytes",
  agentProcesses: "--agent-processes",
};

// The limits `acphub users limits` was given (by their option names), each a whole number
// above 0; a bad one is refused naming its flag.
export function limitsFromFlags(
  o: Partial<Record<keyof UserLimits, string>>,
): UserLimits {
  const limits: UserLimits = {};
  for (const [key, flag] of Object.entries(LIMIT_FLAGS)) {
    const raw = o[key as keyof UserLimits];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n <= 0)
      throw new HubError(
        "USAGE",
        `${flag} ${JSON.stringify(raw)}: give a whole number above 0`,
      );
    limits[key as keyof UserLimits] = n;
  }
  return limits;
}

// The limits `_acphub/users/limits` was given ({liveSessions: 3, …}): each a known limit and a
// whole number above 0, checked as the command line's flags are.
export function limitsFromParams(value: unknown): UserLimits {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new HubError(
      "USAGE",
      `limits must be an object of ${USER_LIMIT_KEYS.join(", ")}`,
    );
  const limits: UserLimits = {};
  for (const [key, n] of Object.entries(value as Record<string, unknown>)) {
    if (!USER_LIMIT_KEYS.includes(key as keyof UserLimits))
      throw new HubError(
        "USAGE",
        `unknown limit ${JSON.stringify(key)}: one of ${USER_LIMIT_KEYS.join(", ")}`,
      );
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0)
      throw new HubError(
        "USAGE",
        `invalid limit ${key}=${JSON.stringify(n)}: a whole number above 0`,
      );
    limits[key as keyof UserLimits] = n;
  }
  return limits;
}

// Sets a user's own quota limits (merged into what they had; `clear` first drops them all);
// a running hub reads them within a second.
export async function setUserLimits(
  store: UserStore,
  name: string,
  limits: UserLimits,
  clear = false,
  by: Actor = CLI_ACTOR,
): Promise<UserLimits> {
  const user = await requireUser(store, name);
  const next: UserLimits = { ...(clear ? {} : user.limits), ...limits };
  for (const [key, value] of Object.entries(next))
    if (!USER_LIMIT_KEYS.includes(key as keyof UserLimits))
      delete next[key as keyof UserLimits];
    else if (!Number.isSafeInteger(value) || value <= 0)
      throw new HubError(
        "USAGE",
        `invalid limit ${key}=${JSON.stringify(value)}: a whole number above 0`,
      );
  const empty = Object.keys(next).length === 0;
  await store.setLimits(name, empty ? null : next);
  await audit(store, "user.limits", { name, limits: next }, by);
  return next;
}

// A one-time web login URL (15 minutes) that a running hub honours: the code is in the ledger.
export async function loginLink(
  store: UserStore,
  name: string,
  baseUrl: string,
  by: Actor = CLI_ACTOR,
): Promise<{ name: string; url: string; expiresAt: number }> {
  await requireUser(store, name);
  const code = newSecret();
  const expiresAt = Date.now() + LOGIN_CODE_TTL_MS;
  await store.addLoginCode(hashSecret(code), name, expiresAt);
  await audit(store, "user.login-link", { name }, by);
  return { name, url: `${baseUrl}/login?code=${code}`, expiresAt };
}

// A change to users, in the audit log (the command line's unless another actor is named).
function audit(
  store: UserStore,
  action: string,
  detail: Record<string, unknown>,
  by: Actor = CLI_ACTOR,
): Promise<void> {
  return auditWriter(store).record(by, action, null, detail);
}

/** Where `acphub serve` writes the URL it listens on, for login links. */
export function serveUrlFile(stateDir: string): string {
  return join(stateDir, "serve-url");
}

// The hub's URL for a login link: --url, else the one the running serve wrote, else the default.
export function hubBaseUrl(
  stateDir: string,
  given: string | undefined,
): string {
  if (given) return given.replace(/\/+$/, "");
  try {
    return readFileSync(serveUrlFile(stateDir), "utf8").trim();
  } catch {
    return "http://127.0.0.1:8787";
  }
}

/** True when a serve token can administer the hub (the state folder's file, or ACPHUB_TOKEN). */
export function serveTokenExists(stateDir: string): boolean {
  return (
    existsSync(defaultTokenFile(stateDir)) ||
    process.env["ACPHUB_TOKEN"] !== undefined
  );
}
