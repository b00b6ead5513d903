// The hub's handlers of acphub's own requests (`_acphub/*`, the table in shared/hub-extension.ts):
// one per method. Who may call each is its row's `caller`, checked here once before the handler
// runs, so a handler is given the session record it may use. A method not in the table is not
// acphub's: the server forwards it to the agent.
import type { Actor, HubUser } from "../contracts/users.js";
import { HubError } from "../shared/errors.js";
import type { SessionRecord } from "../engine/ports.js";
import type { Params } from "../protocol/raw.js";
import {
  HUB_METHOD,
  hubExtensionRow,
  type AgentsAnswer,
  type HubCaller,
  type Whoami,
} from "../shared/hub-extension.js";
import type { HubClient } from "./attachments.js";
import {
  ADMIN_CALLS,
  actorOf,
  adminOf,
  usageFor,
  type AdminServices,
} from "./admin-handlers.js";
import { historyPage } from "./history.js";
import { listSecrets, removeSecret, setSecret } from "./secrets.js";
import type { UserSecretsPort } from "../contracts/user-secrets.js";
import { searchSessions } from "./search.js";
import type { SessionHub } from "./session-hub.js";
import { changeShare, grantsOf, usersOf } from "./share.js";
import {
  terminalOutput,
  terminalReader,
  type TerminalReader,
} from "./terminal-output.js";

/** What the handlers need beyond the hub: the process's agents and terminals. */
export interface ExtensionServices {
  /** The agents a user may start, for `_acphub/agents`. */
  listAgents: (user: HubUser | undefined) => Promise<unknown[]> | unknown[];
  /** The folder a user's new sessions start in: an admin's, the hub's; a member's, their root. */
  defaultFolder?: (user: HubUser | undefined) => Promise<string>;
  /** The hub host's terminals, for `_acphub/terminal/output` (refused without). */
  readTerminal?: TerminalReader;
  /** Changes a user's role (app/user-admin.ts, the command line's own), for `_acphub/users/role`;
   *  refused without (a hub that keeps no users). */
  setUserRole?: (by: Actor, name: unknown, role: unknown) => Promise<unknown>;
  /** The users' secrets, for `_acphub/secrets/*` (refused without; the key stays in app/). */
  secrets?: UserSecretsPort;
  /** The admin page's users, links, quotas, usage, audit and nodes (refused without). */
  admin?: AdminServices;
}

/** One call of a method: who asks, with what. */
interface Call {
  hub: SessionHub;
  services: ExtensionServices;
  client: HubClient;
  params: Params;
}

/** A method about no one session (`run`), or about the session its caller check found (`on`). */
type Handler = {
  /** Refusals that come before the session is looked up (the hub keeps no users, bad params). */
  before?: (call: Call) => void;
} & (
  | { run: (call: Call) => unknown }
  | { on: (call: Call, record: SessionRecord) => unknown }
);

const M = HUB_METHOD;

// prettier-ignore
const HANDLERS: Readonly<Record<string, Handler>> = {
  [M.whoami]: { run: ({ client }) => whoami(client.user) },
  [M.agents]: { run: ({ services, client }) => agentsOf(services, client.user) },
  [M.sessionsSearch]: {
    run: ({ hub, client, params }) => searchSessions(hub, client.user, params),
  },
  [M.sessionReplay]: { on: ({ hub, params }, record) => hub.replay(record, params) },
  [M.history]: { on: ({ hub, params }, record) => historyPage(hub, record, params) },
  [M.terminalOutput]: {
    before: ({ services, params }) => void terminalReader(services.readTerminal, params),
    on: ({ hub, services, params }, record) =>
      terminalOutput(services.readTerminal, record, params, hub.processes.keyOf(record.id)),
  },
  [M.sessionShare]: {
    before: ({ hub }) => void usersOf(hub),
    on: ({ hub, client, params }, record) => changeShare(hub, client, record, params, true),
  },
  [M.sessionUnshare]: {
    before: ({ hub }) => void usersOf(hub),
    on: ({ hub, client, params }, record) => changeShare(hub, client, record, params, false),
  },
  [M.sessionGrants]: {
    before: ({ hub }) => void usersOf(hub),
    on: ({ hub }, record) => grantsOf(hub, record),
  },
  [M.usersRole]: { run: (call) => changeRole(call) },
  [M.secretsSet]: { run: ({ services, client, params }) => setSecret(services.secrets, client, params) },
  [M.secretsList]: { run: ({ services, client, params }) => listSecrets(services.secrets, client, params) },
  [M.secretsRemove]: { run: ({ services, client, params }) => removeSecret(services.secrets, client, params) },
  // On the node whose line holds it: here, or carried to the session's runner (issue 37).
  [M.queueRevoke]: {
    on: ({ hub, client, params }, record) =>
      hub.hereOrRunner(client, record, M.queueRevoke, params, new AbortController().signal, () =>
        hub.queue.revoke(client, record.id, params),
      ),
  },
  [M.sessionsMove]: { on: ({ hub, params }, record) => moveSession(hub, record, params["node"]) },
  [M.usage]: { run: ({ services, client, params }) => usageFor(adminOf(services.admin), client.user, params) },
  ...Object.fromEntries(
    Object.entries(ADMIN_CALLS).map(([method, call]) => [
      method,
      { run: ({ services, client, params }: Call) => call(adminOf(services.admin), actorOf(client.user), params) },
    ]),
  ),
};

