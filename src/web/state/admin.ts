// The admin page's requests (issue 38), each one of the hub's `_acphub/*` methods the command
// line's own functions answer; the page's words for amounts and times.
import type { Params } from "../acp/hub-client.js";
import type {
  AddedUser,
  AdminUser,
  AuditPage,
  BudgetView,
  LoginLinkAnswer,
  NodesAnswer,
  UsageAnswer,
} from "../../shared/admin-answers.js";
import { HUB_METHOD } from "../../shared/hub-extension.js";

/** What the admin views need of the store: its requests. */
export interface Asker {
  request<T = Params>(method: string, params: Params): Promise<T>;
}

const M = HUB_METHOD;

/** The admin methods, typed. */
export const admin = {
  users: (a: Asker) => a.request<{ users: AdminUser[] }>(M.usersList, {}),
  add: (a: Asker, name: string, role: string) =>
    a.request<AddedUser>(M.usersAdd, { name, role }),
  remove: (a: Asker, name: string) => a.request(M.usersRemove, { name }),
  role: (a: Asker, name: string, role: string) =>
    a.request(M.usersRole, { name, role }),
  login: (a: Asker, name: string) =>
    a.request<LoginLinkAnswer>(M.usersLogin, { name }),
  limits: (a: Asker, name: string, limits: Params, clear = false) =>
    a.request<{ limits: Record<string, number>; defaults: Params }>(
      M.usersLimits,
      { name, limits, clear },
    ),
  usage: (a: Asker, user?: string) =>
    a.request<UsageAnswer>(M.usage, user ? { user } : {}),
  audit: (a: Asker, filter: Params) => a.request<AuditPage>(M.audit, filter),
  nodes: (a: Asker) => a.request<NodesAnswer>(M.nodes, {}),
};

/** The quota limits an admin may set on a user, with their labels. */
export const LIMIT_LABELS: [string, string][] = [
  ["liveSessions", "Live sessions"],
  ["concurrentTurns", "Concurrent turns"],
  ["promptsPerMinute", "Prompts per minute"],
  ["promptBytes", "Prompt bytes"],
  ["agentProcesses", "Agent processes"],
];

// A moment as people read it here.
export function when(ms: number | undefined): string {
  return ms === undefined ? "—" : new Date(ms).toLocaleString();
}

// "in 5 h 12 min" until a moment.
export function inTime(at: number, now: number): string {
  const mins = Math.max(1, Math.ceil((at - now) / 60_000));
  const h = Math.floor(mins / 60);
  const d = Math.floor(h / 24);
  if (d >= 2) return `in ${d} days`;
  const m = mins % 60;
  return h > 0 ? `in ${h} h${m ? ` ${m} min` : ""}` : `in ${mins} min`;
}

// "4,200 of 10,000 tokens · $0.12 of $1.00": what is left of a budget.
export function leftText(b: BudgetView): string {
  const parts: string[] = [];
  if (b.left.tokens !== undefined)
    parts.push(
      `${b.left.tokens.toLocaleString()} of ${b.limit.tokens?.toLocaleString()} tokens`,
    );
  if (b.left.cost !== undefined)
    parts.push(
      `${b.left.cost} of ${b.limit.cost}${b.used.currency ? ` ${b.used.currency}` : ""}`,
    );
  return parts.join(" · ");
}
