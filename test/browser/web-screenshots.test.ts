// The screenshots in docs/images (docs/web.md): each main screen on a desktop and a 375-px
// phone, light and dark, against a real hub over the mock agent. Run on purpose only:
//   ACPHUB_SCREENSHOTS=1 npx vitest run test/browser/web-screenshots.test.ts
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import { INIT, text } from "../helpers/hub.js";
import {
  launchBrowser,
  loggedIn,
  newSession,
  scenario,
  send,
  turnEnded,
  webFixture,
  type WebHub,
} from "./web-fixture.js";

const IMAGES = join(import.meta.dirname, "../../docs/images");
const fx = webFixture();
let browser: Browser;
let hub: WebHub;
let page: Page;
let shown: string;

const SHOWCASE = scenario(
  { thought: "parse() accepts empty input; add a guard and a test." },
  {
    toolCall: {
      toolCallId: "e1",
      title: "Edit src/parse.ts",
      kind: "edit",
      status: "completed",
      locations: [{ path: "src/parse.ts", line: 14 }],
      content: [
        {
          type: "diff",
          path: "src/parse.ts",
          oldText:
            "export function parse(input: string): Ast {\n  const tokens = lex(input);",
          newText:
            'export function parse(input: string): Ast {\n  if (input.trim() === "") throw new ParseError("empty input");\n  const tokens = lex(input);',
        },
      ],
    },
  },
  {
    toolCall: {
      toolCallId: "x1",
      title: "npm test",
      kind: "execute",
      status: "completed",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: "```console\n✓ parse rejects empty input\n✓ 42 tests passed\n```",
          },
        },
      ],
    },
  },
  {
    plan: [
      { content: "Reject empty input", priority: "high", status: "completed" },
      { content: "Add a test", priority: "medium", status: "in_progress" },
    ],
  },
  {
    text: 'Done: `parse()` now throws on empty input.\n\n```ts\nif (input.trim() === "") throw new ParseError("empty input");\n```\n\nThe new test is in **test/parse.test.ts**.',
  },
  {
    usage: {
      used: 18240,
      size: 200000,
      cost: { amount: 0.0412, currency: "USD" },
    },
  },
);

// Other sessions for the sidebar: one idle, one waiting for an editor's answer.
async function company(): Promise<void> {
  const editor = fx.hubs.connect(
    hub.h,
    "ws",
    () => new Promise(() => undefined),
  );
  await editor.agent.request("initialize", {
    ...INIT,
    clientInfo: { name: "zed", version: "1" },
  });
  const open = async (title: string) => {
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: hub.home, mcpServers: [] },
    );
    await editor.agent.request("session/set_title", { sessionId, title });
    return sessionId;
  };
  await open("Update the changelog");
  const waiting = await open("Migrate the database");
  void editor.agent.request("session/prompt", {
    sessionId: waiting,
    prompt: text(
      scenario({
        permission: { toolCallId: "m1", title: "Run the migration" },
      }),
    ),
  });
}

async function shoot(name: string, width: number, dark: boolean, hash: string) {
  await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
  await page.setViewportSize({ width, height: width > 640 ? 820 : 760 });
  await page.goto(`${hub.h.url}/${hash}`);
  await page
    .locator(".sessions .session-rows li")
    .first()
    .waitFor({ state: "attached" });
  if (hash.startsWith("#/s/"))
    await page.locator(".msg.agent").last().waitFor();
  if (hash === "#/new")
    await page
      .getByLabel("Agent")
      .locator("option")
      .first()
      .waitFor({ state: "attached" });
  await page.evaluate(() =>
    (document.activeElement as HTMLElement | null)?.blur(),
  );
  await page.mouse.move(1, 1);
  await page.waitForTimeout(300); // fonts and the last frame settle
  await page.screenshot({
    path: join(
      IMAGES,
      `${name}-${width > 640 ? "desktop" : "phone"}-${dark ? "dark" : "light"}.png`,
    ),
  });
}

describe.runIf(process.env["ACPHUB_SCREENSHOTS"])(
  "screenshots for docs/web.md",
  () => {
    beforeAll(async () => {
      [browser, hub] = await Promise.all([
        launchBrowser(),
        fx.start({}, ["--modes", "--config-options"]),
      ]);
      ({ page } = await loggedIn(browser, hub.loginUrl));
      await company();
      shown = await newSession(page, hub.home);
      await send(page, "Make parse() reject empty input, with a test");
      await turnEnded(page);
      await send(page, SHOWCASE);
      await turnEnded(page);
      await page.locator(".title-button").click();
      await page
        .getByLabel("Session title")
        .fill("Make parse() reject empty input");
      await page.getByLabel("Session title").press("Enter");
    });
    afterAll(async () => {
      await browser?.close();
      await fx.cleanup();
    });

    it("takes each screen", async () => {
      for (const dark of [false, true]) {
        await shoot("web-session", 1280, dark, `#/s/${shown}`);
        await shoot("web-new", 1280, dark, "#/new");
        await shoot("web-sessions", 375, dark, "#/");
        await shoot("web-session", 375, dark, `#/s/${shown}`);
      }
    }, 120_000);
  },
);