/** True for a request acphub answers itself (a method of its table with a handler). */
export function isOwnRequest(method: string): boolean {
  return hubExtensionRow(method)?.kind === "request" && method in HANDLERS;
}

// Answers one of acphub's own requests: the handler's early refusals, the caller check of the
// method's row, then the handler.
export async function answerOwnRequest(
  hub: SessionHub,
  services: ExtensionServices,
  client: HubClient,
  method: string,
  params: Params,
): Promise<unknown> {
  const row = hubExtensionRow(method);
  const handler = HANDLERS[method];
  if (!row || !handler) throw new Error(`${method} is not acphub's own`);
  const call = { hub, services, client, params };
  handler.before?.(call);
  if (row.caller === "admin") mustBeAdmin(client.user, method);
  if ("run" in handler) return handler.run(call);
  return handler.on(call, await callerCheck(call, row.caller));
}

// Who may call a method about a session: the one named in params, as the row's caller says.
async function callerCheck(
  { hub, client, params }: Call,
  caller: HubCaller,
): Promise<SessionRecord> {
  const id = params["sessionId"];
  if (caller === "sees") return hub.record(id, client);
  if (caller === "attached") return hub.attachedRecord(client, id);
  // An admin's (checked before): about the session named.
  if (caller === "admin") return hub.record(id, client);
  if (caller !== "owner")
    throw new Error(`a method for ${caller} names no session`);
  const record = await hub.record(id, client);
  await hub.access.mustOwn(client.user, record.id);
  return record;
}

/** The methods whose handler acts on a session (for the test that the table's callers fit). */
export function sessionHandled(method: string): boolean | undefined {
  const handler = HANDLERS[method];
  return handler && "on" in handler;
}

// `_acphub/sessions/move`: an idle session's agent to a live node of the cluster (the node
// named restores it, the one that ran it closes its session there).
async function moveSession(
  hub: SessionHub,
  record: SessionRecord,
  node: unknown,
): Promise<unknown> {
  if (typeof node !== "string" || node === "")
    throw new HubError("USAGE", "name the node to move the session to");
  if (!hub.runner)
    throw new HubError(
      "USAGE",
      "this hub is not a cluster node (a PostgreSQL ledger makes it one): nothing to move",
    );
  return hub.runner.move(record.id, node);
}

// `_acphub/whoami`: the connection's user (the built-in admin on a hub without users).
function whoami(user: HubUser | undefined): Whoami {
  return user
    ? { name: user.name, role: user.role }
    : { name: "admin", role: "admin" };
}

// `_acphub/agents`: the agents this user may start and the folder their sessions start in (an
// admin's: the hub's; a member's: their first root, never the hub's own folder).
async function agentsOf(
  services: ExtensionServices,
  user: HubUser | undefined,
): Promise<AgentsAnswer> {
  const agents = await services.listAgents(user);
  const cwd = await services.defaultFolder?.(user);
  return cwd === undefined ? { agents } : { agents, cwd };
}

// The `admin` caller check: the built-in admin (or the hub without users) and admin users only.
function mustBeAdmin(user: HubUser | undefined, method: string): void {
  if (user && user.role !== "admin")
    throw new HubError("PERMISSION_DENIED", `only an admin may call ${method}`);
}

// `_acphub/users/role`: the command line's own change of role, as the calling admin.
function changeRole({ services, client, params }: Call): Promise<unknown> {
  if (!services.setUserRole)
    throw new HubError("UNSUPPORTED", "this hub keeps no users");
  const by: Actor = { user: client.user?.name ?? "admin", via: "hub" };
  return services.setUserRole(by, params["name"], params["role"]);
}
