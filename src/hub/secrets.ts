// A hub user's secrets over the hub (issue 36): `_acphub/secrets/set` {user?, name, value},
// `_acphub/secrets/list` {user?} and `_acphub/secrets/remove` {user?, name}. An admin manages
// anyone's; a member only their own; a viewer, who starts no agent, may list and remove their
// own but not set one. The hub holds no key: it reaches the secrets through the port app/ gives.
import type { UserSecretsPort } from "../contracts/user-secrets.js";
import { BUILTIN_ADMIN, type Actor } from "../contracts/users.js";
import type { Params } from "../protocol/raw.js";
import { invalidParams } from "../protocol/wire-errors.js";
import { HubError } from "../shared/errors.js";
import type { HubClient } from "./attachments.js";

type Op = "set" | "list" | "remove";

// The user whose secrets a call is about (the caller's own unless `user` names another), once
// the caller may manage them.
function ownerOf(client: HubClient, params: Params, op: Op): string {
  const me = client.user?.name ?? BUILTIN_ADMIN;
  const role = client.user?.role ?? "admin";
  const named = params["user"];
  if (named !== undefined && (typeof named !== "string" || named === ""))
    throw invalidParams(`no user named ${JSON.stringify(named)}`);
  const user = named ?? me;
  if (role !== "admin" && user !== me)
    throw new HubError(
      "PERMISSION_DENIED",
      `${me} may manage only their own secrets, not ${user}'s`,
    );
  if (role === "viewer" && op === "set")
    throw new HubError(
      "PERMISSION_DENIED",
      `${me} is a viewer: a viewer starts no agents, so keeps no secrets (an admin may change the role)`,
    );
  return user;
}

// The port, refused on a hub that keeps no secrets.
function portOf(port: UserSecretsPort | undefined): UserSecretsPort {
  if (!port) throw new HubError("UNSUPPORTED", "this hub keeps no secrets");
  return port;
}

// A string param, or the wire's invalid-params error.
function text(params: Params, key: string): string {
  const v = params[key];
  if (typeof v !== "string") throw invalidParams(`${key}: a string`);
  return v;
}

const actorOf = (client: HubClient): Actor => ({
  user: client.user?.name ?? BUILTIN_ADMIN,
  via: "hub",
});

// `_acphub/secrets/set`: the value in, its name and time out (never the value).
export async function setSecret(
  port: UserSecretsPort | undefined,
  client: HubClient,
  params: Params,
): Promise<Params> {
  const user = ownerOf(client, params, "set");
  const name = text(params, "name");
  const value = text(params, "value");
  const set = await portOf(port).set(actorOf(client), user, name, value);
  return { user, name: set.name, updatedAt: set.updatedAt };
}

// `_acphub/secrets/list`: names and times only.
export async function listSecrets(
  port: UserSecretsPort | undefined,
  client: HubClient,
  params: Params,
): Promise<Params> {
  const user = ownerOf(client, params, "list");
  return { user, secrets: await portOf(port).list(user) };
}

// `_acphub/secrets/remove`.
export async function removeSecret(
  port: UserSecretsPort | undefined,
  client: HubClient,
  params: Params,
): Promise<Params> {
  const user = ownerOf(client, params, "remove");
  const name = text(params, "name");
  await portOf(port).remove(actorOf(client), user, name);
  return { user, removed: name };
}
