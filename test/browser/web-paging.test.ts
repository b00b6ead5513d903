// A long session in a real Chromium: the page reads only the newest page of its history first
// (far fewer updates than the session holds reach the page before the last one is on screen),
// older ones appear in order as the reader scrolls to the top, and live updates that come while
// the reader is far up, then after "Jump to latest", are shown once each, in order.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, type HubTestClient } from "../helpers/hub.js";
import {
  launchBrowser,
  loggedIn,
  scenario,
  turnEnded,
  webFixture,
  type WebHub,
} from "./web-fixture.js";

const fx = webFixture();
let browser: Browser;
let hub: WebHub;
let page: Page;
let driver: HubTestClient;

/** Recorded tool calls c0..c(CALLS-1), over TURNS prompts. */
const CALLS = 4000;
const TURNS = 4;

beforeAll(async () => {
  [browser, hub] = await Promise.all([launchBrowser(), fx.start()]);
  ({ page } = await loggedIn(browser, hub.loginUrl));
  driver = fx.hubs.connect(hub.h, "ws");
});
afterAll(async () => {
  await browser?.close();
  await fx.cleanup();
});

const call = (i: number) => ({
  toolCall: {
    toolCallId: `c${i}`,
    title: `Call ${i}`,
    kind: "read",
    status: "completed",
  },
});

// Records the long session through another client; its id.
async function record(): Promise<string> {
  const sessionId = await openSession(driver, hub.home);
  const per = CALLS / TURNS;
  for (let t = 0; t < TURNS; t++) {
    const steps = Array.from({ length: per }, (_, i) => call(t * per + i));
    await driver.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: scenario(...steps) }],
    });
  }
  return sessionId;
}

// The tool call ids on screen, in document order.
const shownCalls = () =>
  page.$$eval("[data-tool-id]", (els) =>
    els.map((e) => e.getAttribute("data-tool-id")!),
  );

describe("a long session in the page", () => {
  it("shows the newest first, older in order at the top, and live updates once each", async () => {
    const sessionId = await record();
    let updates = 0;
    page.on("websocket", (ws) =>
      ws.on("framereceived", ({ payload }) => {
        updates += String(payload).split('"session/update"').length - 1;
      }),
    );
    // A new document (a new connection, observed from its start).
    await page.goto(new URL(`/?open=1#/s/${sessionId}`, page.url()).href);
    await page.waitForSelector(`[data-tool-id="c${CALLS - 1}"]`);
    // The page did not wait for the whole history: it asked for its newest page.
    expect(updates).toBeLessThan(100);
    expect((await shownCalls()).includes("c0")).toBe(false);

    // The reader goes to the top (Home, again as older pages arrive above) until the first calls
    // are shown in order from c0. (Under load the view was once seen at c348 just after c0 had
    // been rendered: pressing Home again brings it back; why it moved is not known yet.)
    let top: string[] = [];
    await expect
      .poll(
        async () => {
          await page.locator(".scroller").press("Home");
          top = await shownCalls();
          return top.length > 3 && top.every((id, i) => id === `c${i}`);
        },
        { timeout: 60_000 },
      )
      .toBe(true);

    // Live while the reader is at the top, then back to the end.
    const live = Array.from({ length: 30 }, (_, i) => ({ text: `L${i} ` }));
    await driver.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: scenario(...live) }],
    });
    await page.getByRole("button", { name: /Jump to latest/ }).click();
    await page.waitForSelector(".msg.agent >> text=L29");
    const more = Array.from({ length: 30 }, (_, i) => ({ text: `M${i} ` }));
    await driver.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: scenario(...more, call(CALLS)) }],
    });
    await page.waitForSelector(`[data-tool-id="c${CALLS}"]`);
    await turnEnded(page);
    const replies = await page.$$eval(".msg.agent", (els) =>
      els.map((e) => e.textContent!.trim()),
    );
    expect(replies.slice(-2)).toEqual([
      live
        .map((s) => s.text)
        .join("")
        .trim(),
      more
        .map((s) => s.text)
        .join("")
        .trim(),
    ]);
    expect((await shownCalls()).slice(-2)).toEqual([
      `c${CALLS - 1}`,
      `c${CALLS}`,
    ]);
  }, 240_000);
});
