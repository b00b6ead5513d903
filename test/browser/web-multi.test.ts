// Several clients on one session in a real Chromium: two pages and an SDK client standing for
// an editor each see the others' prompts and every update exactly once; a dropped WebSocket
// shows a banner, reconnects by itself and catches up from the last sequence number seen,
// with nothing missing or doubled, even in the middle of the page's own turn.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INIT,
  seqOf,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { startProxy, type TcpProxy } from "./tcp-proxy.js";
import {
  loggedIn,
  newSession,
  scenario,
  send,
  turnEnded,
  webFixture,
  type WebHub,
} from "./web-fixture.js";

const fx = webFixture();
let browser: Browser;
let hub: WebHub;
let proxy: TcpProxy;
let pageA: Page;
let pageB: Page;

beforeAll(async () => {
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy?.close();
});
// Registered after the proxy's hooks: its own run after the proxy starts and before it closes.
fx.withBrowser(
  {
    // The proxy's address is the hub's public one: its port names the login cookie, which both
    // pages (one through the proxy, one straight to the hub) then share (issue 38).
    serve: () => ({
      allowOrigins: [proxy.origin],
      publicUrl: proxy.origin,
      sessionsPerMinute: 1000,
    }),
  },
  async (b, h) => {
    [browser, hub] = [b, h];
    proxy.target.port = Number(new URL(hub.h.url).port);
    // Page A goes through the proxy (its connection can be dropped); page B straight to the hub.
    const viaProxy = hub.loginUrl.replace(hub.h.url, proxy.origin);
    ({ page: pageA } = await loggedIn(browser, viaProxy));
    pageB = await pageA.context().newPage();
  },
);

const users = (p: Page) => p.locator(".msg.user").allInnerTexts();
const replies = (p: Page) => p.locator(".msg.agent").allInnerTexts();

// An SDK client (standing for an editor) attached to the session.
async function editorOn(sessionId: string): Promise<HubTestClient> {
  const editor = fx.hubs.connect(hub.h, "ws");
  await editor.agent.request("initialize", INIT);
  await editor.agent.request("session/load", {
    sessionId,
    cwd: hub.home,
    mcpServers: [],
  });
  return editor;
}

const editorTexts = (c: HubTestClient, sessionId: string, kind: string) =>
  c
    .updates(sessionId)
    .filter(
      (u) => (u["update"] as { sessionUpdate: string }).sessionUpdate === kind,
    )
    .map((u) => (u["update"] as { content: { text: string } }).content.text)
    .join("");

