// acphub's own extension of ACP, in one table: the `_acphub/*` methods a hub client may call or
// hear (names, who may call them, params and results) and the keys of `_meta.acphub`. The hub
// (hub/extension-handlers.ts), the server and the web page all read their names from here, and
// docs/protocol.md lists the same rows (test/unit/hub-extension.test.ts keeps them in agreement).
// Pure data and types: the browser bundle imports this file (see docs/architecture.md).

/** The `_acphub/*` methods, by the name the code calls them. */
export const HUB_METHOD = {
  whoami: "_acphub/whoami",
  agents: "_acphub/agents",
  sessionsSearch: "_acphub/sessions/search",
  sessionReplay: "_acphub/session/replay",
  history: "_acphub/history",
  terminalOutput: "_acphub/terminal/output",
  sessionShare: "_acphub/session/share",
  sessionUnshare: "_acphub/session/unshare",
  sessionGrants: "_acphub/session/grants",
  sessionState: "_acphub/session/state",
  sessionsChanged: "_acphub/sessions/changed",
  usersRole: "_acphub/users/role",
  secretsSet: "_acphub/secrets/set",
  secretsList: "_acphub/secrets/list",
  secretsRemove: "_acphub/secrets/remove",
  queueRevoke: "_acphub/queue/revoke",
  sessionsMove: "_acphub/sessions/move",
  usersList: "_acphub/users/list",
  usersAdd: "_acphub/users/add",
  usersRemove: "_acphub/users/remove",
  usersLogin: "_acphub/users/login",
  usersLimits: "_acphub/users/limits",
  usage: "_acphub/usage",
  audit: "_acphub/audit",
  nodes: "_acphub/nodes",
} as const;

export type HubMethodName = keyof typeof HUB_METHOD;
export type HubMethod = (typeof HUB_METHOD)[HubMethodName];

/** Who may call a request, checked once before its handler runs (hub/extension-handlers.ts):
 *  anyone connected; a user who may see the session; one with the session open on this
 *  connection; the session's owner or an admin; an admin only (about a session or none). A
 *  notification says whom the hub tells. */
export type HubCaller =
  "anyone" | "sees" | "attached" | "owner" | "admin" | "watchers";

export interface HubExtensionRow {
  method: HubMethod;
  kind: "request" | "notification";
  caller: HubCaller;
  /** The params, as docs/protocol.md shows them. */
  params: string;
  /** The result (a request) or nothing (a notification). */
  result: string;
  /** What it does, in a line. */
  does: string;
}

const M = HUB_METHOD;

