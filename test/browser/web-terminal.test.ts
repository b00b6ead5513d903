// A tool call's terminal in the page: the card shows the command's output (read with
// `_acphub/terminal/output`) while it runs and after the agent released the terminal, as inert
// text — a `<script>` or an `<img onerror>` in the output is shown, never run.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cspViolations,
  launchBrowser,
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
const dialogs: string[] = [];

beforeAll(async () => {
  [browser, hub] = await Promise.all([launchBrowser(), fx.start()]);
  ({ page } = await loggedIn(browser, hub.loginUrl));
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
});
afterAll(async () => {
  await browser?.close();
  await fx.cleanup();
});

const HOSTILE =
  "<script>window.__pwned='script'</script><img src=x onerror=\"window.__pwned='img'\">";

describe("the page and an agent's terminal", () => {
  it("the tool card shows the command's output while it runs and after release, as inert text", async () => {
    const cwd = join(hub.home, "work");
    mkdirSync(cwd, { recursive: true });
    await newSession(page, cwd);
    writeFileSync(join(cwd, "hostile.txt"), `${HOSTILE}\n`);
    const script =
      "echo 'first line'; cat hostile.txt; while [ ! -e go ]; do sleep 0.05; done; echo 'last line'";
    await send(
      page,
      scenario({ terminal: { command: "sh", args: ["-c", script] } }),
    );
    // The host asks before it runs the command: allow it once from the page.
    const card = page.getByRole("alertdialog", {
      name: "Permission requested",
    });
    await card.getByRole("button", { name: "Allow once" }).click();
    const output = page.locator(".tool .terminal .terminal-output");
    // Live: the first lines show while the command still runs.
    await page.waitForSelector(".tool.status-in_progress .terminal-output");
    await page.waitForFunction(() =>
      document
        .querySelector(".terminal-output")
        ?.textContent?.includes("first line"),
    );
    expect(await output.innerText()).not.toContain("last line");
    writeFileSync(join(cwd, "go"), "");
    await turnEnded(page);
    await page.waitForSelector(".tool.status-completed .terminal-exit");
    await page.waitForFunction(() =>
      document
        .querySelector(".terminal-output")
        ?.textContent?.includes("last line"),
    );
    expect(await output.textContent()).toBe(
      `first line\n${HOSTILE}\nlast line\n`,
    );
    expect(await page.locator(".terminal-exit").innerText()).toBe("exit 0");
    const report = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: string }).__pwned,
      elements: document.querySelectorAll(
        ".terminal-output script, .terminal-output img, .terminal-output *",
      ).length,
    }));
    expect(report).toEqual({ pwned: undefined, elements: 0 });
    expect(dialogs).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    // A reload replays the history: the card reads the kept output of the released terminal.
    await page.reload();
    await page.waitForFunction(() =>
      document
        .querySelector(".terminal-output")
        ?.textContent?.includes("last line"),
    );
  });
});
