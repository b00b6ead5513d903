// The web page as a daily tool, in a real Chromium against a real `acphub serve`: the
// transcript follows a long streaming reply while the reader is at its end (and stops when
// they scroll up), a session opens at its end, a stale link says "not found" without
// hammering the hub, and the sidebar shows another session waiting for approval.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { INIT, text } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
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
let page: Page;

fx.withBrowser({ serve: { sessionsPerMinute: 1000 } }, async (b, h) => {
  [browser, hub] = [b, h];
  ({ page } = await loggedIn(browser, hub.loginUrl, {
    width: 1100,
    height: 700,
  }));
});

/** How far (px) the transcript's end is below what is in view. */
const gap = (p: Page) =>
  p
    .locator(".scroller")
    .evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);

/** Where the transcript's view is (px from its top). */
const top = (p: Page) => p.locator(".scroller").evaluate((el) => el.scrollTop);

/** Records, each time the transcript's content changes size (after the page has scrolled for
 *  it), how far its end is below the view and where the view is. */
async function watchScroll(p: Page): Promise<void> {
  await p.evaluate(() => {
    const el = document.querySelector(".scroller")!;
    const w = window as unknown as { __scroll: [number, number][] };
    w.__scroll = [];
    let first = true; // an observer's first call reports the size it started with
    new ResizeObserver(() => {
      if (!first)
        w.__scroll.push([
          el.scrollHeight - el.scrollTop - el.clientHeight,
          el.scrollTop,
        ]);
      first = false;
    }).observe(el.firstElementChild!);
  });
}
const scrolls = (p: Page) =>
  p.evaluate(
    () => (window as unknown as { __scroll: [number, number][] }).__scroll,
  );
const takeScrolls = (p: Page) =>
  p.evaluate(() => {
    const w = window as unknown as { __scroll: [number, number][] };
    return w.__scroll.splice(0);
  });

/** Paragraphs `from`… of a reply (`n` of them, one update each, `ms` apart), as scenario steps. */
const paragraphs = (from: number, n: number, ms: number) =>
  Array.from({ length: n }, (_, i) => [
    { text: `Paragraph ${from + i} of the long reply.\n\n` },
    ...(ms ? [{ sleep: ms }] : []),
  ]).flat();

/** Paragraphs of the last reply shown so far. */
const shownParagraphs = (p: Page, reply = 1) =>
  p.locator(".msg.agent").nth(reply).locator("p").count();
const SLOW = { timeout: 15_000 };

