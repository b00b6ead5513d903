// Methods acphub passes on rather than serves: to the agent when the agent advertises them
// (logout, auth/status, providers/*), session-scoped methods of a newer protocol with the
// session id mapped, refused when the agent does not offer them.
import type { Params } from "../protocol/raw.js";
import { RequestError } from "@agentclientprotocol/sdk";
import { isAvailable } from "../protocol/capabilities.js";
import { methodEntry } from "../protocol/method-table.js";
import { notServed } from "../protocol/wire-errors.js";
import { liveSession } from "./live.js";
import type { GatewayParts } from "./parts.js";

/** A method the table marks forwarded: to the agent if it advertises it, else refused. */
export async function forwardToAgent(
  parts: GatewayParts,
  method: string,
  params: Params,
  signal?: AbortSignal,
): Promise<unknown> {
  const entry = methodEntry(method);
  const agent = await parts.agents.get();
  const caps = agent.initializeResponse?.agentCapabilities;
  if (!entry || !isAvailable(entry, caps))
    throw notServed(
      method,
      `${parts.agentName} does not advertise ${entry?.capability?.join(".") ?? method}`,
    );
  const live =
    typeof params["sessionId"] === "string"
      ? parts.sessions.alive(params["sessionId"])
      : undefined;
  const sent = live ? { ...params, sessionId: live.session.id } : params;
  return agent.request(method, sent, signal);
}

/** A request acphub does not know: forwarded with the session id mapped when it names a
 *  session acphub has, else "method not found". */
export async function forwardUnknown(
  parts: GatewayParts,
  method: string,
  params: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const sessionId = (params as Params | null)?.["sessionId"];
  const record =
    typeof sessionId === "string"
      ? await parts.ledger.getSession(sessionId)
      : undefined;
  if (!record) throw RequestError.methodNotFound(method);
  const live = await liveSession(parts, record);
  return live.agent.request(
    method,
    { ...(params as Params), sessionId: live.session.id },
    signal,
  );
}

/** Notifications likewise: unknown session-scoped ones reach the agent with the id mapped. */
export function forwardUnknownNotification(
  parts: GatewayParts,
  method: string,
  params: unknown,
): void {
  const sessionId = (params as Params | null)?.["sessionId"];
  if (typeof sessionId !== "string") return;
  const live = parts.sessions.alive(sessionId);
  live?.agent.notify(method, {
    ...(params as Params),
    sessionId: live.session.id,
  });
}

/** An editor's `_`-prefixed request, relayed with the session id mapped. */
export async function forwardExtension(
  parts: GatewayParts,
  method: string,
  params: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const agent = await parts.agents.get();
  return agent.request(method, parts.sessions.toAgentIds(params), signal);
}

/** An editor's `_`-prefixed notification, relayed with the session id mapped. */
export async function forwardExtensionNotification(
  parts: GatewayParts,
  method: string,
  params: unknown,
): Promise<void> {
  (await parts.agents.get()).notify(method, parts.sessions.toAgentIds(params));
}
