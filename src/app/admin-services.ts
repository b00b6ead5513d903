// The admin page's services (issue 38), over the command line's own functions (user-admin.ts,
// audit-log.ts, the budgets' status): each change as the calling admin, audited, then the
// running hub's users directory reloaded so it takes effect at once (a removed user's logins,
// connections and agent processes end through its revocation).
import { hostname } from "node:os";
import type { Params } from "../protocol/raw.js";
import type { Actor, UserStore } from "../contracts/users.js";
import type { NodeRow } from "../contracts/cluster-store.js";
import type { LedgerPort } from "../engine/ports.js";
import type { AdminServices } from "../hub/admin-handlers.js";
import type { AppContext } from "../config/context.js";
import { HubError } from "../shared/errors.js";
import { HUB_METHOD } from "../shared/hub-extension.js";
import type { NodeView, UserUsage } from "../shared/admin-answers.js";
import { DEFAULT_LEASE_MS } from "../cluster/index.js";
import { periodUse } from "../telemetry/budget-status.js";
import { budgetClock } from "../telemetry/budget-usage.js";
import { auditFilter } from "./audit-log.js";
import {
  addUser,
  limitsFromParams,
  loginLink,
  removeUser,
  requireUser,
  roleOf,
  setUserLimits,
} from "./user-admin.js";
import { auditPage, lastSeenOf } from "./admin-audit.js";
import type { ServeUsers } from "./serve-users.js";

export interface AdminDeps {
  store: UserStore;
  people: ServeUsers;
  ledger: LedgerPort;
  /** The hub's URL, for login links. */
  baseUrl: () => string;
  /** The cluster's nodes (a PostgreSQL ledger); none: this hub is its one node. */
  listNodes?: () => Promise<NodeRow[]>;
  /** This node's id and what it runs, for the single node's row and `self`. */
  here: () => { id: string; sessions: number; running: number };
}

// A param that must be a user's name.
function nameParam(method: string, params: Params): string {
  const name = params["name"];
  if (typeof name !== "string" || name === "")
    throw new HubError("USAGE", `${method} takes {name}: a user's name`);
  return name;
}

// Refuses taking the last admin user away over the hub (removal or another role): the page
// would leave no user who can manage users there.
export async function keepAnAdmin(
  store: UserStore,
  name: string,
  doing: string,
): Promise<void> {
  const users = await store.listUsers();
  const admins = users.filter((u) => u.role === "admin");
  if (admins.length === 1 && admins[0]!.name === name)
    throw new HubError(
      "USAGE",
      `${name} is the last admin: ${doing} would leave no user who can manage the hub; make another user admin first`,
    );
}

// The services the hub's admin methods call.
export function adminServices(ctx: AppContext, d: AdminDeps): AdminServices {
  const { store, people } = d;
  const reload = () => people.directory.refresh();
  return {
    listUsers: async () => {
      const users = await store.listUsers();
      const out = [];
      for (const u of users) {
        const seen = await lastSeenOf(store, u.name);
        out.push({
          name: u.name,
          role: u.role,
          createdAt: u.createdAt,
          ...(seen === undefined ? {} : { lastSeen: seen }),
          limits: { ...(u.limits ?? {}) } as Record<string, number>,
        });
      }
      return { users: out };
    },
    addUser: async (by, params) => {
      const name = nameParam(HUB_METHOD.usersAdd, params);
      const role = params["role"];
      if (role !== undefined && typeof role !== "string")
        throw new HubError(
          "USAGE",
          `${HUB_METHOD.usersAdd}: role is admin, member or viewer`,
        );
      const made = await addUser(store, name, roleOf(role), by);
      await reload();
      const link = await loginLink(store, name, d.baseUrl(), by);
      return { ...made, url: link.url, expiresAt: link.expiresAt };
    },
    removeUser: async (by, params) => {
      const name = nameParam(HUB_METHOD.usersRemove, params);
      if (name === by.user)
        throw new HubError(
          "USAGE",
          `you cannot remove yourself (${name}): another admin can, or \`acphub users remove ${name}\` on the hub's machine`,
        );
      await requireUser(store, name);
      await keepAnAdmin(store, name, "removing them");
      await removeUser(store, name, true, by);
      await reload();
      return { removed: name };
    },
    loginLink: async (by, params) => {
      const name = nameParam(HUB_METHOD.usersLogin, params);
      return loginLink(store, name, d.baseUrl(), by);
    },
    limits: (by, params) => changeLimits(ctx, store, by, params, reload),
    usage: (users) => usageOf(ctx, d, users),
    audit: (params) => auditPage(store, params, auditFilter),
    nodes: () => nodesOf(ctx, d),
  };
}

// `_acphub/users/limits`: read (no limits given) or changed as `acphub users limits` does.
async function changeLimits(
  ctx: AppContext,
  store: UserStore,
  by: Actor,
  params: Params,
  reload: () => Promise<void>,
): Promise<unknown> {
  const name = nameParam(HUB_METHOD.usersLimits, params);
  const given = limitsFromParams(params["limits"]);
  const clear = params["clear"] === true;
  const defaults = { ...(ctx.config.users?.limits ?? {}) };
  if (Object.keys(given).length === 0 && !clear) {
    const user = await requireUser(store, name);
    return { name, limits: user.limits ?? {}, defaults };
  }
  const limits = await setUserLimits(store, name, given, clear, by);
  await reload();
  return { name, limits, defaults };
}

// Each user's use in their budget's period, with the budget (left, resets).
async function usageOf(
  ctx: AppContext,
  d: AdminDeps,
  users: string[] | "all",
): Promise<{ users: UserUsage[]; now: number }> {
  const now = budgetClock()();
  const names =
    users === "all" ? (await d.store.listUsers()).map((u) => u.name) : users;
  if (users !== "all")
    for (const name of names) await requireUser(d.store, name);
  const budgets = ctx.config.limits?.budget;
  const uses = await periodUse(d.ledger, budgets, "users", names, now);
  return {
    now,
    users: uses.map((u) => ({
      user: u.name,
      period: u.period,
      turns: u.turns,
      tokens: u.tokens,
      cost: u.cost,
      currency: u.currency,
      ...(u.budget ? { budget: u.budget } : {}),
    })),
  };
}

// The cluster's nodes as `acphub nodes list` shows them; a single hub is its one node.
async function nodesOf(
  ctx: AppContext,
  d: AdminDeps,
): Promise<{ nodes: NodeView[]; cluster: boolean }> {
  const here = d.here();
  if (!d.listNodes) {
    const url = d.baseUrl();
    const id = here.id || `${hostname()}:${new URL(url).port}`;
    const node = { id, url, heartbeatAgeMs: 0, alive: true, draining: false };
    return {
      cluster: false,
      nodes: [
        { ...node, sessions: here.sessions, running: here.running, self: true },
      ],
    };
  }
  const leaseMs = ctx.config.cluster?.leaseMs ?? DEFAULT_LEASE_MS;
  const rows = await d.listNodes();
  return {
    cluster: true,
    nodes: rows.map((n) => ({
      id: n.id,
      url: n.url,
      heartbeatAgeMs: n.heartbeatAgeMs,
      alive: n.heartbeatAgeMs <= leaseMs,
      draining: n.draining,
      sessions: n.sessions,
      running: n.running,
      self: n.id === here.id,
    })),
  };
}
