// `acphub mock-agent`: a real ACP agent on stdio, built on the SDK, whose turns follow
// scenarios. Flags choose what it advertises and how it misbehaves at start-up.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import {
  agent,
  ndJsonStream,
  RequestError,
  type AgentContext,
} from "@agentclientprotocol/sdk";
import { methods } from "../protocol/methods.js";
import { setTimeout as sleep } from "node:timers/promises";
import {
  echoScenario,
  scenarioFromPrompt,
  validateScenario,
  type Scenario,
} from "./scenario.js";
import { runTurn } from "./turn.js";
import {
  addUnstableMethods,
  FROM_MOCK,
  initializeAnswer,
} from "./unstable-methods.js";
import { configOf, sessionStateOf, type MockSession } from "./session-state.js";

export interface MockAgentOptions {
  scenario?: string;
  loadSession?: boolean;
  sessionCapabilities?: string[];
  authRequired?: boolean;
  modes?: boolean;
  configOptions?: boolean;
  ignoreEof?: boolean;
  initDelayMs?: number;
  /** Wait this long before answering session/resume (a slow restore). */
  resumeDelayMs?: number;
  noInitAnswer?: boolean;
  exitBeforeInit?: number;
  banner?: string;
  protocolVersion?: number;
  /** Keep sessions in this JSON file, so load/resume work across restarts. */
  sessionsFile?: string;
  /** Offer models (the legacy unstable `models` state) and `session/set_model`. */
  models?: boolean;
  /** Advertise these unstable capabilities: logout, auth-status, providers, mcp-acp. */
  advertise?: string[];
  /** session/load, resume and fork start from the default mode, model and config (as real
   *  agents do). */
  forgetSettings?: boolean;
  /** The `shell` step runs `sh -c` in this process instead of asking the client for a
   *  terminal: an operator's choice at launch (to test an agent's own sandbox), never a
   *  prompt's. */
  ownShell?: boolean;
}

function readSessions(file: string | undefined): Map<string, MockSession> {
  if (!file || !existsSync(file)) return new Map();
  return new Map(
    JSON.parse(readFileSync(file, "utf8")) as [string, MockSession][],
  );
}

// Reads --scenario: one scenario for every turn, or {"turns": [...]} one per turn.
function loadScenarios(file: string | undefined): Scenario[] | undefined {
  if (!file) return undefined;
  const value = JSON.parse(readFileSync(file, "utf8")) as { turns?: unknown[] };
  if (Array.isArray(value.turns))
    return value.turns.map((t, i) => validateScenario(t, `${file} turn ${i}`));
  return [validateScenario(value, file)];
}

