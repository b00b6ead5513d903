// The mock agent's answer to `initialize`, and the methods beyond the stable core: fork,
// status, set_title, archive, set_model (legacy), logout, auth/status, providers/*,
// mcp/message and a future session method. Each is advertised only when its flag says so,
// and every answer says it came from the mock, so tests can tell it from acphub's own.
import { RequestError, type AgentApp } from "@agentclientprotocol/sdk";
import { setTimeout as sleep } from "node:timers/promises";
import { LEGACY_METHODS } from "../protocol/methods.js";
import { raw, type Params } from "../protocol/raw.js";
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
  forgetSettings?: boolean;
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
      // `acp` is unstable: the stable type does not name it.
      ...(advertised.has("mcp-acp")
        ? { mcpCapabilities: { acp: true } as Record<string, boolean> }
        : {}),
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
    .onRequest("session/fork", raw<Params>, ({ params }) => {
      const parent = find(id(params));
      const sessionId = ctx.newId();
      const { turn: _turn, ...copy } = parent;
      const child = { ...copy, history: [...parent.history], turns: 0 };
      // Like claude-code-acp: the forked session starts from the default settings.
      if (options.forgetSettings)
        Object.assign(child, {
          modeId: undefined,
          modelId: undefined,
          config: undefined,
        });
      ctx.sessions.set(sessionId, child);
      save();
      return { sessionId, ...sessionStateOf(child, options), ...FROM_MOCK };
    })
    .onRequest("session/status", raw<Params>, ({ params }) => {
      find(id(params));
      return { status: "open", ...FROM_MOCK };
    })
    .onRequest("session/set_title", raw<Params>, ({ params }) => {
      const session = find(id(params));
      session.title = String(params["title"]).trim();
      save();
      return { title: session.title, ...FROM_MOCK };
    })
    .onRequest("session/archive", raw<Params>, () => FROM_MOCK)
    .onRequest("session/unarchive", raw<Params>, () => FROM_MOCK)
    .onRequest(LEGACY_METHODS.setModel, raw<Params>, ({ params }) => {
      if (!options.models)
        throw RequestError.methodNotFound(LEGACY_METHODS.setModel);
      find(id(params)).modelId = String(params["modelId"]);
      save();
      return FROM_MOCK;
    })
    .onRequest("session/future_method", raw<Params>, ({ params }) => ({
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
    .onRequest("logout", raw<Params>, () => FROM_MOCK)
    .onRequest("auth/status", raw<Params>, () => ({
      state: "ok",
      ...FROM_MOCK,
    }))
    .onRequest("providers/list", raw<Params>, () => ({
      providers,
      ...FROM_MOCK,
    }))
    .onRequest("providers/set", raw<Params>, () => FROM_MOCK)
    .onRequest("providers/disable", raw<Params>, () => FROM_MOCK)
    .onRequest("mcp/message", raw<Params>, () => FROM_MOCK)
    .onRequest("_mock/wait", raw<Params>, async ({ signal, client }) => {
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