describe("the web page follows the conversation", () => {
  it("a session of 300 updates opens at its end; a streaming reply is followed while the reader is at the bottom, not once they scroll up, and again after “Jump to latest”", async () => {
    const sessionId = await newSession(page, hub.home);
    await send(page, scenario(...paragraphs(1, 300, 0)));
    await turnEnded(page);
    // Opened again (away and back): at its end.
    await page.goto(`${hub.h.url}/#/`);
    await page.goto(`${hub.h.url}/#/s/${sessionId}`);
    await page.locator(".msg.agent", { hasText: "Paragraph 300 of" }).waitFor();
    await expect.poll(() => gap(page), SLOW).toBeLessThanOrEqual(2);
    expect(
      await page.locator(".scroller").evaluate((e) => e.scrollTop),
    ).toBeGreaterThan(1000);

    // Streaming: each growth is followed. The agent goes on past each stage only once the page
    // showed it (a loaded machine can otherwise stream the whole reply before the reader moves).
    const dir = tempDir();
    const gate = [0, 1, 2].map((i) => join(dir, `gate${i}`));
    const moved = join(dir, "moved");
    await watchScroll(page);
    await send(
      page,
      scenario(
        ...paragraphs(1, 20, 0),
        { waitFile: moved },
        ...paragraphs(21, 130, 10),
        { waitFile: gate[0] },
        ...paragraphs(151, 100, 15),
        { waitFile: gate[1] },
        ...paragraphs(251, 30, 15),
        { waitFile: gate[2] },
        ...paragraphs(281, 20, 15),
      ),
    );
    // Only the reader leaves the end: a move up that is not theirs (no wheel, key or touch —
    // as when rows measured above the view or a shorter list move it) is undone by the next
    // output, not taken for the reader scrolling away.
    await expect.poll(() => shownParagraphs(page), SLOW).toBe(20);
    await page.locator(".scroller").evaluate((e) => (e.scrollTop -= 600));
    await takeScrolls(page);
    writeFileSync(moved, "");
    await expect.poll(() => shownParagraphs(page), SLOW).toBe(150);
    const followed = await takeScrolls(page);
    expect(followed.length).toBeGreaterThan(0);
    expect(Math.max(...followed.map(([g]) => g))).toBeLessThanOrEqual(2);

    // The reader scrolls up with the wheel while the reply streams: the view stays where they
    // put it, and a control offers the end.
    writeFileSync(gate[0]!, "");
    await expect.poll(() => shownParagraphs(page), SLOW).toBeGreaterThan(160);
    await page.locator(".scroller").hover();
    await page.mouse.wheel(0, -600);
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await jump.waitFor();
    await expect.poll(() => shownParagraphs(page), SLOW).toBe(250);
    const at = await top(page);
    await takeScrolls(page);
    expect(await gap(page)).toBeGreaterThan(500);
    // More of the reply (the part after the second gate) does not move the view.
    writeFileSync(gate[1]!, "");
    await expect.poll(() => shownParagraphs(page), SLOW).toBe(280);
    const reading = await takeScrolls(page);
    expect(reading.length).toBeGreaterThan(1);
    expect(reading.every(([, t]) => t === at)).toBe(true);

    // Back to the end: followed again until the turn ends.
    await jump.click();
    await jump.waitFor({ state: "detached" });
    await takeScrolls(page);
    writeFileSync(gate[2]!, "");
    await turnEnded(page);
    expect(await shownParagraphs(page)).toBe(300);
    const after = await scrolls(page);
    expect(after.length).toBeGreaterThan(1);
    expect(Math.max(...after.map(([g]) => g))).toBeLessThanOrEqual(2);
    expect(await gap(page)).toBeLessThanOrEqual(2);
  });

  it("find-in-page (Ctrl+F) moving the view up while a reply streams stops following, as the reader's own scroll does", async () => {
    await newSession(page, hub.home);
    const dir = tempDir();
    const [found, more] = [join(dir, "found"), join(dir, "more")];
    await send(
      page,
      scenario(
        ...paragraphs(1, 40, 0),
        { waitFile: found },
        ...paragraphs(41, 40, 10),
        { waitFile: more },
        ...paragraphs(81, 20, 0),
      ),
    );
    await expect.poll(() => shownParagraphs(page, 0), SLOW).toBe(40);
    // The browser's find moves the view with no input event the page sees: here a script does.
    await page.keyboard.press("Control+f");
    await page.locator(".scroller").evaluate((e) => (e.scrollTop -= 600));
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await jump.waitFor(SLOW);
    const at = await top(page);
    writeFileSync(found, "");
    await expect.poll(() => shownParagraphs(page, 0), SLOW).toBe(80);
    expect(await top(page)).toBe(at);
    expect(await gap(page)).toBeGreaterThan(500);
    // Back to the end: followed again to the end of the turn.
    await jump.click();
    await jump.waitFor({ state: "detached" });
    writeFileSync(more, "");
    await turnEnded(page);
    await expect.poll(() => gap(page), SLOW).toBeLessThanOrEqual(2);
  });

  it("a session of 1,200 items keeps only the rows near the view in the page, and scrolling brings the others", async () => {
    await newSession(page, hub.home);
    const steps = Array.from({ length: 600 }, (_, i) => [
      { toolCall: { toolCallId: `v${i}`, title: `Read ${i}`, kind: "read" } },
      { text: `Reply part ${i}.` },
    ]).flat();
    await send(page, scenario(...steps));
    await turnEnded(page);
    await page.locator('[data-tool-id="v599"]').waitFor();
    const rows = () => page.locator(".transcript > .row").count();
    expect(await rows()).toBeLessThan(100);
    expect(await page.locator('[data-tool-id="v0"]').count()).toBe(0);
    // The reader presses Home once: the view goes all the way up, however the rows measured on
    // the way change the heights above it (a smooth scroll there used to stop part-way).
    await page.locator(".scroller").press("Home");
    await page.locator('[data-tool-id="v0"]').waitFor(SLOW);
    expect(await top(page)).toBe(0);
    expect(await rows()).toBeLessThan(100);
    expect(await page.locator('[data-tool-id="v599"]').count()).toBe(0);
    await page.getByRole("button", { name: /Jump to latest/ }).waitFor(SLOW);
    // End goes back to the end and follows it again.
    await page.locator(".scroller").press("End");
    await page.locator('[data-tool-id="v599"]').waitFor(SLOW);
    await expect.poll(() => page.locator(".jump").count()).toBe(0);
  });
});

