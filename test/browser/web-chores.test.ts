// The web page saying what happens and doing a session's chores, in a real Chromium against a
// real `acphub serve` (mock agent with modes and a config option): notices on their own line,
// stop reasons and "waiting for an answer" in words, one control per setting, tool output as
// terminal text (folded when long), the plan only while current, rename / fork / export /
// delete from the header, the new-session form, the keyboard, and axe-core on every screen.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { INIT, text } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import {
  axeFindings,
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

fx.withBrowser(
  {
    serve: { sessionsPerMinute: 1000 },
    flags: ["--modes", "--config-options"],
    // A registry agent that runs through npx when not installed, named: a hub offers only those.
    config: { agents: { claude: {} } },
  },
  async (b, h) => {
    [browser, hub] = [b, h];
    ({ page } = await loggedIn(browser, hub.loginUrl));
  },
);

const turnLine = (p: Page) => p.locator(".turn-state").innerText();
const MODE_OPTION = {
  id: "mode",
  name: "Mode",
  category: "mode",
  type: "select",
  currentValue: "ask",
  options: [
    { value: "ask", name: "Ask" },
    { value: "code", name: "Code" },
  ],
};

describe("the page says what is happening", () => {
  it("acphub's notices are their own line, never in the agent's words; stop reasons are words", async () => {
    await newSession(page, hub.home);
    await send(
      page,
      scenario(
        { text: "Wrote hello.txt" },
        {
          update: {
            sessionUpdate: "agent_message_chunk",
            content: {
              type: "text",
              text: "[acphub] acphub resumed this session\n",
            },
          },
        },
        { text: "And then more." },
      ),
    );
    await turnEnded(page);
    expect(await page.locator(".msg.agent").allInnerTexts()).toEqual([
      "Wrote hello.txt",
      "And then more.",
    ]);
    expect(await page.locator(".notice").innerText()).toContain(
      "acphub resumed this session",
    );
    expect(await page.locator(".notice").innerText()).not.toContain("[acphub]");
    expect(await turnLine(page)).toBe("The agent finished.");
    await send(page, scenario({ text: "long" }, { stop: "max_tokens" }));
    await turnEnded(page, "max_tokens");
    expect(await turnLine(page)).toBe(
      "Stopped: the reply reached the model's token limit.",
    );
    expect(await page.locator(".session-head").innerText()).not.toMatch(
      /end_turn|max_tokens/,
    );
  });

  it("while another client holds the permission question, the page says who; its own question has the answer control", async () => {
    let answer: (v: unknown) => void = () => undefined;
    const editor = fx.hubs.connect(
      hub.h,
      "ws",
      () => new Promise((r) => (answer = r)),
    );
    await editor.agent.request("initialize", {
      ...INIT,
      clientInfo: { name: "zed", version: "1" },
    });
    const { sessionId } = await editor.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: hub.home, mcpServers: [] },
    );
    await page.goto(`${hub.h.url}/#/s/${sessionId}`);
    await page.locator(`.session[data-session-id="${sessionId}"]`).waitFor();
    const turn = editor.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        scenario({
          permission: {
            toolCallId: "z1",
            title: "Delete build/",
            options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
          },
        }),
      ),
    });
    await page
      .locator(".turn-state", { hasText: "waiting for an answer" })
      .waitFor();
    expect(await turnLine(page)).toContain("“zed”");
    expect(await page.locator(".session-meta .state").innerText()).toBe(
      "waiting for approval",
    );
    // Not this page's question: no answer buttons here.
    expect(await page.getByRole("alertdialog").count()).toBe(0);
    answer({ outcome: { outcome: "selected", optionId: "ok" } });
    await turn;
    await page
      .locator(".turn-state", { hasText: "The agent finished." })
      .waitFor();
    // The page's own question: it holds it, and answers it.
    await send(
      page,
      scenario({ permission: { toolCallId: "z2", title: "Push" } }),
    );
    await page.getByRole("alertdialog").waitFor();
    expect(await turnLine(page)).toBe("The agent is waiting for your answer.");
    await page.keyboard.press("Enter");
    await turnEnded(page);
  });
});

