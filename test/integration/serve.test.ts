// `acphub serve` as a real subprocess; the SDK's own WebSocket and Streamable HTTP clients
// drive full turns through it against the mock agent.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  allowOnce,
  hubFixture,
  INIT,
  openSession,
  processesWith,
  seqOf,
  text,
  until,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());
const hub = (flags: string[] = []) => fx.start({}, flags);
const connect = fx.connect;
const open = openSession;
const allowFirst = allowOnce;

describe.each(["ws", "http"] as const)("acphub serve over %s", (transport) => {
  it("runs a full turn: unknown variants and _meta intact, a permission answered, seq on every update", async () => {
    const { h, home } = await hub();
    const asked: Record<string, unknown>[] = [];
    const c = connect(
      h,
      transport,
      (m, p) => (asked.push(p), allowFirst(m, p)),
    );
    const sessionId = await open(c, home);
    expect(sessionId).toMatch(/^hub-/);
    const future = {
      sessionUpdate: "future_variant",
      nested: { a: [1] },
      _meta: { "vendor/x": true },
    };
    const result = await c.agent.request<Record<string, unknown>>(
      "session/prompt",
      {
        sessionId,
        prompt: text(
          steps(
            { text: "hello", _meta: { chunkMeta: 1 } },
            { update: future },
            { permission: { title: "Edit the file", kind: "edit" } },
          ),
        ),
      },
    );
    expect(result["stopReason"]).toBe("end_turn");
    expect(asked).toHaveLength(1);
    expect(asked[0]!["sessionId"]).toBe(sessionId);
    const updates = c.updates(sessionId);
    const kinds = updates.map(
      (u) => (u["update"] as { sessionUpdate: string }).sessionUpdate,
    );
    expect(kinds).toContain("future_variant");
    expect(
      updates.find(
        (u) =>
          (u["update"] as { sessionUpdate: string }).sessionUpdate ===
          "future_variant",
      )!["update"],
    ).toEqual(future);
    const hello = updates.find((u) => JSON.stringify(u).includes("hello"))!;
    expect(hello["_meta"]).toMatchObject({
      chunkMeta: 1,
      acphub: { seq: expect.any(Number) },
    });
    const seqs = updates.map(seqOf);
    expect(seqs.every((s) => s > 0)).toBe(true);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(JSON.stringify(updates)).toContain("permission granted");
  });

  it("cancels a running turn from session/cancel", async () => {
    const { h, home } = await hub();
    const c = connect(h, transport);
    const sessionId = await open(c, home);
    const turn = c.agent.request<{ stopReason: string }>("session/prompt", {
      sessionId,
      prompt: text(
        steps({ text: "started" }, { sleep: 20_000 }, { text: "never" }),
      ),
    });
    await until(() => c.updates(sessionId).length > 0);
    await c.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(JSON.stringify(c.updates(sessionId))).not.toContain("never");
  });
});

describe.each(["ws", "http"] as const)(
  "acphub serve answers what it advertises, over %s",
  (transport) => {
    it("serves session/set_mode and session/fork from the method table, and advertises fork", async () => {
      const { h, home } = await hub([
        "--modes",
        "--session-capabilities",
        "fork,list,resume,close",
      ]);
      const c = connect(h, transport);
      const init = await c.agent.request<Record<string, unknown>>(
        "initialize",
        INIT,
      );
      const caps = init["agentCapabilities"] as Record<string, unknown>;
      expect(caps["sessionCapabilities"]).toHaveProperty("fork");
      const { sessionId } = await c.agent.request<{ sessionId: string }>(
        "session/new",
        { cwd: home, mcpServers: [] },
      );
      await c.agent.request("session/set_mode", { sessionId, modeId: "code" });
      const status = await c.agent.request<Record<string, unknown>>(
        "session/status",
        { sessionId },
      );
      expect(status["status"]).toBe("open");
      await c.agent.request("session/prompt", {
        sessionId,
        prompt: text("remember the word zebra"),
      });
      const fork = await c.agent.request<{
        sessionId: string;
        modes?: { currentModeId: string };
      }>("session/fork", { sessionId, cwd: home, mcpServers: [] });
      expect(fork.sessionId).toMatch(/^hub-/);
      expect(fork.sessionId).not.toBe(sessionId);
      expect(fork.modes?.currentModeId).toBe("code");
      // The forking connection is attached to the fork: its first prompt has the parent's context.
      const result = await c.agent.request<{ stopReason: string }>(
        "session/prompt",
        { sessionId: fork.sessionId, prompt: text(steps({ history: true })) },
      );
      expect(result.stopReason).toBe("end_turn");
      expect(JSON.stringify(c.updates(fork.sessionId))).toContain(
        "remember the word zebra",
      );
    });
  },
);

