// Table-driven: every method an editor may send, from acphub's method table, through the real
// `acphub acp` in front of the mock agent with everything advertised and with nothing. Each
// must be served, forwarded (the mock's answer) or refused exactly as the table says, and
// `initialize` must advertise exactly what is served.
import { afterEach, describe, expect, it } from "vitest";
import { hasCapability, isAvailable } from "../../src/protocol/capabilities.js";
import {
  agentMethods,
  editorMethods,
  METHOD_TABLE,
  type MethodEntry,
} from "../../src/protocol/method-table.js";
import {
  initializeAnswer,
  type MockMethodOptions,
} from "../../src/mock-agent/unstable-methods.js";
import {
  editorTracker,
  mockConfig,
  onlyProtocolOnStdout,
  startEditor,
  type TestEditor,
} from "../helpers/editor.js";
import { turn } from "../helpers/acp-session.js";
import { openSession } from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";

type Params = Record<string, unknown>;
type Setting = "modes" | "models" | "configOptions";

const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

const FULL: MockMethodOptions = {
  loadSession: true,
  sessionCapabilities:
    "list,resume,close,delete,fork,status,title,archive".split(","),
  advertise: ["logout", "auth-status", "providers", "mcp-acp"],
  modes: true,
  configOptions: true,
  models: true,
};

// The mock-agent flags for these options.
function flags(o: MockMethodOptions): string[] {
  return [
    ...(o.loadSession ? ["--load-session"] : []),
    ...(o.sessionCapabilities?.length
      ? ["--session-capabilities", o.sessionCapabilities.join(",")]
      : []),
    ...(o.advertise?.length ? ["--advertise", o.advertise.join(",")] : []),
    ...(o.modes ? ["--modes"] : []),
    ...(o.configOptions ? ["--config-options"] : []),
    ...(o.models ? ["--models"] : []),
  ];
}

interface Call {
  params: (sessionId: string, cwd: string) => Params;
  /** A served method that needs the session to have reported this setting. */
  needs?: Setting;
}

const text = (t: string) => [{ type: "text", text: t }];
const session =
  (extra: Params = {}) =>
  (sessionId: string) => ({
    sessionId,
    ...extra,
  });
const opened = (sessionId: string, cwd: string) => ({
  sessionId,
  cwd,
  mcpServers: [],
});

/** How to call each method; the test fails if the table gains a method without one. */
const CALLS: Record<string, Call> = {
  initialize: {
    params: () => ({ protocolVersion: 1, clientCapabilities: {} }),
  },
  authenticate: { params: () => ({ methodId: "mock-login" }) },
  logout: { params: () => ({}) },
  "auth/status": { params: () => ({}) },
  "providers/list": { params: () => ({}) },
  "providers/set": {
    params: () => ({
      providerId: "mock-provider",
      apiType: "openai",
      baseUrl: "http://127.0.0.1:9",
    }),
  },
  "providers/disable": { params: () => ({ providerId: "mock-provider" }) },
  "session/new": { params: (_s, cwd) => ({ cwd, mcpServers: [] }) },
  "session/load": { params: opened },
  "session/list": { params: () => ({}) },
  "session/resume": { params: opened },
  "session/close": { params: session() },
  "session/delete": { params: session() },
  "session/fork": { params: opened },
  "session/status": { params: session() },
  "session/set_title": { params: session({ title: "Renamed" }) },
  "session/archive": { params: session() },
  "session/unarchive": { params: session() },
  "session/set_mode": { params: session({ modeId: "code" }), needs: "modes" },
  "session/set_config_option": {
    params: session({ configId: "model", value: "mock-large" }),
    needs: "configOptions",
  },
  "session/set_model": {
    params: session({ modelId: "mock-opus" }),
    needs: "models",
  },
  "session/prompt": { params: session({ prompt: text("hi") }) },
  "mcp/message": {
    params: () => ({ serverId: "s", requestId: 1, method: "tools/list" }),
  },
  "proxy/initialize": {
    params: () => ({ protocolVersion: 1, clientCapabilities: {} }),
  },
  "proxy/successor": { params: () => ({ method: "x", params: {} }) },
};

type Outcome = "acphub" | "agent" | "refused";

// Calls a method and says who answered: acphub, the mock agent, or nobody (refused).
async function outcomeOf(
  e: TestEditor,
  method: string,
  params: Params,
): Promise<Outcome> {
  try {
    const answer = await e.agent.request<Params | null>(method, params);
    const meta = answer?.["_meta"] as Params | undefined;
    return meta?.["answeredBy"] === "acphub-mock-agent" ? "agent" : "acphub";
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    if (code === -32601 && /acphub does not serve|reported no/.test(message))
      return "refused";
    throw new Error(`${method} failed: ${code} ${message}`);
  }
}