export async function runMockAgent(options: MockAgentOptions): Promise<void> {
  if (options.banner) process.stdout.write(options.banner + "\n");
  if (options.exitBeforeInit !== undefined)
    process.exit(options.exitBeforeInit);
  const scenarios = loadScenarios(options.scenario);
  const sessions = readSessions(options.sessionsFile);
  const save = () => {
    if (!options.sessionsFile) return;
    const plain = [...sessions.entries()].map(
      ([id, { turn: _turn, ...rest }]) => [id, rest],
    );
    writeFileSync(options.sessionsFile, JSON.stringify(plain));
  };
  let authenticated = !options.authRequired;
  let clientCapabilities: unknown = {};
  let nextId = 1;

  const find = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session)
      throw new RequestError(-32002, `session ${sessionId} not found`);
    return session;
  };
  const sessionState = (session: MockSession) =>
    sessionStateOf(session, options);
  // A session brought back by load or resume, its settings forgotten when the flag says so.
  const restored = (sessionId: string) => {
    const session = find(sessionId);
    if (options.forgetSettings)
      Object.assign(session, {
        modeId: undefined,
        modelId: undefined,
        config: undefined,
      });
    return sessionState(session);
  };
  const replay = async (client: AgentContext, sessionId: string) => {
    for (const update of find(sessionId).history)
      await client.notify(methods.client.session.update as string, {
        sessionId,
        update,
      });
  };

  const app = agent({ name: "acphub-mock-agent" })
    .onRequest(methods.agent.initialize, async ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      if (options.noInitAnswer) await new Promise(() => undefined);
      if (options.initDelayMs) await sleep(options.initDelayMs);
      return initializeAnswer(options);
    })
    .onRequest(methods.agent.authenticate, () => {
      authenticated = true;
      return FROM_MOCK;
    })
    .onRequest(methods.agent.session.new, ({ params }) => {
      if (!authenticated)
        throw new RequestError(-32000, "Authentication required");
      const sessionId = `mock-${process.pid}-${Date.now()}-${nextId++}`;
      const session: MockSession = {
        cwd: params.cwd,
        history: [],
        title: null,
        updatedAt: new Date().toISOString(),
        turns: 0,
        mcpServers: params.mcpServers,
      };
      sessions.set(sessionId, session);
      save();
      return { sessionId, ...sessionState(session) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      await replay(client, params.sessionId);
      return restored(params.sessionId);
    })
    .onRequest(methods.agent.session.resume, async ({ params }) => {
      if (options.resumeDelayMs) await sleep(options.resumeDelayMs);
      return restored(params.sessionId);
    })
    .onRequest(methods.agent.session.list, ({ params }) => ({
      sessions: [...sessions.entries()]
        .filter(([, s]) => !params.cwd || s.cwd === params.cwd)
        .map(([sessionId, s]) => ({
          sessionId,
          cwd: s.cwd,
          title: s.title,
          updatedAt: s.updatedAt,
        })),
    }))
    .onRequest(
      methods.agent.session.close,
      ({ params }) => (find(params.sessionId).turn?.abort(), {}),
    )
    .onRequest(
      methods.agent.session.delete,
      ({ params }) => (sessions.delete(params.sessionId), save(), {}),
    )
    .onRequest(methods.agent.session.setMode, async ({ params, client }) => {
      find(params.sessionId).modeId = params.modeId;
      save();
      await client.notify(methods.client.session.update, {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: "current_mode_update",
          currentModeId: params.modeId,
        },
      });
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, ({ params }) => {
      const session = find(params.sessionId);
      session.config = {
        ...session.config,
        [params.configId]: String(params.value),
      };
      save();
      return { configOptions: configOf(session) };
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
      const session = find(params.sessionId);
      const text = params.prompt
        .map((b) => (b.type === "text" ? b.text : `[${b.type}]`))
        .join("");
      for (const block of params.prompt)
        session.history.push({
          sessionUpdate: "user_message_chunk",
          content: block,
        });
      const last = params.prompt.at(-1);
      const scenario =
        scenarioFromPrompt(text) ??
        (last?.type === "text" ? scenarioFromPrompt(last.text) : undefined) ??
        scenarios?.[Math.min(session.turns, scenarios.length - 1)] ??
        echoScenario(text);
      session.turns += 1;
      session.turn = new AbortController();
      session.updatedAt = new Date().toISOString();
      session.title ??= text.slice(0, 60);
      try {
        return await runTurn(
          {
            client,
            sessionId: params.sessionId,
            signal: session.turn.signal,
            remember: (u) => session.history.push(u),
            history: () => session.history,
            promptMeta: params._meta ?? null,
            report: () => ({
              clientCapabilities,
              ...sessionState(session),
            }),
            writeRaw: (line) => process.stdout.write(line + "\n"),
            ownShell: options.ownShell === true,
          },
          scenario,
        );
      } finally {
        session.turn = undefined;
        save();
      }
    });

  addUnstableMethods(app, {
    options,
    sessions,
    find,
    save,
    newId: () => `mock-${process.pid}-${Date.now()}-${nextId++}`,
  });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout),
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.closed;
  if (options.ignoreEof)
    await new Promise(() => setInterval(() => undefined, 60_000));
  process.exit(0);
}
