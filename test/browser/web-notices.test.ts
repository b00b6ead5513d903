// The page and acphub's own words (issue 38), in a real Chromium against a real `acphub serve`
// with a daily token budget on the mock agent: a budget notice is a line of its own (never
// inside the agent's reply), live and after a reload; so is the notice of a session restored
// on a new agent process, which comes between turns; a prompt the budget refuses stays in the
// prompt box, the refusal shown; and a page whose user is removed (`acphub users remove`)
// says its login ended, with nothing of the old transcript or name left on screen.
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { usageTurn } from "../helpers/mock.js";
import {
  axeFindings,
  freshLoginUrl,
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

fx.withBrowser(
  {
    config: { limits: { budget: { agents: { mock: { tokens: 100 } } } } },
    timeoutMs: 120_000,
  },
  async (b, h) => {
    [browser, hub] = [b, h];
  },
);

// The transcript as the page shows it: each item's kind and text.
async function transcript(page: Page): Promise<[string, string][]> {
  return page
    .locator(".scroller .user, .scroller .agent, .scroller .notice")
    .evaluateAll((els) =>
      els.map((el) => [
        el.classList.contains("notice")
          ? "notice"
          : el.classList.contains("user")
            ? "user"
            : "agent",
        (el.textContent ?? "").trim(),
      ]),
    ) as Promise<[string, string][]>;
}

describe("the page: notices, refused prompts, a login that ended", () => {
  // First: the budget test below spends the mock agent's budget for the rest of the file.
  it("shows the notice of a restored session between turns on a line of its own", async () => {
    const { page, context } = await loggedIn(
      browser,
      await freshLoginUrl(hub.h),
    );
    await newSession(page);
    await send(page, scenario({ text: "before the crash" }, { exit: 3 }));
    await page.locator(".turn-state[data-running=false]").waitFor();
    await page.locator(".msg.agent", { hasText: "before the crash" }).waitFor();
    await send(page, scenario({ text: "after the restore" }));
    await turnEnded(page);
    const live = await transcript(page);
    const notices = live.filter(([kind]) => kind === "notice");
    expect(notices).toEqual([
      ["notice", expect.stringContaining("this session")],
    ]);
    expect(live.filter(([, t]) => t.includes("[acphub]"))).toEqual([]);
    expect(live.filter(([kind]) => kind === "agent")).toEqual([
      ["agent", "before the crash"],
      ["agent", "after the restore"],
    ]);
    await page.reload();
    await page.locator(".scroller .notice").waitFor();
    await expect.poll(() => transcript(page)).toEqual(live);
    await context.close();
  });

  it("a removed user's page says the login ended, the transcript and name gone", async () => {
    const added = await runCli(["users", "add", "bob", "--role", "member"], {
      home: hub.home,
    });
    expect(added.code, added.stderr).toBe(0);
    const link = await runCli(["users", "login-link", "bob", "--json"], {
      home: hub.home,
    });
    const { url } = JSON.parse(link.stdout) as { url: string };
    const { page, context } = await loggedIn(browser, url);
    await newSession(page);
    await send(page, scenario({ text: "bob's secret plan" }));
    await turnEnded(page);
    expect(await page.locator(".who").innerText()).toContain("bob");
    const removed = await runCli(["users", "remove", "bob"], {
      home: hub.home,
    });
    expect(removed.code, removed.stderr).toBe(0);
    await page.getByRole("heading", { name: "Your login has ended" }).waitFor();
    expect(await page.locator(".who").count()).toBe(0);
    expect(await page.locator(".scroller").count()).toBe(0);
    expect(await page.locator("body").innerText()).not.toContain("secret plan");
    expect(
      await page.getByRole("link", { name: "Log in again" }).isVisible(),
    ).toBe(true);
    expect(await axeFindings(page)).toEqual([]);
    await context.close();
  });

  it("shows each budget notice on a line of its own, live and after a reload", async () => {
    const { page } = await loggedIn(browser, await freshLoginUrl(hub.h));
    await newSession(page);
    await send(page, usageTurn(90));
    await turnEnded(page);
    const notice = page.locator(".scroller .notice");
    await expect.poll(() => notice.count()).toBe(1);
    expect(await notice.innerText()).toMatch(
      /^90 % of the daily budget of agent mock .* is used/,
    );
    const live = await transcript(page);
    expect(live.at(-2)).toEqual(["agent", "ok"]);
    expect(live.at(-1)?.[0]).toBe("notice");
    expect(live.filter(([, t]) => t.includes("[acphub]"))).toEqual([]);

    // A reload replays it from the ledger: the same lines.
    await page.reload();
    await page.locator(".scroller .notice").waitFor();
    await expect.poll(() => transcript(page)).toEqual(live);

    // The turn that spends the budget ends with a second notice.
    await send(page, usageTurn(20));
    await turnEnded(page);
    await expect.poll(() => notice.count()).toBe(2);
    expect(await notice.last().innerText()).toContain("is spent");
    expect(await axeFindings(page)).toEqual([]);
    await page.context().close();
  });

  it("keeps a prompt the budget refused in the prompt box, the refusal shown", async () => {
    // The budget the test above spent refuses the prompt.
    const { page, context } = await loggedIn(
      browser,
      await freshLoginUrl(hub.h),
    );
    await newSession(page);
    const refused = usageTurn(1);
    await send(page, refused);
    await page.getByRole("alert").filter({ hasText: "is spent" }).waitFor();
    const box = page.getByRole("textbox", { name: "Prompt" });
    await expect.poll(() => box.inputValue()).toBe(refused);
    expect(await page.locator(".scroller .msg.user").count()).toBe(0);
    await context.close();
  });
});
