// The answers of the admin page's methods (`_acphub/users/*`, `_acphub/usage`, `_acphub/audit`,
// `_acphub/nodes`; rows in hub-extension.ts), shared by the hub, the command line and the web
// page. Pure types: the browser bundle imports this file.

/** A user as `_acphub/users/list` answers (times in ms since the epoch). */
export interface AdminUser {
  name: string;
  role: string;
  createdAt: number;
  /** Their newest audit entry (a login, a prompt, …), when there is one. */
  lastSeen?: number;
  /** Their own quota limits (config `users.limits` applies to the rest). */
  limits: Record<string, number>;
}

/** What a new user gets once: their token and a one-time login link. */
export interface AddedUser {
  name: string;
  role: string;
  token: string;
  url: string;
  expiresAt: number;
}

/** A one-time web login link (`_acphub/users/login`). */
export interface LoginLinkAnswer {
  name: string;
  url: string;
  expiresAt: number;
}

/** Tokens and cost, as used or left. */
export interface Amounts {
  tokens?: number;
  cost?: number;
  currency?: string | null;
}

/** A budget as it stands now: its limit, what was used, what is left, when it resets. */
export interface BudgetView {
  /** The config key it comes from (the name, or "*"). */
  key: string;
  period: "day" | "month";
  limit: { tokens?: number; cost?: number };
  used: { tokens: number; cost: number; currency: string | null };
  /** Never below 0; only the amounts the budget limits. */
  left: { tokens?: number; cost?: number };
  /** When the period ends (ms since the epoch, UTC). */
  resetsAt: number;
}

/** One user's usage in `_acphub/usage`: within their budget's period (else today, UTC). */
export interface UserUsage {
  user: string;
  /** The period the figures cover: their budget's, or the UTC day without one. */
  period: "day" | "month";
  turns: number;
  tokens: number;
  cost: number;
  currency: string | null;
  budget?: BudgetView;
}

/** `_acphub/usage`'s answer. */
export interface UsageAnswer {
  users: UserUsage[];
  now: number;
}

/** An entry of the audit log as `_acphub/audit` pages it. */
export interface AuditRow {
  at: number;
  user: string;
  action: string;
  sessionId: string | null;
  detail: Record<string, unknown> | null;
}

/** `_acphub/audit`'s answer: newest first; `more` when older entries match too. */
export interface AuditPage {
  entries: AuditRow[];
  more: boolean;
}

/** A node as `_acphub/nodes` answers. */
export interface NodeView {
  id: string;
  url: string;
  heartbeatAgeMs: number;
  alive: boolean;
  draining: boolean;
  sessions: number;
  running: number;
  /** The node that answered. */
  self: boolean;
}

/** `_acphub/nodes`' answer; `cluster` false on a single hub (one node: itself). */
export interface NodesAnswer {
  nodes: NodeView[];
  cluster: boolean;
}