describe("acphub serve: one hub, many clients", () => {
  it("a second connection loads a session while its turn streams: every update once, in order", async () => {
    const { h, home } = await hub();
    const driver = connect(h, "ws");
    const sessionId = await open(driver, home);
    // The turn holds at its middle until the observer's load was answered: with only sleeps a
    // loaded machine ended (and compacted) the turn before the load, which then replayed one
    // merged chunk.
    const gate = join(tempDir(), "loaded");
    const chunk = (i: number) => [{ text: `u${i} ` }, { sleep: 10 }];
    const many = [
      ...Array.from({ length: 20 }, (_, i) => chunk(i)).flat(),
      { waitFile: gate },
      ...Array.from({ length: 20 }, (_, i) => chunk(20 + i)).flat(),
    ];
    const turn = driver.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps(...many)),
      },
    );
    await until(() => driver.updates(sessionId).length >= 10);
    const observer = connect(h, "http");
    await observer.agent.request("initialize", INIT);
    await observer.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    writeFileSync(gate, "");
    expect((await turn).stopReason).toBe("end_turn");
    const said = (list: Record<string, unknown>[]) =>
      list
        .map(
          (u) =>
            u["update"] as {
              sessionUpdate: string;
              content?: { text?: string };
            },
        )
        .filter((u) => u.sessionUpdate === "agent_message_chunk")
        .map((u) => u.content?.text);
    // The agent's last chunk (the prompt's own text, replayed, also contains "u39 ").
    await until(() => said(observer.updates(sessionId)).at(-1) === "u39 ");
    const expected = Array.from({ length: 40 }, (_, i) => `u${i} `);
    // The replay gives the chunks stored before the load merged (the SQLite ledger merges them
    // as it folds its spool), the live ones as sent: the text once, in order.
    const observed = said(observer.updates(sessionId));
    expect(
      observed.join(""),
      JSON.stringify(observer.updates(sessionId).map(seqOf)),
    ).toBe(expected.join(""));
    expect(observed.slice(-20)).toEqual(expected.slice(-20));
    expect(said(driver.updates(sessionId))).toEqual(expected);
    const seqs = observer.updates(sessionId).map(seqOf);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it("a Streamable HTTP client loads a session another connection drove: the whole history, in order", async () => {
    const { h, home } = await hub();
    const driver = connect(h, "ws");
    const sessionId = await open(driver, home);
    await driver.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ text: "one " }, { text: "two " }, { text: "three" }),
      ),
    });
    const reader = connect(h, "http");
    await reader.agent.request("initialize", INIT);
    await reader.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    await until(() =>
      JSON.stringify(reader.updates(sessionId)).includes("three"),
    );
    const seqs = reader.updates(sessionId).map(seqOf);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const chunks = reader
      .updates(sessionId)
      .map(
        (u) => (u["update"] as { content?: { text?: string } }).content?.text,
      )
      .filter((t) => t !== undefined);
    expect(chunks.join("")).toContain("one two three");
  });

  it("a fork one connection made is a hub session: another lists it, loads the parent's history and sees its turns", async () => {
    const { h, home } = await hub();
    const maker = connect(h, "ws");
    const parent = await open(maker, home);
    await maker.agent.request("session/prompt", {
      sessionId: parent,
      prompt: text("the parent's only message"),
    });
    const { sessionId } = await maker.agent.request<{ sessionId: string }>(
      "session/fork",
      { sessionId: parent, cwd: home, mcpServers: [] },
    );
    const other = connect(h, "ws");
    await other.agent.request("initialize", INIT);
    const list = await other.agent.request<{
      sessions: { sessionId: string }[];
    }>("session/list", {});
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await other.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    expect(JSON.stringify(other.updates(sessionId))).toContain(
      "the parent's only message",
    );
    // The fork's turns reach every connection attached to it, and not the parent's.
    await maker.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "said in the fork" })),
    });
    await until(() =>
      JSON.stringify(other.updates(sessionId)).includes("said in the fork"),
    );
    expect(JSON.stringify(maker.updates(parent))).not.toContain(
      "said in the fork",
    );
  });

  it("lists agents with _acphub/agents and picks the agent from session/new _meta", async () => {
    const { h, home } = await hub();
    const c = connect(h, "ws");
    await c.agent.request("initialize", INIT);
    const { agents } = await c.agent.request<{
      agents: { name: string; installed: boolean }[];
    }>("_acphub/agents", {});
    expect(agents.map((a) => a.name)).toContain("mock");
    const { sessionId } = await c.agent
      .request<{ sessionId: string }>("session/new", {
        cwd: home,
        mcpServers: [],
        _meta: { acphub: { agent: "nope" } },
      })
      .catch((error: { message: string }) => ({ sessionId: error.message }));
    expect(sessionId).toMatch(
      /this hub does not offer agent "nope"; you may start: mock/,
    );
  });
});

describe("acphub serve: endpoints and shutdown", () => {
  it("answers /healthz without a token and /metrics only with one", async () => {
    const { h } = await hub();
    const health = await fetch(`${h.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    expect((await fetch(`${h.url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${h.url}/metrics`, {
      headers: { Authorization: `Bearer ${h.token}` },
    });
    expect(metrics.status).toBe(200);
    const body = await metrics.text();
    for (const name of [
      "acphub_connections",
      "acphub_turns_total",
      "acphub_ledger_append_seconds",
    ])
      expect(body).toContain(name);
  });

  it("SIGTERM mid-turn: the turn ends cancelled, the hub exits 0 and no agent survives", async () => {
    const { h, home } = await hub();
    const c = connect(h, "ws");
    const sessionId = await open(c, home);
    const marker = join(home, "agent-marker.json");
    expect(processesWith(marker).length).toBeGreaterThan(0);
    const turn = c.agent
      .request<{ stopReason: string }>("session/prompt", {
        sessionId,
        prompt: text(steps({ text: "working" }, { sleep: 20_000 })),
      })
      .catch((error: Error) => ({ stopReason: `error: ${error.message}` }));
    await until(() => c.updates(sessionId).length > 0);
    h.child.kill("SIGTERM");
    expect((await turn).stopReason).toBe("cancelled");
    expect(await h.exited).toBe(0);
    expect(h.stdout()).toContain('"event":"stopped"');
    await until(() => processesWith(marker).length === 0);
  });
});
