// The web page in a real Chromium against a real `acphub serve` over the mock agent: logging in
// with the printed URL, a new session whose reply streams, tool call cards moving through their
// statuses, a diff, a plan updated in place, a permission answered from the page, Stop, and a
// reload that replays the whole history.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/mock.js";
import {
  cspViolations,
  launchBrowser,
  loggedIn,
  newSession,
  record,
  samples,
  scenario,
  send,
  turnEnded,
  webFixture,
  type WebHub,
} from "./web-fixture.js";

const fx = webFixture();
let browser: Browser;
let hub: WebHub;
let context: BrowserContext;
let page: Page;

/** Every URL the pages of the logged-in context asked for. */
const requested: string[] = [];

beforeAll(async () => {
  // Two registry agents named beside the mock: claude (through npx when not installed), goose
  // (no npx: not installed). A hub offers only the agents its config names (issue 34).
  const agents = { claude: {}, goose: {} };
  [browser, hub] = await Promise.all([
    launchBrowser(),
    fx.start({}, [], { agents }),
  ]);
  ({ context, page } = await loggedIn(browser, hub.loginUrl));
  context.on("request", (r) => requested.push(r.url()));
});
afterAll(async () => {
  await browser?.close();
  await fx.cleanup();
});

const agentText = (p: Page) => p.locator(".msg.agent").last().innerText();

