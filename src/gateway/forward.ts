// Methods acphub passes on rather than serves: to the agent when the agent advertises them
// (logout, auth/status, providers/*), session-scoped methods of a newer protocol with the
// session id mapped, and the refusals for what the method table says acphub does not serve.
import { RequestError } from "@agentclientprotocol/sdk";
import { isAvailable } from "../protocol/capabilities.js";
import { methodEntry } from "../protocol/method-table.js";
import { notServed } from "../protocol/wire-errors.js";
import type { SessionAccess } from "./session-access.js";

type Params = Record<string, unknown>;

/** A method the table marks forwarded: to the agent if it advertises it, else refused. */
export async function forwardToAgent(
  access: SessionAccess,
  method: string,
  params: Params,
  signal?: AbortSignal,
): Promise<unknown> {
  const entry = methodEntry(method);
  const agent = await access.agent();
  const caps = agent.initializeResponse?.agentCapabilities;
  if (!entry || !isAvailable(entry, caps))
    throw notServed(
      method,
      `${access.agentName} does not advertise ${entry?.capability?.join(".") ?? method}`,
    );
  const live =
    typeof params["sessionId"] === "string"
      ? access.current(params["sessionId"])
      : undefined;
  const sent = live ? { ...params, sessionId: live.session.id } : params;
  return agent.request(method, sent, signal);
}

/** A request acphub does not know: forwarded with the session id mapped when it names a
 *  session acphub has, else "method not found". */
export async function forwardUnknown(
  access: SessionAccess,
  method: string,
  params: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const sessionId = (params as Params | null)?.["sessionId"];
  if (typeof sessionId !== "string" || !access.ledger.getSession(sessionId))
    throw RequestError.methodNotFound(method);
  const live = await access.live(access.record(sessionId));
  return live.agent.request(
    method,
    { ...(params as Params), sessionId: live.session.id },
    signal,
  );
}

/** Notifications likewise: unknown session-scoped ones reach the agent with the id mapped. */
export function forwardUnknownNotification(
  access: SessionAccess,
  method: string,
  params: unknown,
): void {
  const sessionId = (params as Params | null)?.["sessionId"];
  if (typeof sessionId !== "string") return;
  const live = access.current(sessionId);
  live?.agent.notify(method, {
    ...(params as Params),
    sessionId: live.session.id,
  });
}

/** Throws unless the editor may receive `method` from the agent (a relayed method whose
 *  capability the editor advertised, or one the table does not know). */
export function checkRelayToEditor(access: SessionAccess, method: string) {
  const entry = methodEntry(method);
  if (!entry || entry.from === "editor") return;
  if (entry.handling === "refused") throw notServed(method, entry.note);
  if (entry.handling !== "relayed") return;
  if (!isAvailable(entry, access.editorCapabilities()))
    throw notServed(
      method,
      `the editor did not advertise ${entry.capability?.join(".") ?? method}`,
    );
}