// What the table says the outcome must be, given what the mock offers.
function expected(entry: MethodEntry, mock: MockMethodOptions): Outcome[] {
  const agentCaps = initializeAnswer(mock).agentCapabilities;
  switch (entry.handling) {
    case "served": {
      const needs = CALLS[entry.method]?.needs;
      if (needs && !mock[needs]) return ["refused"];
      return ["acphub", "agent"];
    }
    case "forwarded":
      return isAvailable(entry, agentCaps) ? ["agent"] : ["refused"];
    default:
      return ["refused"];
  }
}

const requests = () => editorMethods().filter((e) => e.kind === "request");

describe.each([
  ["everything advertised", FULL],
  ["nothing advertised", {} as MockMethodOptions],
])("the method table through acphub acp, mock agent with %s", (_name, mock) => {
  it("initialize advertises exactly what acphub serves or forwards", async () => {
    const home = tempDir();
    mockConfig(home, flags(mock));
    const e = editors.track(startEditor(home));
    const init = await e.agent.request<{ agentCapabilities: Params }>(
      "initialize",
      { protocolVersion: 1, clientCapabilities: {} },
    );
    const agentCaps = initializeAnswer(mock).agentCapabilities;
    for (const entry of METHOD_TABLE.filter(
      (x) => x.from !== "agent" && x.capability,
    )) {
      const advertised = hasCapability(
        init.agentCapabilities,
        entry.capability!,
      );
      const shouldBe =
        entry.handling === "served" ||
        (entry.handling === "forwarded" && isAvailable(entry, agentCaps));
      expect({ method: entry.method, advertised }).toEqual({
        method: entry.method,
        advertised: shouldBe,
      });
    }
    expect(init.agentCapabilities["promptCapabilities"]).toEqual({
      embeddedContext: true,
    });
  });

  it("every request is served, forwarded or refused as the table says", async () => {
    const home = tempDir();
    mockConfig(home, flags(mock));
    const e = editors.track(startEditor(home));
    await e.agent.request("initialize", CALLS["initialize"]!.params("", home));
    const seen: Params[] = [];
    for (const entry of requests()) {
      const call = CALLS[entry.method];
      expect(call, `no test call for ${entry.method}`).toBeDefined();
      const { sessionId } = await e.agent.request<{ sessionId: string }>(
        "session/new",
        { cwd: home, mcpServers: [] },
      );
      const outcome = await outcomeOf(
        e,
        entry.method,
        call!.params(sessionId, home),
      );
      seen.push({ method: entry.method, outcome });
      expect({ method: entry.method, outcome }).toEqual({
        method: entry.method,
        outcome: expect.toBeOneOf(expected(entry, mock)),
      });
    }
    expect(seen.length).toBeGreaterThan(20);
  });
});

// The agent → editor methods acphub does not serve itself (served ones have their own tests).
const passedOn = () => agentMethods().filter((e) => e.handling !== "served");

describe.each([
  ["advertises", { elicitation: { form: {}, url: {} } }],
  ["does not advertise", {}],
])(
  "the method table, agent → editor, when the editor %s elicitation",
  (_name, caps) => {
    it("each relayed method reaches the editor or is refused, and refused ones never do", async () => {
      const home = tempDir();
      mockConfig(home);
      const received: string[] = [];
      const e = editors.track(
        startEditor(home, {
          onRequest: (method) => (received.push(method), { answered: true }),
        }),
      );
      const sessionId = await openSession(e, home, caps);
      for (const entry of passedOn()) {
        const relayed =
          isAvailable(entry, caps) && entry.handling === "relayed";
        if (entry.kind === "request") {
          const said = await turn(
            e,
            sessionId,
            steps({ extRequest: { method: entry.method, params: {} } }),
          );
          expect({ method: entry.method, said }).toEqual({
            method: entry.method,
            said: relayed
              ? 'ext result: {"answered":true}\n'
              : expect.stringContaining(
                  `ext failed: -32601 acphub does not serve ${entry.method}`,
                ),
          });
          expect(received.includes(entry.method)).toBe(relayed);
        } else {
          const marker = `_mock/after/${entry.method}`;
          await turn(
            e,
            sessionId,
            steps(
              { extNotification: { method: entry.method, params: {} } },
              { extNotification: { method: marker, params: {} } },
            ),
          );
          const seen = () => e.notifications.map((n) => n.method);
          expect(await waitFor(() => seen().includes(marker))).toBe(true);
          expect({
            method: entry.method,
            seen: seen().includes(entry.method),
          }).toEqual({
            method: entry.method,
            seen: relayed,
          });
        }
      }
    });
  },
);
