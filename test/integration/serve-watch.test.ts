// What `acphub serve` tells clients beyond session updates, for the web page: another
// client's prompt (every attached client sees it, with its sequence number), and for clients
// that ask to watch, turns starting and ending and sessions changing, and session/list with
// each session's agent and whether a turn runs in it.
import { afterEach, describe, expect, it } from "vitest";
import {
  hubFixture,
  openSession,
  seqOf,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { TEAM_WORK } from "../helpers/team.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

const WATCH = {
  protocolVersion: 1,
  clientCapabilities: { _meta: { acphub: { watch: true } } },
};

const userTexts = (c: HubTestClient, sessionId: string) =>
  c
    .updates(sessionId)
    .filter(
      (u) =>
        (u["update"] as { sessionUpdate: string }).sessionUpdate ===
        "user_message_chunk",
    )
    .map((u) => ({
      text: (u["update"] as { content: { text: string } }).content.text,
      seq: seqOf(u),
    }));

const named = (c: HubTestClient, method: string) =>
  c.notifications.filter((n) => n.method === method).map((n) => n.params);

describe("acphub serve: watching clients", () => {
  it("each attached client sees the other's prompt once, with its seq; a client that does not watch is not sent its own", async () => {
    const { h } = await fx.start();
    const editor = fx.connect(h, "ws");
    const page = fx.connect(h, "ws");
    const sessionId = await openSession(editor, TEAM_WORK);
    await page.agent.request("initialize", WATCH);
    await page.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("from the editor"),
    });
    await page.agent.request("session/prompt", {
      sessionId,
      prompt: text("from the page"),
    });
    await until(() => userTexts(editor, sessionId).length === 1);
    const editorSaw = userTexts(editor, sessionId);
    expect(editorSaw.map((u) => u.text)).toEqual(["from the page"]);
    const pageSaw = userTexts(page, sessionId);
    expect(pageSaw.map((u) => u.text)).toEqual([
      "from the editor",
      "from the page",
    ]);
    expect(pageSaw.every((u) => u.seq > 0)).toBe(true);
    expect(editorSaw[0]!.seq).toBe(pageSaw[1]!.seq);
    // Every update once, in seq order, for the watcher.
    const seqs = page.updates(sessionId).map(seqOf);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it("a watcher hears turns start and end (with the stop reason) and sessions change; others hear neither", async () => {
    const { h } = await fx.start();
    const editor = fx.connect(h, "ws");
    const page = fx.connect(h, "ws");
    await page.agent.request("initialize", WATCH);
    const sessionId = await openSession(editor, TEAM_WORK);
    await until(() =>
      named(page, "_acphub/sessions/changed").some(
        (p) => p["sessionId"] === sessionId,
      ),
    );
    await page.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    const running = editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "working" }, { sleep: 400 })),
    });
    await until(() => named(page, "_acphub/session/state").length === 1);
    expect(named(page, "_acphub/session/state")[0]).toEqual({
      sessionId,
      running: true,
    });
    const listed = await page.agent.request<{
      sessions: Record<string, unknown>[];
    }>("session/list", {});
    const row = listed.sessions.find((s) => s["sessionId"] === sessionId)!;
    expect(row["_meta"]).toEqual({
      acphub: { agent: "mock", running: true, state: "running" },
    });
    await running;
    await until(() => named(page, "_acphub/session/state").length === 2);
    expect(named(page, "_acphub/session/state")[1]).toEqual({
      sessionId,
      running: false,
      stopReason: "end_turn",
    });
    const after = await page.agent.request<{
      sessions: Record<string, unknown>[];
    }>("session/list", {});
    expect(
      after.sessions.find((s) => s["sessionId"] === sessionId)!["_meta"],
    ).toEqual({
      acphub: { agent: "mock", running: false, state: "idle" },
    });
    expect(
      editor.notifications.filter((n) => n.method.startsWith("_acphub/")),
    ).toEqual([]);
  });
});

describe("acphub serve: watching forks", () => {
  it("a fork made by another client is announced to watchers as a changed session", async () => {
    const { h } = await fx.start({}, [
      "--session-capabilities",
      "fork,list,resume,close",
    ]);
    const editor = fx.connect(h, "ws");
    const page = fx.connect(h, "ws");
    await page.agent.request("initialize", WATCH);
    const sessionId = await openSession(editor, TEAM_WORK);
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("before the fork"),
    });
    const fork = await editor.agent.request<{ sessionId: string }>(
      "session/fork",
      { sessionId, cwd: TEAM_WORK, mcpServers: [] },
    );
    await until(() =>
      named(page, "_acphub/sessions/changed").some(
        (p) => p["sessionId"] === fork.sessionId,
      ),
    );
  });
});
