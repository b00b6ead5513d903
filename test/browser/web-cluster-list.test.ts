// Issue 38, the cluster in the page, in a real Chromium: the sidebar of a page on node B shows a
// turn running on node A as running for a session open nowhere on B (no client of B follows
// it) — live, as the turn begins, and after a reload — and idle once it ended.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterFixture, type ClusterNode } from "../helpers/cluster.js";
import { openSession, text, until } from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { launchBrowser, loggedIn } from "./web-fixture.js";

const cluster = clusterFixture();
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// A logged-in page of a node, on its home (no session open).
async function homeOn(n: ClusterNode): Promise<Page> {
  const first = JSON.parse(n.h.stdout().split("\n")[0]!) as {
    loginUrl: string;
  };
  const { page } = await loggedIn(browser, first.loginUrl);
  await page.goto(`${n.h.url}/`);
  await page.locator(".sessions").waitFor();
  return page;
}

// The state the sidebar's row shows (an idle row shows no badge). Read in one step in the page:
// counting the badge and then asking its attribute raced the turn's end (the badge went away
// between the two and the second waited for it until the test's timeout).
async function rowState(p: Page, sessionId: string): Promise<string> {
  return p
    .locator(`.session-rows li[data-id="${sessionId}"]`)
    .evaluate(
      (li) => li.querySelector(".state")?.getAttribute("data-state") ?? "idle",
    );
}

describe(
  "the sidebar of a node that follows nothing of the session",
  { timeout: 120_000 },
  () => {
    it("shows A's turn running (live and after a reload) for a session open nowhere on B, then idle", async () => {
      const url = await cluster.database();
      const a = await cluster.node(url, "node-a", 10_000, 1000);
      const b = await cluster.node(url, "node-b", 10_000, 1000);
      const onA = cluster.client(a.h);
      const sessionId = await openSession(onA, a.home);
      const page = await homeOn(b);
      await until(async () => (await rowState(page, sessionId)) === "idle");
      const turn = onA.agent.request<{ stopReason: string }>("session/prompt", {
        sessionId,
        prompt: text(steps({ text: "started " }, { sleep: 60_000 })),
      });
      turn.catch(() => undefined);
      await until(async () => (await rowState(page, sessionId)) === "running");
      await page.reload();
      await page.locator(".sessions").waitFor();
      await until(async () => (await rowState(page, sessionId)) === "running");
      // No page on B opened the session.
      expect(page.url()).not.toContain(sessionId);
      await onA.agent.notify("session/cancel", { sessionId });
      expect(await turn).toMatchObject({ stopReason: "cancelled" });
      await until(async () => (await rowState(page, sessionId)) === "idle");
    });
  },
);
