// Registers a handler for every method an editor may send, from the method table: served ones
// go to the gateway, forwarded ones to the agent when it advertises them, refused ones get a
// clear error. Anything else: `_` extensions are relayed, a session-scoped method of a newer
// protocol is forwarded with its session id mapped, the rest is "method not found".
import type { AgentApp } from "@agentclientprotocol/sdk";
import type { Gateway } from "./gateway.js";
import { editorMethods, type MethodEntry } from "../protocol/method-table.js";
import {
  isExtensionMethod,
  LEGACY_METHODS,
  methods,
} from "../protocol/methods.js";
import { raw, type Params } from "../protocol/raw.js";
import { notServed } from "../protocol/wire-errors.js";
import { edge } from "../protocol/to-request-error.js";

type Served = (
  gateway: Gateway,
  params: Params,
  signal: AbortSignal,
) => Promise<unknown> | unknown;

const m = methods.agent;

/** What serves each request the table marks `served` (session/cancel is a notification). */
export const SERVED: Record<string, Served> = {
  [m.initialize]: (g, p) => g.initialize(p),
  [m.session.new]: (g, p, s) => g.newSession(p, s),
  [m.session.load]: (g, p, s) => g.loadSession(p, s),
  [m.session.list]: (g, p) => g.listSessions(p),
  [m.session.resume]: (g, p, s) => g.resumeSession(p, s),
  [m.session.close]: (g, p, s) => g.closeSession(p, s),
  [m.session.delete]: (g, p, s) => g.deleteSession(p, s),
  [m.session.prompt]: (g, p, s) => g.prompt(p, s),
  [m.session.fork]: (g, p) => g.fork(p),
  [m.session.status]: (g, p) => g.status(p),
  [m.session.setTitle]: (g, p, s) => g.setTitle(p, s),
  [m.session.setMode]: (g, p, s) => g.setMode(p, s),
  [m.session.setConfigOption]: (g, p, s) => g.setConfigOption(p, s),
  [LEGACY_METHODS.setModel]: (g, p, s) => g.setModel(p, s),
};

// The handler for one request entry of the table.
function requestHandler(entry: MethodEntry): Served {
  switch (entry.handling) {
    case "served": {
      const served = SERVED[entry.method];
      if (!served) throw new Error(`no handler for served ${entry.method}`);
      return served;
    }
    case "forwarded":
      return (g, p, s) => g.forward(entry.method, p, s);
    default:
      return () => {
        throw notServed(entry.method, entry.note);
      };
  }
}

/** Registers every editor → acphub method on the app. */
export function registerEditorMethods(app: AgentApp, gateway: Gateway): void {
  for (const entry of editorMethods()) {
    if (entry.kind !== "request") continue;
    const handle = requestHandler(entry);
    app.onRequest(entry.method, raw<Params>, ({ params, signal }) =>
      edge(() => handle(gateway, params, signal)),
    );
  }
  app.onNotification(m.session.cancel, raw<Params>, ({ params }) =>
    gateway.cancel(params),
  );
  app.onRequest("*", ({ method, params, signal }) =>
    edge(() =>
      isExtensionMethod(method)
        ? gateway.forwardExtension(method, params, signal)
        : gateway.forwardUnknown(method, params, signal),
    ),
  );
  app.onNotification("*", ({ method, params }) => {
    if (isExtensionMethod(method))
      void gateway
        .forwardExtensionNotification(method, params)
        .catch(() => undefined);
    else gateway.forwardUnknownNotification(method, params);
  });
}
