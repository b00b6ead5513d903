// session/fork on the hub (`acphub serve`): the gateway of the parent's agent forks it
// (fork.ts: a ledger copy, forked on the agent when it can), and the forking connection is
// attached to the new session — a hub session like any other, which other connections list,
// load and prompt. A fork is a session its author drives, so it takes driving the parent
// (owner, driver grant or admin), and starting its agent; the parent's MCP servers (their env
// and headers are secrets) are copied only into the owner's own fork (issue 34). The fork runs in
// the forker's own agent process (issue 36).
import type { Params } from "../protocol/raw.js";
import type { SessionRecord } from "../engine/ports.js";
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
  // Forked on the node that runs the parent (another node of a cluster answers it from there).
  const answer = (await hub.hereOrRunner(
    client,
    parent,
    "session/fork",
    params,
    new AbortController().signal,
    () => forkHere(hub, client, parent, params),
  )) as Params;
  await hub.catchUp(client, String(answer["sessionId"]), upto);
  hub.runner?.attached(String(answer["sessionId"]));
  return answer;
}

/** The fork itself, on the node that runs the parent: owned by its forker, in the forker's own
 *  agent process (issue 36), its lease held here. */
export async function forkHere(
  hub: SessionHub,
  client: HubClient,
  parent: SessionRecord,
  params: Params,
): Promise<Params> {
  const run = await hub.processes.planFor(client.user?.name, parent.agent);
  const own = await ownsParent(hub, client, parent.id);
  const answer = await hub.processes.using(run, async (gateway) => {
    // Another user's session is never brought into the forker's agent: a ledger copy only.
    const answer = await gateway.fork(
      own ? params : { ...params, mcpServers: params["mcpServers"] ?? [] },
      own,
    );
    const id = String(answer["sessionId"]);
    hub.processes.remember(id, run);
    await hub.access.own(client.user, id);
    await hub.runner?.claim(id, false);
    return answer;
  });
  return hub.processes.withRunsAs(String(answer["sessionId"]), answer);
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
