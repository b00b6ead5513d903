// What the page makes of agent output in a real Chromium: hostile Markdown and HTML render
// inert (no script runs, no dialog opens, no javascript: link survives), a huge unbroken line
// wraps, 10,000 updates in a burst leave the page answering input; a 375-px phone and dark
// mode; and the screenshot of a session with a tool call, a diff and a plan used in the README.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/mock.js";
import {
  artifact,
  cspViolations,
  freshLoginUrl,
  logIn,
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

fx.withBrowser({ serve: { maxQueuedMessages: 50_000 } }, async (b, h) => {
  [browser, hub] = [b, h];
  ({ page } = await loggedIn(browser, hub.loginUrl));
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
});

const HOSTILE = [
  "<script>window.__pwned = 'script'</script>",
  "<img src=x onerror=\"window.__pwned = 'img'\">",
  "[click me](javascript:window.__pwned='link')",
  '<a href="javascript:alert(1)">raw link</a>',
  '<svg><animate onbegin="alert(1)" attributeName="x"/></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  "```html\n<script>alert('in code')</script>\n```",
].join("\n\n");

describe("the page and what agents send", () => {
  it("hostile Markdown and HTML render inert: no script ran, no dialog, no javascript: link", async () => {
    await newSession(page, hub.home);
    await send(
      page,
      scenario(
        { text: HOSTILE },
        { thought: "<img src=x onerror=alert('thought')>" },
        {
          toolCall: {
            toolCallId: "h1",
            title: "<img src=x onerror=alert('title')>",
            kind: "edit",
            status: "completed",
            content: [
              {
                type: "diff",
                path: "<script>alert(1)</script>",
                oldText: "<b>",
                newText: "<img src=x onerror=alert(2)>",
              },
            ],
          },
        },
      ),
    );
    await turnEnded(page);
    await page.locator(".msg.agent a", { hasText: "click me" }).click();
    await page.locator(".msg.agent a", { hasText: "raw link" }).click();
    await page.locator(".thought summary").click();
    const report = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: string }).__pwned,
      scripts: document.querySelectorAll(".transcript script").length,
      handlers: [...document.querySelectorAll(".transcript *")].filter((e) =>
        [...e.attributes].some((a) => a.name.startsWith("on")),
      ).length,
      jsLinks: [
        ...document.querySelectorAll(
          ".transcript [href], .transcript [src], .transcript [action]",
        ),
      ].filter((e) =>
        /javascript:/i.test(
          e.getAttribute("href") ??
            e.getAttribute("src") ??
            e.getAttribute("action") ??
            "",
        ),
      ).length,
      frames: document.querySelectorAll(".transcript iframe, .transcript form")
        .length,
    }));
    // No violation but the inline handlers DOMPurify's inert parse met (Chromium reports
    // script-src-attr for those even though nothing can run there): nothing else was tried.
    expect(
      (await cspViolations(page)).filter(
        (v) => !v.startsWith("script-src-attr inline"),
      ),
    ).toEqual([]);
    expect(report).toEqual({
      pwned: undefined,
      scripts: 0,
      handlers: 0,
      jsLinks: 0,
      frames: 0,
    });
    expect(dialogs).toEqual([]);
    // The code block shows the script as text, and the tool call title is text too.
    // Its Copy button copies the code as text.
    await page
      .context()
      .grantPermissions(["clipboard-read", "clipboard-write"], {
        origin: hub.h.url,
      });
    await page.locator(".msg.agent .code .copy").click();
    await page
      .locator(".msg.agent .code .copy", { hasText: "Copied" })
      .waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      "<script>alert('in code')</script>",
    );
    expect(await page.locator(".msg.agent pre code").innerText()).toContain(
      "<script>alert('in code')</script>",
    );
    expect(
      await page.locator("[data-tool-id=h1] .tool-title").innerText(),
    ).toBe("<img src=x onerror=alert('title')>");
  });

  it("a huge unbroken line wraps; 10,000 updates in a burst arrive whole and the page keeps answering input", async () => {
    await newSession(page, hub.home);
    await send(
      page,
      scenario(
        { text: "A", repeat: 200_000 },
        { text: "x", repeat: 10_000, chunks: 10_000 },
      ),
    );
    await page.locator(".msg.agent").waitFor();
    // While the burst renders, typing reaches the prompt box (how often the long reply is
    // rendered again is test/unit/web-render-pace.test.ts; no wall-clock bound here).
    const box = page.getByRole("textbox", { name: "Prompt" });
    await page.evaluate(() =>
      document.querySelector<HTMLTextAreaElement>("textarea")?.focus(),
    );
    await page.keyboard.type("still here");
    expect(await box.inputValue()).toBe("still here");
    await turnEnded(page);
    // A long reply rendered at a pace of its cost still ends with its whole text.
    await expect
      .poll(async () => (await page.locator(".msg.agent").innerText()).length)
      .toBe(210_000);
    const width = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      view: window.innerWidth,
    }));
    expect(width.scroll).toBeLessThanOrEqual(width.view);
  });

  it("works on a 375-px phone and in dark mode", async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 740 },
      colorScheme: "dark",
      isMobile: true,
      hasTouch: true,
    });
    const p = await phone.newPage();
    await logIn(p, await freshLoginUrl(hub.h));
    await newSession(p, hub.home);
    await send(
      p,
      scenario(
        {
          toolCall: {
            toolCallId: "m1",
            title:
              "Edit a file with a rather long name somewhere/deep/inside/the/project/tree.ts",
            kind: "edit",
            status: "completed",
            content: [
              {
                type: "diff",
                path: "/a/very/long/path/that/goes/on/and/on/and/on/file.ts",
                oldText: "x",
                newText: "y".repeat(300),
              },
            ],
          },
        },
        {
          plan: [
            {
              content:
                "A plan entry that is long enough to need wrapping on a phone screen",
              priority: "high",
              status: "pending",
            },
          ],
        },
      ),
    );
    await turnEnded(p);
    const layout = await p.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      background: getComputedStyle(document.body).backgroundColor,
      composer: document.querySelector("textarea")!.getBoundingClientRect()
        .width,
    }));
    expect(layout.scroll).toBeLessThanOrEqual(375);
    expect(layout.background).toBe("rgb(21, 23, 26)");
    expect(layout.composer).toBeGreaterThan(200);
    await p.screenshot({
      path: artifact("web-phone-dark.png"),
      fullPage: true,
    });
    await phone.close();
  });

  it("a screenshot of a session with a tool call, a diff and a plan (test-artifacts/web-session.png)", async () => {
    const dir = tempDir();
    const file = join(dir, "scenario.json");
    writeFileSync(file, JSON.stringify({ steps: SHOWCASE }));
    const shown = await fx.start({}, [
      "--scenario",
      file,
      "--modes",
      "--config-options",
    ]);
    const { context, page: p } = await loggedIn(browser, shown.loginUrl, {
      width: 1000,
      height: 1100,
    });
    await newSession(p, shown.home);
    await send(p, "Make parse() reject empty input, with a test");
    await turnEnded(p);
    // The hub titled the session from its first prompt, and told the page.
    await p.locator(".session-title", { hasText: "Make parse()" }).waitFor();
    expect(await p.locator(".tool").count()).toBe(3);
    expect(await p.locator(".diff").count()).toBe(1);
    expect(await p.locator(".plan li").count()).toBe(3);
    expect(await p.locator(".usage").innerText()).toContain("$0.04");
    await p.screenshot({ path: artifact("web-session.png"), fullPage: true });
    // The agent's slash commands, offered as you type "/".
    const box = p.getByRole("textbox", { name: "Prompt" });
    await box.fill("/");
    expect(await p.locator(".commands button").allInnerTexts()).toEqual([
      "/review Review the changes",
      "/test Run the tests",
    ]);
    await box.fill("/te");
    await p.locator(".commands button").click();
    expect(await box.inputValue()).toBe("/test ");
    // Mode and config option selectors, as the agent offers them.
    const mode = p.getByLabel("Mode", { exact: true });
    expect(await mode.inputValue()).toBe("ask");
    await mode.selectOption("code");
    await p
      .locator(".settings select option[value=code]:checked")
      .waitFor({ state: "attached" });
    const model = p.getByLabel("Model", { exact: true });
    await model.selectOption("mock-large");
    await p
      .locator(".settings select option[value=mock-large]:checked")
      .waitFor({ state: "attached" });
    // The agent kept both: a page opening the session now gets them from the hub.
    const again = await context.newPage();
    await again.goto(p.url());
    await expect
      .poll(async () => {
        await again.reload();
        await again.waitForSelector(".settings");
        return [
          await again.getByLabel("Mode", { exact: true }).inputValue(),
          await again.getByLabel("Model", { exact: true }).inputValue(),
        ];
      })
      .toEqual(["code", "mock-large"]);
    await context.close();
  });
});

