// session/fork on the hub (`acphub serve`): the gateway of the parent's agent forks it
// (fork.ts: a ledger copy, forked on the agent when it can), and the forking connection is
// attached to the new session — a hub session like any other, which other connections list,
// load and prompt. A fork is a session its author drives, so it takes driving the parent
// (owner, driver grant or admin), and starting its agent; the parent's MCP servers (their env
// and headers are secrets) are copied only into the owner's own fork (issue 34).
import type { Params } from "../protocol/raw.js";
import type { HubUser } from "../contracts/users.js";
import type { Gateway } from "../engine/gateway.js";
import type { HubClient } from "./attachments.js";
import type { SessionHub } from "./session-hub.js";

/** Forks a hub session; answers like session/new, with the forking client attached. */
export async function forkOnHub(
  hub: SessionHub,
  client: HubClient,
  params: Params,
): Promise<Params> {
  hub.access.mayCreate(client.user);
  const parent = await hub.record(params["sessionId"], client);
  await hub.mustDrive(client, parent.id);
  hub.agentRules?.mayStart(client.user, parent.agent);
  hub.agentRules?.mayGiveServers(client.user, params);
  // The fork opens in the folders the request names, else the parent's: the forker's roots.
  const stored = parent.request as { additionalDirectories?: unknown };
  await hub.checkFolders(
    {
      cwd: params["cwd"] ?? parent.cwd,
      additionalDirectories:
        params["additionalDirectories"] ?? stored.additionalDirectories,
    },
    client.user,
  );
  // The client has the parent's history up to here; it is sent what the fork adds after it.
  const upto = (await hub.ledger.read(parent.id)).at(-1)?.seq ?? 0;
  const own = await ownsParent(hub, client, parent.id);
  const asked = own
    ? params
    : { ...params, mcpServers: params["mcpServers"] ?? [] };
  // Forked where the parent's agent runs (another node of a cluster answers it from there).
  const answer = (await hub.onRunner(
    client,
    parent,
    "session/fork",
    asked,
    new AbortController().signal,
    (gateway) => forkHere(hub, client.user, gateway, asked),
  )) as Params;
  await hub.catchUp(client, String(answer["sessionId"]), upto);
  hub.runner?.attached(String(answer["sessionId"]));
  return answer;
}

/** The fork itself, on the node that runs the parent: owned by its forker, its lease held here
 *  (its agent session, forked from the parent's, lives here). */
export async function forkHere(
  hub: SessionHub,
  user: HubUser | undefined,
  gateway: Gateway,
  params: Params,
): Promise<Params> {
  const answer = await gateway.fork(params);
  const id = String(answer["sessionId"]);
  await hub.access.own(user, id);
  await hub.runner?.claim(id, false);
  return answer;
}

// Whether the forking user created the parent (a hub without users: always): only then are
// the parent's MCP servers copied into the fork.
async function ownsParent(
  hub: SessionHub,
  client: HubClient,
  parentId: string,
): Promise<boolean> {
  const store = hub.access.users;
  if (!client.user || !store) return true;
  const grants = await store.grantsOf(parentId);
  const owner = grants.find((g) => g.role === "owner")?.user;
  return owner === undefined
    ? !hub.access.restricted(client.user)
    : owner === client.user.name;
}
