// Issue 15 item 3: a turn acphub stops relaying (the editor or the ledger failed, or the editor
// fell behind the event queue's bound) is ended on the agent too, the session is not left busy,
// and a primed session keeps its transcript for the next try when the primed turn failed.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentConnection } from "../../src/agents/connection.js";
import { Gateway } from "../../src/engine/gateway.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { INIT } from "../helpers/editor.js";
import { connectMock, steps, tempDir, waitFor } from "../helpers/mock.js";

type Notify = (params: Record<string, unknown>) => Promise<void>;
const gateways: Gateway[] = [];
let agent: AgentConnection | undefined;
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
  await agent?.close();
  agent = undefined;
});

// A gateway over the mock agent in `home`, whose editor's session/update goes to `notify`.
function gatewayIn(home: string, notify: Notify, maxQueuedEvents = 4) {
  const gateway = new Gateway({
    agentName: "mock",
    ledger: new SqliteLedger(join(home, "ledger.db")),
    connect: async () => (agent = await connectMock([], { maxQueuedEvents })),
  });
  gateway.attachEditor({
    notify: (_method, params) => notify(params as Record<string, unknown>),
    request: () => Promise.reject(new Error("no requests expected")),
  });
  gateways.push(gateway);
  return gateway;
}

// initialize, then session/new in `home`: the hub session id.
async function openOn(gateway: Gateway, home: string) {
  await gateway.initialize(INIT);
  const opened = await gateway.newSession({ cwd: home, mcpServers: [] });
  return String(opened["sessionId"]);
}

const textOf = (params: Record<string, unknown>) =>
  JSON.stringify(params["update"]);
const prompt = (sessionId: unknown, text: string) => ({
  sessionId,
  prompt: [{ type: "text", text }],
});
const longTurn = steps({ text: "working" }, { sleep: 600_000 });

describe("a turn acphub stops relaying", () => {
  it("when sending to the editor fails, the agent's turn is cancelled and the next prompt runs", async () => {
    const home = tempDir();
    let broken = true;
    const gateway = gatewayIn(home, (params) =>
      broken && textOf(params).includes("working")
        ? Promise.reject(new Error("editor gone"))
        : Promise.resolve(),
    );
    const sessionId = await openOn(gateway, home);
    const signal = new AbortController().signal;
    await expect(
      gateway.prompt(prompt(sessionId, longTurn), signal),
    ).rejects.toThrow("editor gone");
    broken = false;
    const next = await gateway.prompt(prompt(sessionId, "again"), signal);
    expect(next).toMatchObject({ stopReason: "end_turn" });
  });

  it("when the editor falls behind the event queue's bound, the prompt fails LIMIT_EXCEEDED, the agent's turn is cancelled and the next prompt runs", async () => {
    const home = tempDir();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding = true;
    let holds = 0;
    const gateway = gatewayIn(home, (params) =>
      holding && textOf(params).includes("tick")
        ? (holds++, held)
        : Promise.resolve(),
    );
    const sessionId = await openOn(gateway, home);
    const signal = new AbortController().signal;
    // More updates than the session relay keeps in flight (4,096): past that bound the turn waits
    // for the held editor, so the agent's event queue (4) overflows whatever the timing.
    const flood = steps(
      { text: "tick ".repeat(5000), chunks: 5000 },
      { sleep: 600_000 },
    );
    const first = gateway.prompt(prompt(sessionId, flood), signal);
    first.catch(() => undefined);
    // The editor is held until the agent's turn is over (cancelled on overflow).
    await waitFor(() => holds > 0 && agent?.busy === false, 10_000);
    holding = false;
    release();
    await expect(first).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    const next = await gateway.prompt(prompt(sessionId, "again"), signal);
    expect(next).toMatchObject({ stopReason: "end_turn" });
  });

  it("a failed primed turn keeps the transcript for the next prompt", async () => {
    const home = tempDir();
    const signal = new AbortController().signal;
    const first = gatewayIn(home, () => Promise.resolve(), 1000);
    await first.initialize(INIT);
    const { sessionId } = await first.newSession({ cwd: home, mcpServers: [] });
    await first.prompt(prompt(sessionId, "remember BANANA"), signal);
    await first.close();

    const seen: string[] = [];
    let failOnce = true;
    const second = gatewayIn(
      home,
      (params) => {
        const text = textOf(params);
        if (failOnce && text.includes("mock agent received")) {
          failOnce = false;
          return Promise.reject(new Error("editor hiccup"));
        }
        const update = params["update"] as { content?: { text?: string } };
        seen.push(update.content?.text ?? "");
        return Promise.resolve();
      },
      1000,
    );
    await second.initialize(INIT);
    await expect(
      second.prompt(prompt(sessionId, "what did I say?"), signal),
    ).rejects.toThrow("editor hiccup");
    await second.prompt(prompt(sessionId, "and now?"), signal);
    const reply = seen.join("");
    expect(reply).toContain("This session was restored");
    expect(reply).toContain("BANANA");
  });
});

describe("a prompt run whose consumer falls behind", () => {
  it("fails LIMIT_EXCEEDED without waiting for the agent, whose turn is cancelled", async () => {
    agent = await connectMock([], { maxQueuedEvents: 4 });
    const session = await agent.newSession({ cwd: process.cwd() });
    const run = session.prompt(
      steps({ text: "tick ".repeat(20), chunks: 20 }, { sleep: 600_000 }),
    );
    await expect(run.result).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    expect(session.busy).toBe(false);
    expect((await session.chat("again")).stopReason).toBe("end_turn");
  });
});
