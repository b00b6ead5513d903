// What `acphub serve` gives the web page's sidebar and new-session form: each session's state
// (waiting for approval, with who holds the question; failed; idle) in session/list and in the
// change notifications, a search over titles and text, the hub's folder, and a refusal of a
// working folder that cannot be one.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  hubFixture,
  openSession,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { TEAM_WORK } from "../helpers/team.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

const WATCH = {
  protocolVersion: 1,
  clientCapabilities: { _meta: { acphub: { watch: true } } },
  clientInfo: { name: "my-editor", version: "1" },
};

const stateIn = async (c: HubTestClient, sessionId: string) => {
  const listed = await c.agent.request<{ sessions: Record<string, unknown>[] }>(
    "session/list",
    {},
  );
  const row = listed.sessions.find((s) => s["sessionId"] === sessionId);
  return (row?.["_meta"] as { acphub: Record<string, unknown> }).acphub;
};

describe("acphub serve: what the sidebar shows", () => {
  it("a session waits for approval while its question is open (naming the client asked), then is idle; a failed turn shows failed", async () => {
    const { h } = await fx.start();
    let answer: (v: unknown) => void = () => undefined;
    const editor = fx.connect(h, "ws", () => new Promise((r) => (answer = r)));
    const page = fx.connect(h, "ws");
    await editor.agent.request("initialize", WATCH);
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await page.agent.request("initialize", WATCH);
    const turn = editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ permission: { toolCallId: "q1", title: "Run it" } }),
      ),
    });
    await until(
      async () => (await stateIn(page, sessionId))["state"] === "waiting",
    );
    expect(await stateIn(page, sessionId)).toMatchObject({
      state: "waiting",
      askedOf: "my-editor",
      running: true,
    });
    expect(
      page.notifications.some(
        (n) =>
          n.method === "_acphub/sessions/changed" &&
          n.params["state"] === "waiting" &&
          n.params["askedOf"] === "my-editor",
      ),
    ).toBe(true);
    answer({ outcome: { outcome: "cancelled" } });
    await turn;
    expect((await stateIn(page, sessionId))["state"]).toBe("idle");
    await editor.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(steps({ exit: 3 })),
      })
      .catch(() => undefined);
    await until(
      async () => (await stateIn(page, sessionId))["state"] === "failed",
    );
  });

  it("searches titles and the sessions' text; refuses an empty query", async () => {
    const { h } = await fx.start();
    const c = fx.connect(h, "ws");
    const a = await openSession(c, TEAM_WORK);
    const { sessionId: b } = await c.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await c.agent.request("session/prompt", {
      sessionId: a,
      prompt: text("the Zebra crossing"),
    });
    await c.agent.request("session/set_title", {
      sessionId: b,
      title: "About zebras",
    });
    const found = (query: string) =>
      c.agent.request<{ sessionIds: string[] }>("_acphub/sessions/search", {
        query,
      });
    expect((await found("zebra")).sessionIds.sort()).toEqual([a, b].sort());
    expect((await found("crossing")).sessionIds).toEqual([a]);
    // The mock agent echoes the prompt: its reply's text is searched too.
    expect((await found("received: the zebra")).sessionIds).toEqual([a]);
    expect((await found("sessionUpdate")).sessionIds).toEqual([]);
    await expect(found("  ")).rejects.toThrow(/non-empty query/);

    // A phrase across two chunks of a reply still streaming (not yet merged by compaction).
    const gate = join(tempDir(), "gate");
    const turn = c.agent.request("session/prompt", {
      sessionId: b,
      prompt: text(
        steps(
          { text: "a striped ", chunks: 1 },
          { text: "horse", chunks: 1 },
          { waitFile: gate },
        ),
      ),
    });
    await until(() =>
      c.updates(b).some((u) => JSON.stringify(u).includes('"text":"horse"')),
    );
    expect((await found("striped horse")).sessionIds).toEqual([b]);
    writeFileSync(gate, "");
    await turn;
  });

  it("offers the hub's folder and how each agent runs; refuses a relative, missing or non-directory folder with a clear error", async () => {
    const { h } = await fx.start();
    const c = fx.connect(h, "ws");
    await c.agent.request("initialize", WATCH);
    const agents = await c.agent.request<{
      cwd: string;
      agents: { name: string; source: string }[];
    }>("_acphub/agents", {});
    expect(agents.cwd).toMatch(/^\//);
    expect(agents.agents.find((x) => x.name === "mock")?.source).toBeTruthy();
    const dir = tempDir();
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const refused = (cwd: string) =>
      c.agent.request("session/new", { cwd, mcpServers: [] });
    await expect(refused("relative/path")).rejects.toThrow(
      /must be an absolute path: "relative\/path"/,
    );
    await expect(refused(join(dir, "missing"))).rejects.toThrow(
      /does not exist/,
    );
    await expect(refused(file)).rejects.toThrow(/is not a directory/);
    const listed = await c.agent.request<{ sessions: unknown[] }>(
      "session/list",
      {},
    );
    expect(listed.sessions).toEqual([]);
  });
});
