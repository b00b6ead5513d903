// The admin screen (issue 38) in a real Chromium against a real `acphub serve`: an admin changes
// a user's role, makes a login link (which logs a new browser in as that user), reads another
// user's remaining budget and when it resets, reads the audit log filtered by user and sees the
// hub's one node; a member has no Admin entry, is shown nothing of it, and sees their own usage
// and budget. axe-core finds nothing serious on any of these screens.
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { INIT, text } from "../helpers/hub.js";
import { tempDir, usageTurn } from "../helpers/mock.js";
import { rawClient, resultOf } from "../helpers/raw-ws.js";
import {
  axeFindings,
  loggedIn,
  webFixture,
  type WebHub,
} from "./web-fixture.js";

const fx = webFixture();
const WORK = tempDir("acphub-admin-work-");
let browser: Browser;
let hub: WebHub;
const tokens: Record<string, string> = {};

// A user's one-time login link, from the command line.
async function linkOf(name: string): Promise<string> {
  const r = await runCli(["users", "login-link", name, "--json"], {
    home: hub.home,
  });
  return (JSON.parse(r.stdout) as { url: string }).url;
}

fx.withBrowser(
  {
    config: {
      users: { roots: { "*": [WORK] } },
      limits: { budget: { users: { "*": { tokens: 1000 } } } },
    },
    timeoutMs: 120_000,
  },
  async (b, h) => {
    [browser, hub] = [b, h];
    for (const [name, role] of [
      ["root", "admin"],
      ["alice", "member"],
      ["bob", "member"],
    ] as const) {
      const r = await runCli(["users", "add", name, "--role", role, "--json"], {
        home: h.home,
      });
      tokens[name] = (JSON.parse(r.stdout) as { token: string }).token;
    }
    // alice spends 300 tokens of her daily budget of 1,000.
    const alice = await rawClient(h.h.acpUrl, tokens["alice"]!);
    resultOf(await alice.call("initialize", INIT));
    const { sessionId } = resultOf<{ sessionId: string }>(
      await alice.call("session/new", { cwd: WORK, mcpServers: [] }),
    );
    resultOf(
      await alice.call("session/prompt", {
        sessionId,
        prompt: text(usageTurn(300)),
      }),
    );
    alice.close();
  },
);

const tab = (page: Page, name: string) =>
  page
    .getByRole("navigation", { name: "Admin sections" })
    .getByRole("button", { name });

describe("the admin screen", { timeout: 120_000 }, () => {
  it("an admin changes a role, makes a login link, reads a budget, the audit and the nodes", async () => {
    const { page } = await loggedIn(browser, await linkOf("root"));
    // Keyboard reachable: the top bar's Admin link takes the focus and Enter opens the screen.
    const entry = page.getByRole("link", { name: "Admin", exact: true });
    await entry.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Admin", level: 1 }).waitFor();
    const bob = page.locator('.users-table tr[data-user="bob"]');
    await bob.waitFor();
    expect(await axeFindings(page)).toEqual([]);

    // Role: bob member → viewer, on the running hub at once (the CLI reads the same ledger).
    await page.getByLabel("Role of bob").selectOption("viewer");
    await expect
      .poll(async () => {
        const r = await runCli(["users", "list", "--json"], { home: hub.home });
        return (JSON.parse(r.stdout) as { name: string; role: string }[]).find(
          (u) => u.name === "bob",
        )?.role;
      })
      .toBe("viewer");
    // The last admin may not step down: the hub's refusal is shown, nothing changes.
    await page.getByLabel("Role of root").selectOption("member");
    await expect
      .poll(() => page.getByRole("alert").first().innerText())
      .toMatch(/^root is the last admin/);
    expect(await page.getByLabel("Role of root").inputValue()).toBe("admin");

    // A login link for bob, shown once with Copy and its expiry, logs a new browser in as bob.
    await page.getByRole("button", { name: "Login link for bob" }).click();
    const box = page.getByRole("textbox", { name: "Login link for bob" });
    const url = await box.inputValue();
    expect(url).toMatch(/\/login\?code=/);
    await page.getByRole("button", { name: "Copy" }).waitFor();
    expect(await page.locator(".login-link").innerText()).toMatch(/expires/);
    const other = await loggedIn(browser, url);
    await expect
      .poll(() => other.page.locator(".top").innerText())
      .toMatch(/bob \(viewer\)/);
    await other.context.close();

    // Usage: alice's remaining budget and when it resets.
    await tab(page, "Usage").click();
    const alice = page.locator('.usage-table tr[data-user="alice"]');
    await expect
      .poll(() => alice.locator('[data-cell="left"]').innerText())
      .toBe("700 of 1,000 tokens");
    expect(await alice.locator('[data-cell="resets"]').innerText()).toMatch(
      /\(in \d+ (h|min)/,
    );
    expect(await axeFindings(page)).toEqual([]);

    // The audit log filtered by user: only alice's entries (her prompt).
    await tab(page, "Audit log").click();
    await page.getByLabel("User").fill("alice");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect
      .poll(async () =>
        page
          .locator(".audit-table tbody tr")
          .evaluateAll((rows) =>
            rows.map(
              (r) =>
                `${r.getAttribute("data-user")} ${r.getAttribute("data-action")}`,
            ),
          ),
      )
      .toEqual(["alice prompt"]);
    expect(await axeFindings(page)).toEqual([]);

    // The nodes: a single hub is its one node, up.
    await tab(page, "Nodes").click();
    const node = page.locator(".nodes-table tbody tr");
    await expect
      .poll(() => node.locator('[data-cell="health"]').innerText())
      .toBe("up");
    expect(await node.count()).toBe(1);
    expect(await axeFindings(page)).toEqual([]);
  });

  it("a member sees no admin screen, and their own usage and budget", async () => {
    const { page } = await loggedIn(browser, await linkOf("alice"));
    await page.getByRole("link", { name: "Usage", exact: true }).waitFor();
    expect(
      await page.getByRole("link", { name: "Admin", exact: true }).count(),
    ).toBe(0);
    await page.getByRole("link", { name: "Usage", exact: true }).click();
    await page.getByRole("heading", { name: "Your usage" }).waitFor();
    const rows = page.locator(".usage-table tbody tr");
    await expect
      .poll(() =>
        rows.evaluateAll((r) => r.map((x) => x.getAttribute("data-user"))),
      )
      .toEqual(["alice"]);
    expect(await rows.locator('[data-cell="left"]').innerText()).toBe(
      "700 of 1,000 tokens",
    );
    expect(await rows.locator('[data-cell="resets"]').innerText()).toMatch(
      /\(in /,
    );
    expect(await axeFindings(page)).toEqual([]);
    // The hub refuses the admin methods over a raw WebSocket with her token too.
    const raw = await rawClient(hub.h.acpUrl, tokens["alice"]!);
    resultOf(await raw.call("initialize", INIT));
    for (const method of [
      "_acphub/users/list",
      "_acphub/audit",
      "_acphub/users/login",
    ])
      expect((await raw.call(method, { name: "root" }))["error"]).toMatchObject(
        {
          message: `only an admin may call ${method}`,
          data: expect.objectContaining({ code: "PERMISSION_DENIED" }),
        },
      );
    raw.close();
    // The admin route shows nothing of it.
    await page.goto(`${hub.h.url}/#/admin`);
    await page.getByText("Only an admin may see this.").waitFor();
    expect(await page.locator(".users-table, .audit-table").count()).toBe(0);
  });
});
