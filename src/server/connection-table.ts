// The method table's requests that a hub connection serves through the gateway of the
// session's agent (set_mode, set_model, status, set_title, …), forwards (logout, providers/*)
// or refuses — so `acphub serve` answers what its initialize advertises, as `acphub acp` does.
// Session lifecycle methods (new, load, fork, …) are the hub connection's own.
import type { AgentApp } from "@agentclientprotocol/sdk";
import type { HubClient } from "../hub/attachments.js";
import type { SessionHub } from "../hub/session-hub.js";
import type { Gateway } from "../engine/gateway.js";
import { editorMethods } from "../protocol/method-table.js";
import { methods } from "../protocol/methods.js";
import { raw, type Params } from "../protocol/raw.js";
import { notServed } from "../protocol/wire-errors.js";
import { SERVED } from "../engine/dispatch.js";
import { edge } from "../protocol/to-request-error.js";
import { agentWideAdminOnly } from "./agent-wide.js";

const m = methods.agent;

/** Requests the hub connection handles itself (sessions live in the hub, not one gateway). */
const OWN = new Set<string>([
  m.initialize,
  m.session.new,
  m.session.load,
  m.session.list,
  m.session.resume,
  m.session.close,
  m.session.delete,
  m.session.prompt,
  m.session.fork,
]);

/** Registers every table request the hub connection does not handle itself. */
export function registerTableMethods(
  app: AgentApp,
  hub: SessionHub,
  client: HubClient,
): void {
  // On the gateway of the session named in params (answered by the node of a cluster that runs
  // it), else of the hub's default agent.
  const onGateway = async (
    method: string,
    params: Params,
    signal: AbortSignal,
    call: (gateway: Gateway) => unknown,
  ) =>
    typeof params["sessionId"] === "string"
      ? hub.onRunner(
          client,
          await hub.attachedRecord(client, params["sessionId"]),
          method,
          params,
          signal,
          call,
        )
      : call(await hub.defaultGateway());
  for (const entry of editorMethods()) {
    if (entry.kind !== "request" || OWN.has(entry.method)) continue;
    const served = SERVED[entry.method];
    app.onRequest(entry.method, raw<Params>, async ({ params, signal }) => {
      // Not about one session: the agent process every user shares (issue 34).
      if (entry.handling !== "refused")
        await edge(() => agentWideAdminOnly(client.user, entry.method, params));
      // Settings change a session: its viewers may not (issue 22).
      if (
        entry.method.startsWith("session/set_") &&
        params["sessionId"] !== undefined
      ) {
        await edge(() => hub.mustDrive(client, params["sessionId"]));
        hub.access.note(
          client.user,
          entry.method,
          String(params["sessionId"]),
          {
            params: { ...params, sessionId: undefined },
          },
        );
      }
      if (entry.handling === "served" && served)
        return edge(() =>
          onGateway(entry.method, params, signal, (g) =>
            served(g, params, signal),
          ),
        );
      if (entry.handling === "forwarded")
        return edge(() =>
          onGateway(entry.method, params, signal, (g) =>
            g.forward(entry.method, params, signal),
          ),
        );
      throw notServed(entry.method, entry.note);
    });
  }
}
