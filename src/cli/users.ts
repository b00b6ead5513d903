// `acphub users add|list|remove|rotate|login-link|limits`: the hub's users, kept in the ledger.
import type { GlobalOptions } from "../app/context.js";
import {
  addUser,
  hubBaseUrl,
  loginLink,
  removeUser,
  roleOf,
  rotateUser,
  serveTokenExists,
  setUserLimits,
  requireUser,
  type NewToken,
} from "../app/user-admin.js";
import { withUserStore } from "../app/user-store.js";
import type { UserLimits, UserStore } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";
import type { ExitCode } from "./exit-codes.js";
import { out, withContext } from "./guard.js";

export interface UsersOptions extends GlobalOptions {
  json?: boolean;
  role?: string;
  url?: string;
  concurrentTurns?: string;
  liveSessions?: string;
  promptsPerMinute?: string;
  promptBytes?: string;
  agentProcesses?: string;
  clear?: boolean;
}

/** The command line's flag for each limit. */
const LIMIT_FLAGS: Record<keyof UserLimits, string> = {
  concurrentTurns: "--concurrent-turns",
  liveSessions: "--live-sessions",
  promptsPerMinute: "--prompts-per-minute",
  promptBytes: "--prompt-bytes",
  agentProcesses: "--agent-processes",
};

// The limits given on the command line, each a whole number above 0.
function limitsGiven(o: UsersOptions): UserLimits {
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

// Opens the ledger's user store, runs the command, closes; an error is one line and its code.
function withUsers(
  options: GlobalOptions,
  body: (store: UserStore, stateDir: string) => Promise<void>,
): Promise<ExitCode> {
  return withContext(options, (ctx) =>
    withUserStore(ctx, (store) => body(store, ctx.paths.stateDir)),
  );
}

// The token is shown once: afterwards only its hash exists.
function printToken(t: NewToken, json: boolean | undefined): void {
  if (json) return out(`${JSON.stringify(t)}\n`);
  out(
    `user ${t.name} (${t.role}); token (shown once, keep it safe):\n${t.token}\n`,
  );
}

export function usersAdd(name: string, o: UsersOptions): Promise<ExitCode> {
  return withUsers(o, async (store) => {
    printToken(await addUser(store, name, roleOf(o.role)), o.json);
  });
}

export function usersList(o: UsersOptions): Promise<ExitCode> {
  return withUsers(o, async (store) => {
    const users = (await store.listUsers()).map((u) => ({
      name: u.name,
      role: u.role,
      createdAt: new Date(u.createdAt).toISOString(),
    }));
    if (o.json) return out(`${JSON.stringify(users)}\n`);
    if (users.length === 0)
      return out("no users (the serve token is the only credential)\n");
    for (const u of users)
      out(`${u.name.padEnd(24)} ${u.role.padEnd(7)} ${u.createdAt}\n`);
  });
}

export function usersRemove(name: string, o: UsersOptions): Promise<ExitCode> {
  return withUsers(o, async (store, stateDir) => {
    await removeUser(store, name, serveTokenExists(stateDir));
    out(
      o.json ? `${JSON.stringify({ removed: name })}\n` : `removed ${name}\n`,
    );
  });
}

export function usersRotate(name: string, o: UsersOptions): Promise<ExitCode> {
  return withUsers(o, async (store) => {
    printToken(await rotateUser(store, name), o.json);
  });
}

export function usersLoginLink(
  name: string,
  o: UsersOptions,
): Promise<ExitCode> {
  return withUsers(o, async (store, stateDir) => {
    const link = await loginLink(store, name, hubBaseUrl(stateDir, o.url));
    if (o.json)
      return out(
        `${JSON.stringify({ ...link, expiresAt: new Date(link.expiresAt).toISOString() })}\n`,
      );
    out(`${link.url}\n(one browser, once, within 15 minutes)\n`);
  });
}

// Shows a user's own quota limits, or sets them (merged; --clear drops the old ones first).
export function usersLimits(name: string, o: UsersOptions): Promise<ExitCode> {
  return withUsers(o, async (store) => {
    const given = limitsGiven(o);
    const limits =
      Object.keys(given).length > 0 || o.clear
        ? await setUserLimits(store, name, given, o.clear)
        : ((await requireUser(store, name)).limits ?? {});
    if (o.json) return out(`${JSON.stringify({ name, limits })}\n`);
    const shown = Object.entries(limits).map(([k, v]) => `${k}=${v}`);
    out(
      `${name}: ${shown.length ? shown.join(" ") : "no limits of their own (config users.limits applies)"}\n`,
    );
  });
}