const SHOWCASE = [
  { thought: "parse() accepts empty input; add a guard and a test." },
  {
    plan: [
      { content: "Read parse()", priority: "high", status: "completed" },
      { content: "Reject empty input", priority: "high", status: "completed" },
      { content: "Add a test", priority: "medium", status: "in_progress" },
    ],
  },
  {
    toolCall: {
      toolCallId: "r1",
      title: "Read src/parse.ts",
      kind: "read",
      status: "completed",
      locations: [{ path: "src/parse.ts", line: 12 }],
    },
  },
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
            "export function parse(input: string): Ast {\n  const tokens = lex(input);\n  return build(tokens);\n}",
          newText:
            'export function parse(input: string): Ast {\n  if (input.trim() === "") throw new ParseError("empty input");\n  const tokens = lex(input);\n  return build(tokens);\n}',
        },
      ],
    },
  },
  {
    toolCall: {
      toolCallId: "x1",
      title: "npm test",
      kind: "execute",
      status: "in_progress",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: "✓ parse rejects empty input\n✓ 42 tests passed",
          },
        },
      ],
    },
  },
  {
    text: 'Done: `parse()` now throws on empty input.\n\n```ts\nif (input.trim() === "") throw new ParseError("empty input");\n```\n\nThe new test is in **test/parse.test.ts**.',
  },
  {
    commands: [
      { name: "review", description: "Review the changes" },
      { name: "test", description: "Run the tests" },
    ],
  },
  {
    usage: {
      used: 18240,
      size: 200000,
      cost: { amount: 0.0412, currency: "USD" },
    },
  },
];