describe("the web page with other clients", () => {
  it("two pages and an editor drive one session: each sees the others' prompts and every update once", async () => {
    const sessionId = await newSession(pageA, hub.home);
    await pageB.goto(`${hub.h.url}/#/s/${sessionId}`);
    await pageB.waitForSelector(`.session[data-session-id="${sessionId}"]`);
    const editor = await editorOn(sessionId);

    await send(pageA, "hello from page A");
    await turnEnded(pageA);
    await pageB.locator(".msg.agent", { hasText: "page A" }).waitFor();
    await send(pageB, "hello from page B");
    await turnEnded(pageB);
    await pageA.locator(".msg.agent", { hasText: "page B" }).waitFor();
    // The editor's turn: the pages offer to queue a prompt behind it meanwhile (issue 37).
    const editorTurn = editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(scenario({ text: "editor reply" }, { sleep: 400 })),
    });
    for (const p of [pageA, pageB])
      await p.getByRole("button", { name: "Queue" }).waitFor();
    expect(
      await pageA.getByRole("textbox", { name: "Prompt" }).isDisabled(),
    ).toBe(false);
    await editorTurn;
    for (const p of [pageA, pageB]) await turnEnded(p);

    const expectedUsers = [
      "hello from page A",
      "hello from page B",
      scenario({ text: "editor reply" }, { sleep: 400 }),
    ];
    const expectedReplies = [
      "mock agent received: hello from page A",
      "mock agent received: hello from page B",
      "editor reply",
    ];
    for (const p of [pageA, pageB]) {
      expect(await users(p)).toEqual(expectedUsers);
      expect(await replies(p)).toEqual(expectedReplies);
    }
    expect(editorTexts(editor, sessionId, "user_message_chunk")).toBe(
      "hello from page Ahello from page B",
    );
    expect(editorTexts(editor, sessionId, "agent_message_chunk")).toBe(
      expectedReplies.join(""),
    );
    const seqs = editor.updates(sessionId).map(seqOf);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it("a dropped connection: a banner, a reconnect by itself, and what was missed shown once", async () => {
    const sessionId = await newSession(pageA, hub.home);
    await send(pageA, "before the drop");
    await turnEnded(pageA);
    const editor = await editorOn(sessionId);
    proxy.down();
    await pageA.locator(".banner[data-status=offline]").waitFor();
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("while the page was away"),
    });
    proxy.up();
    await pageA
      .locator(".msg.agent", { hasText: "while the page was away" })
      .waitFor();
    await pageA.locator(".banner").waitFor({ state: "detached" });
    expect(await users(pageA)).toEqual([
      "before the drop",
      "while the page was away",
    ]);
    expect(await replies(pageA)).toEqual([
      "mock agent received: before the drop",
      "mock agent received: while the page was away",
    ]);
  });

  it("a drop in the middle of the page's own turn: the turn is picked up again, not run twice", async () => {
    const sessionId = await newSession(pageA, hub.home);
    const turn = scenario(
      { text: "first half. " },
      { sleep: 600 },
      { text: "second half." },
    );
    await send(pageA, turn);
    await pageA.locator(".msg.agent", { hasText: "first half" }).waitFor();
    proxy.down();
    await pageA.locator(".banner[data-status=offline]").waitFor();
    proxy.up();
    await turnEnded(pageA);
    expect(await replies(pageA)).toEqual(["first half. second half."]);
    expect(await users(pageA)).toEqual([turn]);
    const editor = await editorOn(sessionId);
    await until(() => editor.updates(sessionId).length > 0);
    expect(editorTexts(editor, sessionId, "agent_message_chunk")).toBe(
      "first half. second half.",
    );
  });

  it("the session list: newest first, a page at a time, filtered by text and folder, live turns marked as they run", async () => {
    const editor = fx.hubs.connect(hub.h, "ws");
    await editor.agent.request("initialize", INIT);
    const other = tempDir();
    const open = async (cwd: string) =>
      (
        await editor.agent.request<{ sessionId: string }>("session/new", {
          cwd,
          mcpServers: [],
        })
      ).sessionId;
    const needle = await open(other);
    await editor.agent.request("session/prompt", {
      sessionId: needle,
      prompt: text("find the needle"),
    });
    for (let i = 0; i < 50; i++) await open(hub.home);
    await pageB.goto(`${hub.h.url}/#/`);
    const rows = pageB.locator(".session-rows li");
    await pageB.getByRole("button", { name: "More sessions" }).waitFor();
    expect(await rows.count()).toBe(50);
    await pageB.getByRole("button", { name: "More sessions" }).click();
    await pageB
      .locator(".session-rows li", { hasText: "find the needle" })
      .waitFor();
    const total = await rows.count();
    expect(total).toBeGreaterThanOrEqual(51);
    await pageB.getByLabel("Filter sessions").fill("needle");
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringContaining("find the needle"),
    ]);
    await pageB.getByLabel("Filter sessions").fill("");
    await pageB.getByLabel("Folder filter").fill(other);
    await pageB.getByLabel("Folder filter").press("Enter");
    await expect.poll(() => rows.count()).toBe(1);
    // A turn another client runs shows as live, and stops showing when it ends.
    const turn = editor.agent.request("session/prompt", {
      sessionId: needle,
      prompt: text(scenario({ sleep: 600 })),
    });
    await pageB.locator(".session-rows li.live .state").waitFor();
    await turn;
    await pageB.locator(".session-rows li.live").waitFor({ state: "detached" });
    // Newest first: the turn made the needle's session the newest.
    await pageB.getByLabel("Folder filter").fill("");
    await pageB.getByLabel("Folder filter").press("Enter");
    await pageB
      .locator(".session-rows li")
      .first()
      .filter({ hasText: "find the needle" })
      .waitFor();
  });
});
