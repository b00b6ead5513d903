// Issue 37 on the page: while another client's turn runs, the composer queues the prompt; the
// queued prompts are listed under the running turn with a Revoke button (calling
// `_acphub/queue/revoke`); a revoked one leaves the list and never runs, the other runs after the
// turn and its reply shows.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { INIT, text, type HubTestClient } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import {
  loggedIn,
  newSession,
  scenario,
  send,
  webFixture,
  type WebHub,
} from "./web-fixture.js";

const fx = webFixture();
let page: Page;
let hub: WebHub;
fx.withBrowser({}, async (browser, h) => {
  hub = h;
  ({ page } = await loggedIn(browser, hub.loginUrl));
});

// An SDK client (an editor) attached to the session.
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

it("queues behind another client's turn, lists it with Revoke, runs the rest after the turn", async () => {
  const sessionId = await newSession(page, hub.home);
  const editor = await editorOn(sessionId);
  const gate = join(tempDir(), "go");
  const turn = editor.agent.request("session/prompt", {
    sessionId,
    prompt: text(scenario({ text: "editor working " }, { waitFile: gate })),
  });
  await page.getByRole("button", { name: "Queue" }).waitFor();
  await send(page, "revoke me");
  await send(page, "run me later");
  const list = page.getByRole("region", { name: "Queued prompts" });
  await list.getByText("run me later").waitFor();
  expect(await list.locator("li").allInnerTexts()).toEqual([
    expect.stringContaining("revoke me"),
    expect.stringContaining("run me later"),
  ]);
  await list
    .locator("li", { hasText: "revoke me" })
    .getByRole("button", { name: "Revoke" })
    .click();
  await list
    .locator("li", { hasText: "revoke me" })
    .waitFor({ state: "detached" });
  writeFileSync(gate, "");
  await turn;
  await page
    .locator(".msg.agent", { hasText: "mock agent received: run me later" })
    .waitFor();
  await list.waitFor({ state: "detached" });
  const replies = await page.locator(".msg.agent").allInnerTexts();
  expect(replies.join("\n")).not.toContain("received: revoke me");
  // The editor was told of both, and of the revoke.
  const notices = editor
    .updates(sessionId)
    .map((u) => JSON.stringify(u["_meta"] ?? {}))
    .filter((m) => m.includes("queueId"));
  expect(notices.some((n) => n.includes('"reason":"revoked"'))).toBe(true);
  expect(notices.some((n) => n.includes('"reason":"started"'))).toBe(true);
});