describe("controls and output as what they are", () => {
  it("one Mode control when the agent offers modes and a mode config option, kept in sync", async () => {
    await newSession(page, hub.home);
    expect(await page.getByLabel("Mode", { exact: true }).count()).toBe(1);
    await send(
      page,
      scenario({
        update: {
          sessionUpdate: "config_option_update",
          configOptions: [
            {
              id: "model",
              name: "Model",
              type: "select",
              currentValue: "mock-small",
              options: [{ value: "mock-small", name: "Small" }],
            },
            MODE_OPTION,
          ],
        },
      }),
    );
    await turnEnded(page);
    const mode = page.getByLabel("Mode", { exact: true });
    expect(await mode.count()).toBe(1);
    expect(await mode.inputValue()).toBe("ask");
    await send(
      page,
      scenario({
        update: { sessionUpdate: "current_mode_update", currentModeId: "code" },
      }),
    );
    await turnEnded(page);
    expect(await page.getByLabel("Mode", { exact: true }).inputValue()).toBe(
      "code",
    );
  });

  it("tool output is terminal text without Markdown fences, long output folded with Show all; the plan only while current", async () => {
    await newSession(page, hub.home);
    const long = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    const output = (id: string, body: string) => ({
      toolCall: {
        toolCallId: id,
        title: `run ${id}`,
        kind: "execute",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: body } }],
      },
    });
    await send(
      page,
      scenario(
        output("short", "```console\n$ ls\na.txt\nb.txt\n```"),
        output("long", long.join("\n")),
        { plan: [{ content: "Do it", priority: "high", status: "pending" }] },
      ),
    );
    await turnEnded(page);
    expect(
      await page.locator("[data-tool-id=short] .tool-output").innerText(),
    ).toBe("$ ls\na.txt\nb.txt");
    const card = page.locator("[data-tool-id=long]");
    const shown = () => card.locator(".tool-output").innerText();
    expect((await shown()).split("\n")).toEqual(long.slice(-20));
    await card.getByRole("button", { name: "Show all 50 lines" }).click();
    expect((await shown()).split("\n")).toEqual(long);
    expect(await page.locator(".plan").count()).toBe(1);
    await send(page, "next question");
    await turnEnded(page);
    expect(await page.locator(".plan").count()).toBe(0);
  });

  it("usage and cost read as people write them", async () => {
    await send(
      page,
      scenario({
        usage: {
          used: 12345,
          size: 200000,
          cost: { amount: 0.0009900000000000002, currency: "USD" },
        },
      }),
    );
    await turnEnded(page);
    expect(await page.locator(".usage").innerText()).toBe(
      "12,345 / 200,000 tokens · $0.00099",
    );
  });
});

describe("a session's chores from its header", () => {
  it("renames in place, exports Markdown and JSON, forks, and deletes", async () => {
    const sessionId = await newSession(page, hub.home);
    await send(page, "remember the parrot");
    await turnEnded(page);
    await page.locator(".title-button").click();
    const field = page.getByLabel("Session title");
    await field.fill("Parrot notes");
    await field.press("Enter");
    await page.locator(".title-button", { hasText: "Parrot notes" }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.className)).toBe(
      "title-button",
    );
    await page
      .locator(`.session-rows li[data-id="${sessionId}"]`, {
        hasText: "Parrot notes",
      })
      .waitFor();
    // Esc drops an edit.
    await page.locator(".title-button").click();
    await page.getByLabel("Session title").fill("Not this");
    await page.getByLabel("Session title").press("Escape");
    expect(await page.locator(".title-button").innerText()).toBe(
      "Parrot notes",
    );

    const saved = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: button }).click(),
      ]);
      const path = join(tempDir(), download.suggestedFilename());
      await download.saveAs(path);
      return {
        name: download.suggestedFilename(),
        text: readFileSync(path, "utf8"),
      };
    };
    const md = await saved("Export Markdown");
    expect(md.name).toBe("Parrot-notes.md");
    expect(md.text).toContain("# Parrot notes");
    expect(md.text).toContain("## You\n\nremember the parrot");
    expect(md.text).toContain(
      "## Agent\n\nmock agent received: remember the parrot",
    );
    const json = await saved("Export JSON");
    const exported = JSON.parse(json.text) as {
      sessionId: string;
      updates: unknown[];
    };
    expect(exported.sessionId).toBe(sessionId);
    expect(JSON.stringify(exported.updates)).toContain("remember the parrot");

    await page.getByRole("button", { name: "Fork" }).click();
    await page.waitForURL((u) => !u.hash.includes(sessionId));
    const fork = await page
      .locator(".session[data-session-id]")
      .getAttribute("data-session-id");
    expect(fork).not.toBe(sessionId);
    await page
      .locator(".msg.user", { hasText: "remember the parrot" })
      .waitFor();

    await page.goto(`${hub.h.url}/#/s/${sessionId}`);
    await page.getByRole("button", { name: "Delete…" }).click();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await page.waitForURL(/#\/$/);
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.getAttribute("aria-label")),
      )
      .toBe("Filter sessions");
    await page
      .locator(`.session-rows li[data-id="${sessionId}"]`)
      .waitFor({ state: "detached" });
    await page.goto(`${hub.h.url}/#/s/${sessionId}`);
    await page.getByRole("region", { name: "Session not found" }).waitFor();
  });
});

