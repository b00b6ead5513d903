// The user menu's Secrets… dialog (issue 36) in a real Chromium against a real `acphub serve`:
// alice (a member, logged in through `acphub users login-link`) sets a secret in a password
// field, sees its name listed and never its value (the field is cleared), the command line
// lists it for her, a bad name is refused with the hub's words, and Remove takes it away.
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { loggedIn, webFixture, type WebHub } from "./web-fixture.js";

const fx = webFixture();
let hub: WebHub;
let page: Page;
const VALUE = "sk-ant-typed-in-the-page-0123456789";

fx.withBrowser({ timeoutMs: 120_000 }, async (browser: Browser, h) => {
  hub = h;
  expect((await runCli(["users", "add", "alice"], { home: h.home })).code).toBe(
    0,
  );
  const link = await runCli(["users", "login-link", "alice", "--json"], {
    home: h.home,
  });
  page = (
    await loggedIn(browser, (JSON.parse(link.stdout) as { url: string }).url)
  ).page;
});

describe("the Secrets… dialog", { timeout: 120_000 }, () => {
  it("sets a secret (a password field), lists its name only, refuses a bad name, removes it", async () => {
    await page.getByRole("button", { name: "Secrets…" }).click();
    const dialog = page.getByRole("dialog", { name: "Your secrets" });
    await dialog.getByText("No secrets yet.").waitFor();
    const value = dialog.getByLabel("Value");
    expect(await value.getAttribute("type")).toBe("password");
    await dialog.getByLabel("Name").fill("ANTHROPIC_API_KEY");
    await value.fill(VALUE);
    await dialog.getByRole("button", { name: "Set", exact: true }).click();
    await dialog.locator('li[data-secret="ANTHROPIC_API_KEY"]').waitFor();
    expect(await value.inputValue()).toBe("");
    expect(await page.content()).not.toContain(VALUE);
    const cli = await runCli(["users", "secrets", "list", "alice", "--json"], {
      home: hub.home,
    });
    expect(
      (JSON.parse(cli.stdout) as { name: string }[]).map((s) => s.name),
    ).toEqual(["ANTHROPIC_API_KEY"]);
    await dialog.getByLabel("Name").fill("NOT-A-NAME");
    await value.fill("x");
    await dialog.getByRole("button", { name: "Set", exact: true }).click();
    await expect
      .poll(() => dialog.getByRole("alert").innerText())
      .toMatch(/^invalid secret name "NOT-A-NAME"/);
    await dialog
      .getByRole("button", { name: "Remove ANTHROPIC_API_KEY" })
      .click();
    await dialog.getByText("No secrets yet.").waitFor();
  });
});
