// Issue 38, the cluster in the page, in a real Chromium: a page on node B, which does not run
// the session, shows a turn running on node A as running (header, sidebar, Stop turn), its Stop
// turn cancels it on A, and it shows it finished; after A is killed mid-turn, the page on B
// shows the turn interrupted and its tool call no longer running, without anyone prompting —
// live and after a reload.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterFixture, type ClusterNode } from "../helpers/cluster.js";
import { allowOnce, openSession, text, until } from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { launchBrowser, loggedIn, turnEnded } from "./web-fixture.js";

const cluster = clusterFixture();
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// A turn with a tool call still running, that sleeps until cancelled.
const LONG = text(
  steps(
    { text: "started " },
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Edit it",
        status: "in_progress",
      },
    },
    { sleep: 60_000 },
  ),
);

// Two nodes; a session made on A with its long turn running there; a page on B showing it,
// opened mid-turn, or (`pageFirst`) before the turn began.
async function turnOnA(
  leaseMs: number,
  heartbeatMs: number,
  pageFirst = false,
) {
  const url = await cluster.database();
  const a = await cluster.node(url, "node-a", leaseMs, heartbeatMs);
  const b = await cluster.node(url, "node-b", leaseMs, heartbeatMs);
  const onA = cluster.client(a.h);
  const sessionId = await openSession(onA, a.home);
  const early = pageFirst ? await pageOn(b, sessionId) : undefined;
  const turn = onA.agent.request<{ stopReason: string }>("session/prompt", {
    sessionId,
    prompt: LONG,
  });
  turn.catch(() => undefined);
  await until(() => JSON.stringify(onA.updates(sessionId)).includes("Edit it"));
  const page = early ?? (await pageOn(b, sessionId));
  await page.getByText("started").first().waitFor();
  return { a, b, onA, sessionId, turn, page };
}

// A logged-in page of a node, on the session.
async function pageOn(n: ClusterNode, sessionId: string): Promise<Page> {
  const first = JSON.parse(n.h.stdout().split("\n")[0]!) as {
    loginUrl: string;
  };
  const { page } = await loggedIn(browser, first.loginUrl);
  await page.goto(`${n.h.url}/#/s/${sessionId}`);
  await page.waitForSelector(".session-head");
  return page;
}

const headerState = (p: Page) =>
  p.locator(".session-head .state").getAttribute("data-state");
const rowState = (p: Page, sessionId: string) =>
  p
    .locator(`.session-rows li[data-id="${sessionId}"] .state`)
    .getAttribute("data-state");

describe(
  "a page on the node that does not run the turn",
  { timeout: 120_000 },
  () => {
    it("shows A's turn running (header, sidebar, Stop turn); Stop turn cancels it on A; then it shows it stopped", async () => {
      const { page, sessionId, turn } = await turnOnA(10_000, 1000);
      await page.waitForSelector(".turn-state[data-running=true]");
      expect(await headerState(page)).toBe("running");
      await until(async () => (await rowState(page, sessionId)) === "running");
      await expect(page.locator(".turn-state").innerText()).resolves.toContain(
        "The agent is working",
      );
      await page.getByRole("button", { name: "Stop turn" }).click();
      expect(await turn).toMatchObject({ stopReason: "cancelled" });
      await turnEnded(page, "cancelled");
      expect(await headerState(page)).toBe("idle");
      await expect(
        page.getByRole("button", { name: "Stop turn" }).count(),
      ).resolves.toBe(0);
    });

    it("A killed mid-turn: B's page shows the turn interrupted and the tool call not running, with no prompt, and the same after a reload", async () => {
      // The page is there before the turn begins (it saw it start without this fix too).
      const { a, page } = await turnOnA(5000, 500, true);
      await page.waitForSelector(".turn-state[data-running=true]");
      const status = page.locator('[data-tool-id="t1"] .tool-status');
      expect(await status.getAttribute("data-status")).toBe("in_progress");
      a.h.child.kill("SIGKILL");
      await a.h.exited;
      cluster.forget(a.h);
      await page.waitForSelector(".turn-state[data-running=false]");
      await expect(page.locator(".turn-state").innerText()).resolves.toContain(
        "Interrupted: outcome unknown. Node node-a, which ran it,",
      );
      expect(await status.getAttribute("data-status")).toBe("interrupted");
      expect(await status.innerText()).toBe("interrupted: outcome unknown");
      await page.reload();
      await page.getByText("started").first().waitFor();
      const again = page.locator('[data-tool-id="t1"] .tool-status');
      await again.waitFor();
      expect(await again.getAttribute("data-status")).toBe("interrupted");
    });

    it("while a question of A's turn waits on A, B's page says the session waits for an answer (header, sidebar), then that it finished", async () => {
      const url = await cluster.database();
      const a = await cluster.node(url, "node-a", 10_000, 1000);
      const b = await cluster.node(url, "node-b", 10_000, 1000);
      const answers: (() => void)[] = [];
      const onA = cluster.client(a.h, (method, params) => {
        return new Promise((resolve) =>
          answers.push(() => resolve(allowOnce(method, params))),
        );
      });
      const sessionId = await openSession(onA, a.home);
      const page = await pageOn(b, sessionId);
      const turn = onA.agent.request<{ stopReason: string }>("session/prompt", {
        sessionId,
        prompt: text(
          steps(
            { text: "start " },
            { permission: { title: "Edit it", kind: "edit" } },
            { text: "after" },
          ),
        ),
      });
      await until(() => answers.length === 1);
      await page.waitForSelector('.session-head .state[data-state="waiting"]');
      await until(async () => (await rowState(page, sessionId)) === "waiting");
      // The page has read the turn so far (its list alone says "waiting"): what follows, the
      // turn's end included, reaches it live, not in a history it opens after the end.
      await page.getByText("start").first().waitFor();
      answers[0]!();
      expect(await turn).toMatchObject({ stopReason: "end_turn" });
      await turnEnded(page, "end_turn");
      expect(await headerState(page)).toBe("idle");
    });
  },
);