describe("a new session", () => {
  it("offers agents run through npx, the hub's and recent folders, and says why a folder is refused", async () => {
    await page.goto(`${hub.h.url}/#/new`);
    const picker = page.getByLabel("Agent");
    await picker.locator("option[value=mock]").waitFor({ state: "attached" });
    const npx = picker.locator("option", { hasText: "(via npx)" });
    expect(await npx.count()).toBeGreaterThan(0);
    expect(
      await npx.evaluateAll((all) =>
        all.some((o) => (o as HTMLOptionElement).disabled),
      ),
    ).toBe(false);
    const folder = page.getByLabel("Working folder");
    expect(await folder.inputValue()).toBe(hub.home);
    const picks = page.getByRole("group", { name: "Recent folders" });
    expect(await picks.getByRole("button").allInnerTexts()).toContain(hub.home);
    for (const [bad, why] of [
      ["relative/dir", "must be an absolute path"],
      [join(hub.home, "missing"), "does not exist"],
    ] as const) {
      await folder.fill(bad);
      await page.getByRole("button", { name: "Start" }).click();
      await page.getByRole("alert").filter({ hasText: why }).waitFor();
    }
    expect(await folder.inputValue()).toBe(join(hub.home, "missing"));
  });
});

describe("the keyboard", () => {
  it("Esc stops the page's turn; Ctrl+K goes to the session search; the prompt has the focus in an opened session", async () => {
    await newSession(page, hub.home);
    expect(
      await page.evaluate(() =>
        document.activeElement?.getAttribute("aria-label"),
      ),
    ).toBe("Prompt");
    await send(page, scenario({ text: "waiting" }, { sleep: 20_000 }));
    await page.locator(".msg.agent", { hasText: "waiting" }).waitFor();
    await page.keyboard.press("Escape");
    await turnEnded(page, "cancelled");
    expect(await turnLine(page)).toBe("Stopped.");
    await page.keyboard.press("Control+k");
    await expect
      .poll(() =>
        page.evaluate(() => document.activeElement?.getAttribute("aria-label")),
      )
      .toBe("Filter sessions");
  });
});

describe("accessibility", () => {
  it("axe-core finds nothing serious or critical on any screen, desktop and phone", async () => {
    const findings: Record<string, string[]> = {};
    const check = async (name: string) => {
      findings[name] = await axeFindings(page);
    };
    await page.goto(`${hub.h.url}/#/`);
    await page.locator(".session-rows li").first().waitFor();
    await check("sessions");
    await page.goto(`${hub.h.url}/#/new`);
    await page
      .getByLabel("Agent")
      .locator("option")
      .first()
      .waitFor({ state: "attached" });
    await check("new session");
    await newSession(page, hub.home);
    await send(
      page,
      scenario(
        { text: "Some **Markdown** and `code`" },
        {
          toolCall: {
            toolCallId: "a1",
            title: "Edit a.ts",
            kind: "edit",
            status: "completed",
            content: [
              {
                type: "diff",
                path: "/w/a.ts",
                oldText: "a\nb",
                newText: "a\nc",
              },
            ],
          },
        },
        {
          plan: [
            { content: "Check it", priority: "high", status: "in_progress" },
          ],
        },
        { permission: { toolCallId: "a2", title: "Run the tests" } },
      ),
    );
    await page.getByRole("alertdialog").waitFor();
    await check("session with a question");
    await page.keyboard.press("Enter");
    await turnEnded(page);
    await page.goto(`${hub.h.url}/#/s/hub-gone`);
    await page.getByRole("region", { name: "Session not found" }).waitFor();
    await check("not found");
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${hub.h.url}/#/`);
    await page.locator(".session-rows li").first().waitFor();
    await check("phone sessions");
    await page.locator(".session-rows li a").first().click();
    await page.locator(".session .msg, .session .turn-state").first().waitFor();
    await check("phone session");
    await page.setViewportSize({ width: 1100, height: 900 });
    expect(findings).toEqual(
      Object.fromEntries(Object.keys(findings).map((k) => [k, []])),
    );
  });
});
