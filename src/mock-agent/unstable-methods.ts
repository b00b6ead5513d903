// The mock agent's answer to `initialize`, and the methods beyond the stable core: fork,
// status, set_title, archive, set_model (legacy), logout, auth/status, providers/*,
// mcp/message and a future session method. Each is advertised only when its flag says so,
// and every answer says it came from the mock, so tests can tell it from acphub's own.
import { RequestError, type AgentApp } from "@agentclientprotocol/sdk";
import { setTimeout as sleep } from "node:timers/promises";
import { sessionStateOf, type MockSession } from "./session-state.js";

export interface MockMethodOptions {
  loadSession?: boolean;
  authRequired?: boolean;
  protocolVersion?: number;
  sessionCapabilities?: string[];
  advertise?: string[];
  modes?: boolean;
  configOptions?: boolean;
  models?: boolean;
}

export interface MockMethodContext {
  options: MockMethodOptions;
  sessions: Map<string, MockSession>;
  find: (sessionId: string) => MockSession;
  save: () => void;
  newId: () => string;
}

/** Marks an answer as the mock's own. */
export const FROM_MOCK = { _meta: { answeredBy: "acphub-mock-agent" } };

type Params = Record<string, unknown>;

// Accepts any params object as sent.
function raw(params: unknown): Params {
  if (params === null || typeof params !== "object" || Array.isArray(params))
    throw RequestError.invalidParams(undefined, "params must be an object");
  return params as Params;
}

// The initialize answer: capabilities as the flags ask.
export function initializeAnswer(options: MockMethodOptions) {
  const advertised = new Set(options.advertise ?? []);
  const auth = {
    ...(advertised.has("logout") ? { logout: {} } : {}),
    ...(advertised.has("auth-status") ? { status: {} } : {}),
  };
  return {
    protocolVersion: options.protocolVersion ?? 1,
    agentInfo: { name: "acphub-mock-agent", version: "1" },
    authMethods: options.authRequired
      ? [
          {
            id: "mock-login",
            name: "Mock login",
            description: "Always succeeds",
          },
        ]
      : [],
    agentCapabilities: {
      loadSession: options.loadSession === true,
      promptCapabilities: { embeddedContext: true },
      mcpCapabilities: { http: true, acp: advertised.has("mcp-acp") },
      sessionCapabilities: Object.fromEntries(
        (options.sessionCapabilities ?? []).map((c) => [c, {}]),
      ),
      ...(Object.keys(auth).length ? { auth } : {}),
      ...(advertised.has("providers") ? { providers: {} } : {}),
    },
  };
}

// Session methods of the unstable protocol (and set_model, of an older one).
function addSessionMethods(app: AgentApp, ctx: MockMethodContext): void {
  const { find, save, options } = ctx;
  const id = (p: Params) => String(p["sessionId"]);
  app
    .onRequest("session/fork", raw, ({ params }) => {
      const parent = find(id(params));
      const sessionId = ctx.newId();
      const { turn: _turn, ...copy } = parent;
      const child = { ...copy, history: [...parent.history], turns: 0 };
      ctx.sessions.set(sessionId, child);
      save();
      return { sessionId, ...sessionStateOf(child, options), ...FROM_MOCK };
    })
    .onRequest("session/status", raw, ({ params }) => {
      find(id(params));
      return { status: "open", ...FROM_MOCK };
    })
    .onRequest("session/set_title", raw, ({ params }) => {
      const session = find(id(params));
      session.title = String(params["title"]).trim();
      save();
      return { title: session.title, ...FROM_MOCK };
    })
    .onRequest("session/archive", raw, () => FROM_MOCK)
    .onRequest("session/unarchive", raw, () => FROM_MOCK)
    .onRequest("session/set_model", raw, ({ params }) => {
      if (!options.models)
        throw RequestError.methodNotFound("session/set_model");
      find(id(params)).modelId = String(params["modelId"]);
      save();
      return FROM_MOCK;
    })
    .onRequest("session/future_method", raw, ({ params }) => ({
      receivedSessionId: id(params),
      known: ctx.sessions.has(id(params)),
      ...FROM_MOCK,
    }));
}

// Methods outside sessions: logout, auth/status, providers/*, mcp/message, and `_mock/wait`,
// which waits until cancelled ($/cancel_request) and then says so with `_mock/cancelled`.
function addGlobalMethods(app: AgentApp): void {
  const providers = [
    {
      providerId: "mock-provider",
      supported: ["openai"],
      required: false,
      current: null,
    },
  ];
  app
    .onRequest("logout", raw, () => FROM_MOCK)
    .onRequest("auth/status", raw, () => ({ state: "ok", ...FROM_MOCK }))
    .onRequest("providers/list", raw, () => ({ providers, ...FROM_MOCK }))
    .onRequest("providers/set", raw, () => FROM_MOCK)
    .onRequest("providers/disable", raw, () => FROM_MOCK)
    .onRequest("mcp/message", raw, () => FROM_MOCK)
    .onRequest("_mock/wait", raw, async ({ signal, client }) => {
      try {
        await sleep(30_000, undefined, { signal });
      } catch {
        await client.notify("_mock/cancelled", {});
        throw RequestError.requestCancelled();
      }
      return FROM_MOCK;
    });
}

/** Adds the methods beyond the stable core to the mock agent's app. */
export function addUnstableMethods(app: AgentApp, ctx: MockMethodContext) {
  addSessionMethods(app, ctx);
  addGlobalMethods(app);
}
