// `serve.cancelOnDisconnect`: when the connection whose prompt is running goes away, on → the
// agent gets session/cancel and the turn ends cancelled; off (the default) → the turn goes on
// and another client attached to the session sees it finish. Another client's turn is never
// cancelled by someone else leaving. The outcome is read by a second client, which asks for the
// turn again with the same idempotency key (the hub answers with the turn's own stop reason).
import { client } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import {
  hubFixture,
  INIT,
  openSession,
  text,
  until,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

const LONG = steps({ text: "started " }, { sleep: 60_000 }, { text: "never" });
const SHORT = steps({ text: "started " }, { sleep: 800 }, { text: "finished" });

// A second client attached to the session: it sees the live updates and can ask for the turn.
async function observer(h: RunningHub, home: string, sessionId: string) {
  const o = fx.connect(h, "ws");
  await o.agent.request("initialize", INIT);
  await o.agent.request("session/load", {
    sessionId,
    cwd: home,
    mcpServers: [],
  });
  return o;
}

// The running (or recorded) turn's stop reason, asked with the idempotency key that started it.
async function outcome(o: HubTestClient, sessionId: string, key: string) {
  const r = await o.agent.request<{ stopReason: string }>("session/prompt", {
    sessionId,
    prompt: text("asked again"),
    _meta: { acphub: { idempotencyKey: key } },
  });
  return r.stopReason;
}

// What the agent said in the session, as this client saw it.
function agentText(c: HubTestClient, sessionId: string): string {
  return c
    .updates(sessionId)
    .map(
      (u) =>
        u["update"] as { sessionUpdate: string; content?: { text?: string } },
    )
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content?.text ?? "")
    .join("");
}

// Starts a turn with an idempotency key and waits for its first update.
async function startTurn(c: HubTestClient, sessionId: string, prompt: string) {
  const turn = c.agent
    .request<{ stopReason: string }>("session/prompt", {
      sessionId,
      prompt: text(prompt),
      _meta: { acphub: { idempotencyKey: "turn-1" } },
    })
    .catch((error: Error) => ({ stopReason: `error: ${error.message}` }));
  await until(() => JSON.stringify(c.updates(sessionId)).includes("started"));
  return turn;
}

describe.each(["ws", "http"] as const)(
  "cancelOnDisconnect over %s",
  (transport) => {
    it("on: the prompting client closes mid-turn → the agent is cancelled, the turn ends cancelled", async () => {
      const { h, home } = await fx.start({ cancelOnDisconnect: true });
      const c = fx.connect(h, transport);
      const sessionId = await openSession(c, home);
      void startTurn(c, sessionId, LONG);
      const o = await observer(h, home, sessionId);
      c.close();
      // The mock ends a sleep with `cancelled` only on session/cancel; without it this turn
      // would run 60 s and the test would time out.
      expect(await outcome(o, sessionId, "turn-1")).toBe("cancelled");
      expect(agentText(o, sessionId)).toBe("started ");
    });

    it("off: the prompting client closes mid-turn → the turn goes on and another client sees it finish", async () => {
      const { h, home } = await fx.start({});
      const c = fx.connect(h, transport);
      const sessionId = await openSession(c, home);
      void startTurn(c, sessionId, SHORT);
      const o = await observer(h, home, sessionId);
      c.close();
      await c.closed;
      expect(await outcome(o, sessionId, "turn-1")).toBe("end_turn");
      await until(() => agentText(o, sessionId) === "started finished");
    });
  },
);

describe("cancelOnDisconnect: the edges", () => {
  it("on: a client whose socket drops without a close frame (a crash) has its turn cancelled", async () => {
    const { h, home } = await fx.start({ cancelOnDisconnect: true });
    const ws = new WebSocket(h.acpUrl.replace(/^http/, "ws"), {
      headers: { Authorization: `Bearer ${h.token}` },
    });
    const received: Record<string, unknown>[] = [];
    ws.on("message", (d: Buffer) =>
      received.push(JSON.parse(d.toString()) as Record<string, unknown>),
    );
    await new Promise((resolve) => ws.once("open", resolve));
    const send = (id: number, method: string, params: unknown) =>
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    const answer = async (id: number) => {
      await until(() => received.some((m) => m["id"] === id));
      return received.find((m) => m["id"] === id)!["result"] as Record<
        string,
        unknown
      >;
    };
    send(1, "initialize", INIT);
    await answer(1);
    send(2, "session/new", { cwd: home, mcpServers: [] });
    const sessionId = String((await answer(2))["sessionId"]);
    send(3, "session/prompt", {
      sessionId,
      prompt: text(LONG),
      _meta: { acphub: { idempotencyKey: "turn-1" } },
    });
    await until(() => JSON.stringify(received).includes("started"));
    const o = await observer(h, home, sessionId);
    ws.terminate();
    expect(await outcome(o, sessionId, "turn-1")).toBe("cancelled");
  });

  it("on: a Streamable HTTP client that vanishes (no DELETE, its event streams dropped) has its turn cancelled", async () => {
    const { h, home } = await fx.start({
      cancelOnDisconnect: true,
      // Long enough for a loaded machine to open the event stream after initialize.
      idleTimeoutMs: 2_000,
    });
    // Every request of this client goes through one switch: "crashing" drops them all at once.
    const crash = new AbortController();
    const stream = createHttpStream(h.acpUrl, {
      headers: { Authorization: `Bearer ${h.token}` },
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          signal: AbortSignal.any(
            [crash.signal, init?.signal].filter(
              (s) => s instanceof AbortSignal,
            ),
          ),
        }),
    });
    const app = client({ name: "vanishing" })
      .onNotification("*", () => undefined)
      .onRequest("*", () => ({}));
    const c = app.connect(stream);
    await c.agent.request("initialize", INIT);
    const { sessionId } = await c.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    void c.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(LONG),
        _meta: { acphub: { idempotencyKey: "turn-1" } },
      })
      .catch(() => undefined);
    const o = await observer(h, home, sessionId);
    await until(() => agentText(o, sessionId) === "started ");
    crash.abort();
    expect(await outcome(o, sessionId, "turn-1")).toBe("cancelled");
    // Its connection is closed: only the observer's is left.
    const metrics = await fetch(`${h.url}/metrics`, {
      headers: { Authorization: `Bearer ${h.token}` },
    });
    expect(await metrics.text()).toMatch(/^acphub_connections 1$/m);
  });

  it("a Streamable HTTP client that is idle but alive (holding its event streams) stays connected", async () => {
    const { h, home } = await fx.start({
      cancelOnDisconnect: true,
      // Long enough for a loaded machine to open the event stream after initialize; the
      // wait below is well past it.
      idleTimeoutMs: 2_000,
    });
    const c = fx.connect(h, "http");
    const sessionId = await openSession(c, home);
    await new Promise((r) => setTimeout(r, 5_000));
    const result = await c.agent.request<{ stopReason: string }>(
      "session/prompt",
      { sessionId, prompt: text(SHORT) },
    );
    expect(result.stopReason).toBe("end_turn");
    expect(agentText(c, sessionId)).toBe("started finished");
  });

  it("on: a client that only watches leaving does not cancel the prompting client's turn", async () => {
    const { h, home } = await fx.start({ cancelOnDisconnect: true });
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    const turn = startTurn(c, sessionId, SHORT);
    const o = await observer(h, home, sessionId);
    o.close();
    await o.closed;
    expect((await turn).stopReason).toBe("end_turn");
    expect(JSON.stringify(c.updates(sessionId))).toContain("finished");
  });
});