describe("a stale link", () => {
  it("shows “not found” with a way back, and opens at most 5 connections in 10 s", async () => {
    const p = await page.context().newPage();
    const sockets: string[] = [];
    p.on("websocket", (ws) => sockets.push(ws.url()));
    const started = Date.now();
    await p.goto(`${hub.h.url}/#/s/hub-no-such-session`);
    const screen = p.getByRole("region", { name: "Session not found" });
    await screen.waitFor();
    expect(await screen.innerText()).toContain("hub-no-such-session");
    // Watch the rest of the 10 s: the page must not keep re-dialling.
    await new Promise((r) => setTimeout(r, 10_000 - (Date.now() - started)));
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    expect(sockets.length).toBeLessThanOrEqual(5);
    expect(await p.locator(".banner.offline").count()).toBe(0);
    await p.getByRole("link", { name: "Back to the sessions" }).click();
    await p.waitForURL(/#\/$/);
    await p.getByText("Pick a session").waitFor();
    await p.close();
  }, 90_000);
});

describe("the sessions sidebar", () => {
  it("shows a second session waiting for approval (and who holds the question) while a first is open, then running, then idle", async () => {
    const first = await newSession(page, hub.home);
    const editor = fx.hubs.connect(
      hub.h,
      "ws",
      () =>
        new Promise((r) =>
          setTimeout(
            () => r({ outcome: { outcome: "selected", optionId: "allow" } }),
            1500,
          ),
        ),
    );
    await editor.agent.request("initialize", {
      ...INIT,
      clientInfo: { name: "zed", version: "1" },
    });
    const { sessionId: second } = await editor.agent.request<{
      sessionId: string;
    }>("session/new", { cwd: hub.home, mcpServers: [] });
    await editor.agent.request("session/set_title", {
      sessionId: second,
      title: "The second session",
    });
    const row = page.locator(`.session-rows li[data-id="${second}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain("mock");
    const going = join(tempDir(), "going"); // the turn runs on until the page showed it
    const turn = editor.agent.request("session/prompt", {
      sessionId: second,
      prompt: text(
        scenario(
          {
            permission: {
              toolCallId: "w1",
              title: "Write the file",
              options: [
                { optionId: "allow", name: "Allow", kind: "allow_once" },
              ],
            },
          },
          { waitFile: going },
        ),
      ),
    });
    await row.locator('.state[data-state="waiting"]').waitFor();
    expect(await row.locator(".state").innerText()).toBe(
      "waiting for approval",
    );
    // The first session is still the one open.
    expect(await page.locator(".session").getAttribute("data-session-id")).toBe(
      first,
    );
    expect(
      await page.locator('.session-rows a[aria-current="page"]').count(),
    ).toBe(1);
    await row.locator('.state[data-state="running"]').waitFor();
    writeFileSync(going, "");
    await turn;
    await row.locator(".state").waitFor({ state: "detached" });
    // Opening it while another client holds a question says who: shown in the next test file.
  });
});