/** Every method of the extension, in the order docs/protocol.md lists them. */
// prettier-ignore
export const HUB_EXTENSION: readonly HubExtensionRow[] = [
  { method: M.whoami, kind: "request", caller: "anyone", params: "{}", result: "{name, role}", does: "the connection's user (the built-in admin on a hub without users)" },
  { method: M.agents, kind: "request", caller: "anyone", params: "{}", result: "{agents, cwd?}", does: "the agents this user may start, each with how it runs, and the folder their sessions start in (a member's first root)" },
  { method: M.sessionsSearch, kind: "request", caller: "anyone", params: "{query}", result: "{sessionIds}", does: "the sessions the user may see whose title or text holds the words, newest first (bounded)" },
  { method: M.sessionReplay, kind: "request", caller: "attached", params: "{sessionId, afterSeq?}", result: "{updates, lastSeq, running}", does: "the updates after a seq, and whether a turn runs" },
  { method: M.history, kind: "request", caller: "sees", params: "{sessionId, from?, afterSeq?, beforeSeq?, limit?, maxBytes?}", result: "{updates, firstSeq, lastSeq, more}", does: "a session's history a page at a time, from the ledger" },
  { method: M.terminalOutput, kind: "request", caller: "attached", params: "{sessionId, terminalId}", result: "{output, truncated, exitStatus?}", does: "the output of a terminal the hub's host runs for the session's agent" },
  { method: M.sessionShare, kind: "request", caller: "owner", params: "{sessionId, user, role?}", result: "{sessionId, user, role}", does: "shares the session with a user as viewer (default) or driver; audited" },
  { method: M.sessionUnshare, kind: "request", caller: "owner", params: "{sessionId, user}", result: "{removed}", does: "ends a user's share; their connections are detached; audited" },
  { method: M.sessionGrants, kind: "request", caller: "sees", params: "{sessionId}", result: "{grants}", does: "who has access to the session (refused, -32601, on a hub without users)" },
  { method: M.queueRevoke, kind: "request", caller: "sees", params: "{sessionId, queueId}", result: "{queueId, revoked}", does: "revokes a queued prompt before it runs: by its author, the session's owner or an admin; audited" },
  { method: M.sessionsMove, kind: "request", caller: "admin", params: "{sessionId, node}", result: "{sessionId, node, from?}", does: "moves an idle session's agent to a live node of a cluster (admins); refused while a turn runs" },
  { method: M.sessionState, kind: "notification", caller: "watchers", params: "{sessionId, running, stopReason?, error?}", result: "", does: "a turn started or ended (and an ended turn's `interrupted`, `node`), to the watching clients attached to it" },
  { method: M.sessionsChanged, kind: "notification", caller: "watchers", params: "{sessionId, running, state, askedOf?, title?}", result: "", does: "a session was created, renamed, prompted, finished, shared or deleted, to every watching client that may see it" },
  { method: M.usersRole, kind: "request", caller: "admin", params: "{name, role}", result: "{name, role, previous}", does: "changes a user's role in place (token, shares, limits kept), as `acphub users role` does; audited" },
  { method: M.secretsSet, kind: "request", caller: "anyone", params: "{name, value, user?}", result: "{user, name, updatedAt}", does: "sets one of a user's secrets (never answered back): an admin anyone's, a member their own, not a viewer; audited" },
  { method: M.secretsList, kind: "request", caller: "anyone", params: "{user?}", result: "{user, secrets}", does: "a user's secrets as [{name, updatedAt}], never their values (an admin: anyone's; others: their own)" },
  { method: M.secretsRemove, kind: "request", caller: "anyone", params: "{name, user?}", result: "{user, removed}", does: "removes one of a user's secrets (an admin: anyone's; others: their own); audited" },
  { method: M.usersList, kind: "request", caller: "admin", params: "{}", result: "{users}", does: "the hub's users: name, role, created, last seen (their newest audit entry), own limits, as `acphub users list` does" },
  { method: M.usersAdd, kind: "request", caller: "admin", params: "{name, role?}", result: "{name, role, token, url, expiresAt}", does: "adds a user (member by default) with a token and a one-time login link, both shown once; audited" },
  { method: M.usersRemove, kind: "request", caller: "admin", params: "{name}", result: "{removed}", does: "removes a user: their logins, connections and agent processes end, as `acphub users remove` does; not yourself, not the last admin; audited" },
  { method: M.usersLogin, kind: "request", caller: "admin", params: "{name}", result: "{name, url, expiresAt}", does: "a one-time web login link for a user (15 minutes), as `acphub users login-link` makes; audited" },
  { method: M.usersLimits, kind: "request", caller: "admin", params: "{name, limits?, clear?}", result: "{name, limits, defaults}", does: "a user's own quota limits, read or changed (merged; `clear` first drops them), as `acphub users limits` does; audited" },
  { method: M.usage, kind: "request", caller: "anyone", params: "{user?}", result: "{users, now}", does: "each user's usage in their budget's period, the budget, what is left and when it resets (an admin: everyone's; others: their own)" },
  { method: M.audit, kind: "request", caller: "admin", params: "{user?, sessionId?, action?, since?, until?, offset?, limit?}", result: "{entries, more}", does: "the audit log, newest first, filtered and a page at a time, as `acphub audit` reads it" },
  { method: M.nodes, kind: "request", caller: "admin", params: "{}", result: "{nodes, cluster}", does: "the nodes of a cluster and their health (heartbeat age, draining, sessions run); on a single node, that one, as `acphub nodes list` shows" },
];

/** The row of a method of the extension, if it is one. */
export function hubExtensionRow(method: string): HubExtensionRow | undefined {
  return HUB_EXTENSION.find((row) => row.method === method);
}

/** `_acphub/whoami`'s answer. */
export interface Whoami {
  name: string;
  role: string;
}

/** `_acphub/agents`'s answer (each agent as app/serve-agents.ts describes it). */
export interface AgentsAnswer {
  agents: unknown[];
  cwd?: string;
}

/** `_acphub/sessions/search`'s answer. */
export interface SearchAnswer {
  sessionIds: string[];
}

/** `_acphub/session/replay`'s answer. */
export interface ReplayAnswer {
  updates: Record<string, unknown>[];
  lastSeq: number;
  running: boolean;
}

