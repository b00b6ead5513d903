// session/fork on the hub (`acphub serve`): the gateway of the parent's agent forks it
// (fork.ts: a ledger copy, forked on the agent when it can), and the forking connection is
// attached to the new session — a hub session like any other, which other connections list,
// load and prompt.
import type { Params } from "../protocol/raw.js";
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
  const gateway = await hub.gatewayFor(parent.agent);
  // The client has the parent's history up to here; it is sent what the fork adds after it.
  const upto = (await hub.ledger.read(parent.id)).at(-1)?.seq ?? 0;
  const answer = await gateway.fork(params);
  await hub.access.own(client.user, String(answer["sessionId"]));
  await hub.catchUp(client, String(answer["sessionId"]), upto);
  return answer;
}
