// `acphub users add|list|remove|role|rotate|login-link|limits`: the hub's users, kept in the ledger.
import {
  addUser,
  hubBaseUrl,
  loginLink,
  removeUser,
  roleOf,
  rotateUser,
  serveTokenExists,
  setUserLimits,
  setUserRole,
  limitsFromFlags,
  requireUser,
  type NewToken,
} from "../app/user-admin.js";
import { withUserStore } from "../app/user-store.js";
import * as secrets from "../app/secret-commands.js";
import type { UserStore } from "../contracts/users.js";
import type { ExitCode } from "./exit-codes.js";
import { answer, out, withContext, type JsonOptions } from "./guard.js";

export interface UsersOptions extends JsonOptions {
  role?: string;
  url?: string;
  concurrentTurns?: string;
  liveSessions?: string;
  promptsPerMinute?: string;
  promptBytes?: string;
  agentProcesses?: string;
  clear?: boolean;
  fromFile?: string;
}

// Opens the ledger's user store, runs the command, closes; an error is one line and its code.
function withUsers(
  options: JsonOptions,
  body: (store: UserStore, stateDir: string) => Promise<void>,
): Promise<ExitCode> {
  return withContext(options, (ctx) =>
    withUserStore(ctx, (store) => body(store, ctx.paths.stateDir)),
  );
}

// The token is shown once: afterwards only its hash exists.
function printToken(t: NewToken, json: boolean | undefined): void {
  const said = `user ${t.name} (${t.role}); token (shown once, keep it safe):\n`;
  answer(json, t, `${said}${t.token}\n`);
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
    answer(o.json, { removed: name }, `removed ${name}\n`);
  });
}

export function usersRole(
  name: string,
  role: string,
  o: UsersOptions,
): Promise<ExitCode> {
  return withUsers(o, async (store, stateDir) => {
    const c = await setUserRole(store, name, role, serveTokenExists(stateDir));
    if (o.json) return out(`${JSON.stringify(c)}\n`);
    out(
      c.role === c.previous
        ? `${name} is already ${c.role}\n`
        : `${name}: ${c.previous} → ${c.role} (a running hub applies it within a second)\n`,
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
    const given = limitsFromFlags(o);
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

// `users secrets set|list|remove`: a user's secrets, never their values (issue 36).
export const secretsSet = (user: string, name: string, o: UsersOptions) =>
  withContext(o, async (ctx) => {
    const s = await secrets.setSecretCommand(ctx, user, name, o.fromFile);
    answer(o.json, s, `set ${name} for ${user} (value not shown)\n`);
  });

export const secretsList = (user: string, o: UsersOptions) =>
  withContext(o, async (ctx) => {
    const rows = await secrets.listSecretsCommand(ctx, user);
    if (o.json) return out(`${JSON.stringify(rows)}\n`);
    if (rows.length === 0) out(`${user} has no secrets\n`);
    for (const s of rows) out(`${s.name.padEnd(32)} ${s.updatedAt}\n`);
  });

export const secretsRemove = (user: string, name: string, o: UsersOptions) =>
  withContext(o, async (ctx) => {
    await secrets.removeSecretCommand(ctx, user, name);
    answer(o.json, { user, removed: name }, `removed ${name} of ${user}\n`);
  });