/** `_acphub/history`'s answer: updates each with `_meta.acphub.seq`; null seqs: an empty page. */
export interface HistoryAnswer {
  updates: Record<string, unknown>[];
  firstSeq: number | null;
  lastSeq: number | null;
  /** The ledger holds events beyond the page in the direction read. */
  more: boolean;
}

/** The key of acphub's namespace inside `_meta`. */
export const OWN_META_KEY = "acphub";

/** The keys of `_meta.acphub`, each where it appears. Only acphub speaks this namespace: an
 *  agent's own is removed before anything stores or relays it (protocol/own-meta.ts). */
export interface OwnMeta {
  /** initialize `clientCapabilities._meta` (client → hub): send the watch notifications. */
  watch?: boolean;
  /** session/new params (client → hub): the agent to start; session/list entries (hub → client). */
  agent?: string;
  /** session/resume params (client → hub): send what came after this seq first. */
  afterSeq?: number;
  /** session/prompt params (client → hub): a key already seen is answered, not run again. */
  idempotencyKey?: string;
  /** Every session/update the hub relays (hub → client): its sequence number in the ledger. */
  seq?: number;
  /** A prompt's user_message_chunk on a hub with users (hub → client): who sent it. */
  author?: string;
  /** acphub's own notice in an agent_message_chunk (`[acphub] …`). */
  notice?: { severity?: string };
  /** An idempotent prompt's answer from the ledger (hub → client). */
  replayed?: boolean;
  promptSeq?: number;
  /** The recorded turn's runner died mid-turn (answered `cancelled`): `outcome: "unknown"`, the
   *  agent may have acted before it stopped; `ranOn`: the node that ran it, when known. */
  interrupted?: boolean;
  outcome?: string;
  ranOn?: string;
  /** session/list entries (hub → client): a turn runs; running, waiting, failed or idle; who
   *  holds an open question. */
  running?: boolean;
  state?: string;
  askedOf?: string;
  /** A workflow run's session, its steps' updates and sessions. */
  workflow?: string;
  step?: string;
  parentSession?: string;
  /** A continued workflow run's step finished in an earlier attempt (its final status at once). */
  doneEarlier?: boolean;
  /** A session/request_permission answer (client → hub): "policy" when the client's policy
   *  answered (`run --hub`), not a person; `reason` says which rule or mode. */
  decidedBy?: string;
  reason?: string;
  /** A notice to a client whose permission answer came too late (hub → client): who was first. */
  answeredBy?: string;
  /** session/prompt params (client → hub): while a turn runs, wait for it instead of refusing. */
  queue?: boolean;
  /** A queued prompt's notice (hub → client): it joined the line — its id, prompt and author. */
  queued?: { queueId: string; prompt: unknown[]; author?: string };
  /** A queued prompt's notice (hub → client): it left the line — started, revoked or dropped. */
  dequeued?: { queueId: string; reason: string; by?: string };
  /** A queued prompt's answer (hub → client): its line id; `revoked` when it never ran. */
  queueId?: string;
  revoked?: boolean;
  /** session/new, load, resume and fork answers on a hub with users (hub → client): whose agent
   *  process, with whose credentials, runs the session (its owner's). */
  runsAs?: string;
}

/** The `_meta.acphub` keys, as docs/protocol.md lists them. */
export const OWN_META_KEYS: readonly (keyof OwnMeta)[] = [
  "watch",
  "agent",
  "afterSeq",
  "idempotencyKey",
  "seq",
  "author",
  "notice",
  "replayed",
  "promptSeq",
  "interrupted",
  "running",
  "state",
  "askedOf",
  "workflow",
  "step",
  "parentSession",
  "doneEarlier",
  "decidedBy",
  "reason",
  "outcome",
  "ranOn",
  "answeredBy",
  "queue",
  "queued",
  "dequeued",
  "queueId",
  "revoked",
  "runsAs",
];

type Params = Record<string, unknown>;

/** `_meta.acphub` of a `_meta` value, as sent (an empty object when there is none). */
export function ownMetaOf(meta: unknown): OwnMeta & Params {
  const own = (meta as Params | null | undefined)?.[OWN_META_KEY];
  return own !== null && typeof own === "object" ? (own as Params) : {};
}

/** A `_meta` value with `keys` added to its `acphub` namespace (everything else kept). */
export function withOwnMeta(meta: unknown, keys: OwnMeta): Params {
  const base =
    meta !== null && typeof meta === "object" ? (meta as Params) : {};
  return { ...base, [OWN_META_KEY]: { ...ownMetaOf(base), ...keys } };
}