describe("the web page in Chromium", () => {
  it("logs in with the printed URL: a clean address, an HttpOnly cookie, nothing stored; the same URL again is refused", async () => {
    expect(page.url()).toBe(`${hub.h.url}/`);
    const cookies = await context.cookies();
    expect(cookies).toEqual([
      expect.objectContaining({
        // One name per hub (the port the browser used): hubs on one host keep their logins.
        name: `acphub_session_${new URL(hub.h.url).port}`,
        httpOnly: true,
        sameSite: "Strict",
      }),
    ]);
    expect(await page.evaluate(() => document.cookie)).toBe("");
    expect(
      await page.evaluate(() => localStorage.length + sessionStorage.length),
    ).toBe(0);
    const other = await browser.newContext();
    const again = await other.newPage();
    const answer = await again.goto(hub.loginUrl);
    expect(answer?.status()).toBe(401);
    await again.goto(
      hub.loginUrl.replace(/code=.*/, "code=wrong-code-0123456789abcdef"),
    );
    expect(await again.textContent("h1")).toBe("Login refused");
    await again.goto(`${hub.h.url}/`);
    expect(await again.textContent("body")).toContain("not logged in");
    await other.close();
  });

  it("a new session; the reply streams across frames, a tool call card moves pending → running → done with its diff, the plan updates in place", async () => {
    // The agent picker lists the hub's agents, the default chosen, ones not installed disabled.
    await page.goto(`${hub.h.url}/#/new`);
    const picker = page.getByLabel("Agent");
    await picker.locator("option[value=mock]").waitFor({ state: "attached" });
    expect(await picker.inputValue()).toBe("mock");
    const options = await picker
      .locator("option")
      .evaluateAll((all) =>
        all.map((o) => [o.textContent, (o as HTMLOptionElement).disabled]),
      );
    expect(options.length).toBeGreaterThan(1);
    for (const [label, disabled] of options)
      expect(disabled, String(label)).toBe(
        String(label).includes("(not installed)"),
      );
    await newSession(page, hub.home);
    await record(page, "text", ".msg.agent");
    await record(
      page,
      "status",
      "[data-tool-id=t1] .tool-status",
      "data-status",
    );
    // The agent goes on only once the page has shown (and the recorder seen) each stage: a
    // sleep between stages lost a stage when a loaded machine stalled the page for longer.
    const dir = tempDir();
    const gate = [0, 1, 2, 3].map((i) => join(dir, `gate${i}`));
    const open = async (i: number, seen: () => Promise<boolean>) => {
      await expect.poll(seen, { timeout: 60_000 }).toBe(true);
      writeFileSync(gate[i]!, "");
    };
    await send(
      page,
      scenario(
        { text: "Streaming ", chunks: 1 },
        { waitFile: gate[0] },
        { text: "the **reply** ", chunks: 1 },
        { waitFile: gate[1] },
        { text: "in pieces.", chunks: 1 },
        {
          toolCall: {
            toolCallId: "t1",
            title: "Edit src/a.ts",
            kind: "edit",
            status: "pending",
            locations: [{ path: "/w/src/a.ts", line: 3 }],
          },
        },
        { waitFile: gate[2] },
        { toolCallUpdate: { toolCallId: "t1", status: "in_progress" } },
        {
          plan: [
            {
              content: "Read the code",
              priority: "high",
              status: "in_progress",
            },
            { content: "Fix the bug", priority: "high", status: "pending" },
          ],
        },
        { waitFile: gate[3] },
        {
          toolCallUpdate: {
            toolCallId: "t1",
            status: "completed",
            content: [
              {
                type: "diff",
                path: "/w/src/a.ts",
                oldText: "one\ntwo\nthree",
                newText: "one\nTWO\nthree",
              },
            ],
          },
        },
        {
          plan: [
            { content: "Read the code", priority: "high", status: "completed" },
            { content: "Fix the bug", priority: "high", status: "completed" },
          ],
        },
      ),
    );
    const texts = async () => (await samples<number>(page, "text")).length;
    const statuses = () => samples<string>(page, "status");
    await open(0, async () => (await texts()) >= 1);
    await open(1, async () => (await texts()) >= 2);
    await open(2, async () => (await statuses()).includes("pending"));
    await open(3, async () => (await statuses()).includes("in_progress"));
    await turnEnded(page);
    expect(await agentText(page)).toBe("Streaming the reply in pieces.");
    const lengths = await samples<number>(page, "text");
    expect(lengths.length).toBeGreaterThanOrEqual(3);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(await samples(page, "status")).toEqual([
      "pending",
      "in_progress",
      "completed",
    ]);
    const card = page.locator("[data-tool-id=t1]");
    expect(await card.count()).toBe(1);
    expect(await card.locator(".locations").innerText()).toBe("/w/src/a.ts:3");
    expect(await card.locator(".diff .del").innerText()).toBe("-two");
    expect(await card.locator(".diff .add").innerText()).toBe("+TWO");
    expect(await page.locator(".plan").count()).toBe(1);
    expect(
      await page
        .locator(".plan li")
        .evaluateAll((l) => l.map((e) => e.getAttribute("data-status"))),
    ).toEqual(["completed", "completed"]);
  });

  it("the plan is updated in place: the same element, new statuses", async () => {
    await newSession(page, hub.home);
    await send(
      page,
      scenario(
        {
          plan: [{ content: "Step one", priority: "high", status: "pending" }],
        },
        { sleep: 300 },
        {
          plan: [
            { content: "Step one", priority: "high", status: "completed" },
          ],
        },
      ),
    );
    const plan = await page.waitForSelector(".plan li[data-status=pending]");
    await plan.evaluate((e) => e.setAttribute("data-marked", "1"));
    await turnEnded(page);
    expect(
      await page
        .locator(".plan li[data-marked='1']")
        .getAttribute("data-status"),
    ).toBe("completed");
  });

  it("a permission is answered from the page with the agent's own option, and the agent acts on it", async () => {
    await newSession(page, hub.home);
    await send(
      page,
      scenario(
        {
          permission: {
            toolCallId: "p1",
            title: "Run the migration",
            kind: "execute",
            toolCall: { rawInput: { command: "npm run migrate" } },
            options: [
              { optionId: "yes-once", name: "Allow once", kind: "allow_once" },
              { optionId: "no-thanks", name: "Reject", kind: "reject_once" },
            ],
          },
        },
        { text: "after the answer" },
      ),
    );
    const card = page.getByRole("alertdialog", {
      name: "Permission requested",
    });
    await card.waitFor();
    expect(await card.locator("h3").innerText()).toContain("Run the migration");
    expect(await card.locator(".command").innerText()).toBe("npm run migrate");
    // The first option has the focus: the keyboard answers.
    await page.keyboard.press("Enter");
    await turnEnded(page);
    expect(await card.count()).toBe(0);
    const said = await page.locator(".transcript").innerText();
    expect(said).toContain("permission granted (yes-once)");
    expect(said).toContain("after the answer");
  });

  it("Stop cancels the running turn; a reload replays the whole history", async () => {
    const sessionId = await newSession(page, hub.home);
    // Shift+Enter is a new line in the prompt; Enter sends it.
    const box = page.getByRole("textbox", { name: "Prompt" });
    await box.fill("first");
    await box.press("Shift+Enter");
    await box.pressSequentially("prompt");
    await box.press("Enter");
    await turnEnded(page);
    expect(await page.locator(".msg.user").innerText()).toBe("first\nprompt");
    await send(
      page,
      scenario(
        { text: "about to wait" },
        { sleep: 20_000 },
        { text: "never shown" },
      ),
    );
    await page.locator(".msg.agent", { hasText: "about to wait" }).waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await turnEnded(page, "cancelled");
    const before = await page.locator(".transcript").innerText();
    const replies = await page.locator(".msg.agent").allInnerTexts();
    expect(replies).toEqual([
      "mock agent received: first prompt",
      "about to wait",
    ]);
    await page.reload();
    await page.waitForSelector(
      `.session[data-session-id="${sessionId}"] .msg.agent`,
    );
    await page.locator(".msg.agent", { hasText: "about to wait" }).waitFor();
    expect(await page.locator(".transcript").innerText()).toBe(before);
    expect(await page.locator(".msg.user").count()).toBe(2);
  });

  it("a browser notification when an agent waits for an answer and the page is not in view", async () => {
    const p = await context.newPage();
    // The browser's notifications and focus, observed: headless Chromium shows neither.
    await p.addInitScript(() => {
      const w = window as unknown as { __notes: string[] };
      w.__notes = [];
      class Recorded {
        static permission = "granted";
        static requestPermission = () => Promise.resolve("granted");
        constructor(title: string, o?: { body?: string }) {
          w.__notes.push(`${title} / ${o?.body ?? ""}`);
        }
      }
      Object.defineProperty(window, "Notification", { value: Recorded });
      document.hasFocus = () => false;
    });
    await p.goto(`${hub.h.url}/`);
    await newSession(p, hub.home);
    await send(
      p,
      scenario({
        permission: {
          toolCallId: "n1",
          title: "Delete the cache",
          kind: "delete",
        },
      }),
    );
    await p.getByRole("alertdialog").waitFor();
    expect(
      await p.evaluate(
        () => (window as unknown as { __notes: string[] }).__notes,
      ),
    ).toEqual([
      "acphub: an agent is waiting for you / Permission asked for Delete the cache",
    ]);
    await p.keyboard.press("Enter");
    await turnEnded(p);
    await p.close();
  });

  it("asked no other host for anything, and met no Content-Security-Policy violation", async () => {
    expect(requested.length).toBeGreaterThan(0);
    const hosts = new Set(requested.map((u) => new URL(u).origin));
    expect([...hosts]).toEqual([hub.h.url]);
    expect(await cspViolations(page)).toEqual([]);
  });

  it("Log out ends the browser session: the page asks for a login, and the cookie opens nothing", async () => {
    const { name, value: cookie } = (await context.cookies())[0]!;
    await page.goto(`${hub.h.url}/#/`);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${hub.h.url}/`);
    expect(await page.textContent("body")).toContain("not logged in");
    expect(await context.cookies()).toEqual([]);
    const status = await fetch(`${hub.h.url}/auth`, {
      headers: { Cookie: `${name}=${cookie}` },
    });
    expect(status.status).toBe(401);
  });
});
