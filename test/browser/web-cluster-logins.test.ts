// Issue 38, the cluster in the page, in Chromium: two `acphub serve` nodes on one PostgreSQL.
// Behind a load balancer (a TCP proxy sending each new connection to the next node) a browser
// stays logged in whichever node it reaches; two single hubs on one host (different ports) keep
// their logins side by side in one browser; a share made on node A (the page's Share dialog, or
// `acphub sessions share`) reaches the new viewer's open page on node B without a reload, and
// an unshare takes it away again.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { mockConfig } from "../helpers/editor.js";
import { startHub, type RunningHub } from "../helpers/hub.js";
import { tempDir } from "../helpers/mock.js";
import { TEAM_WORK } from "../helpers/team.js";
import { startProxy } from "./tcp-proxy.js";
import { launchBrowser, loggedIn, logIn, newSession } from "./web-fixture.js";

const cluster = clusterFixture();
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const TEAM = { users: { roots: { "*": [TEAM_WORK] } } };

// A database with alice and bob (members) and the environment that reaches it.
async function teamDatabase() {
  const url = await cluster.database();
  const env = { ACPHUB_LEDGER_URL: url, ACPHUB_TOKEN: CLUSTER_TOKEN };
  const home = tempDir();
  mockConfig(home, [], TEAM);
  for (const name of ["alice", "bob"]) {
    const added = await runCli(["users", "add", name], { home, env });
    expect(added.code, added.stderr).toBe(0);
  }
  // `acphub users login-link NAME` for a browser reaching the cluster at `base`.
  const linkFor = async (name: string, base: string) => {
    const link = await runCli(
      ["users", "login-link", name, "--url", base, "--json"],
      { home, env },
    );
    expect(link.code, link.stderr).toBe(0);
    return (JSON.parse(link.stdout) as { url: string }).url;
  };
  return { url, env, home, linkFor };
}

// True when the page is the hub's page for a logged-in browser (not the "log in" page).
async function pageLoggedIn(page: Page, user?: string): Promise<boolean> {
  await page.waitForLoadState("domcontentloaded");
  if ((await page.textContent("body"))?.includes("not logged in")) return false;
  await page.locator(".sessions").waitFor();
  if (user) await page.locator(`.who[data-user="${user}"]`).waitFor();
  return true;
}

const row = (p: Page, id: string) => p.locator(`.sessions li[data-id="${id}"]`);

describe("the cluster in the page (issue 38)", () => {
  it("behind a load balancer the browser stays logged in on every node it reaches", async () => {
    const team = await teamDatabase();
    const proxy = await startProxy();
    cluster.afterNodes(() => proxy.close());
    const serve = { ...TEAM, serve: { publicUrl: proxy.origin } };
    const nodes = [
      await cluster.node(team.url, "node-a", 2000, undefined, [], serve),
      await cluster.node(team.url, "node-b", 2000, undefined, [], serve),
    ];
    const ports = nodes.map((n) => Number(new URL(n.h.url).port));
    proxy.targets = ports.map((port) => ({ host: "127.0.0.1", port }));
    const { context, page } = await loggedIn(
      browser,
      await team.linkFor("alice", proxy.origin),
    );
    try {
      expect(await pageLoggedIn(page, "alice")).toBe(true);
      // Every connection dropped, the page reloaded: its new ones go to the other node.
      for (let hop = 0; hop < 4; hop++) {
        proxy.down();
        proxy.up();
        await page.reload();
        expect(await pageLoggedIn(page, "alice"), `hop ${hop}`).toBe(true);
      }
      for (const port of ports)
        expect(proxy.sent.get(port) ?? 0).toBeGreaterThan(1);
    } finally {
      await context.close();
    }
  });

  it("two hubs on one host (different ports) keep their logins side by side in one browser", async () => {
    const hubs: RunningHub[] = [];
    const context = await browser.newContext();
    try {
      for (let i = 0; i < 2; i++) {
        const home = tempDir();
        mockConfig(home);
        hubs.push(await startHub(home));
      }
      const pages: Page[] = [];
      for (const h of hubs) {
        const { loginUrl } = JSON.parse(h.stdout().split("\n")[0]!) as {
          loginUrl: string;
        };
        const page = await context.newPage();
        await logIn(page, loginUrl);
        pages.push(page);
      }
      // The second login did not end the first: both pages load logged in.
      for (const page of pages) {
        await page.reload();
        expect(await pageLoggedIn(page)).toBe(true);
      }
      const names = (await context.cookies()).map((c) => c.name).sort();
      expect(names).toEqual(
        hubs.map((h) => `acphub_session_${new URL(h.url).port}`).sort(),
      );
    } finally {
      await context.close();
      for (const h of hubs) {
        h.child.kill("SIGKILL");
        await h.exited;
      }
    }
  });

  it("a share made on node A reaches bob's open page on node B without a reload; an unshare takes it away", async () => {
    const team = await teamDatabase();
    const a = await cluster.node(team.url, "node-a", 2000, undefined, [], TEAM);
    const b = await cluster.node(team.url, "node-b", 2000, undefined, [], TEAM);
    const alice = await loggedIn(browser, await team.linkFor("alice", a.h.url));
    const bob = await loggedIn(browser, await team.linkFor("bob", b.h.url));
    try {
      const id = await newSession(alice.page, TEAM_WORK);
      await alice.page.getByRole("button", { name: "Share…" }).click();
      const dialog = alice.page.getByRole("dialog", {
        name: "Share this session",
      });
      await dialog.getByLabel("User").fill("bob");
      await dialog.getByLabel("Role").selectOption("viewer");
      await dialog.getByRole("button", { name: "Share", exact: true }).click();
      await dialog.locator('li[data-user="bob"][data-role="viewer"]').waitFor();
      // Bob's page on B, never reloaded, lists it.
      await row(bob.page, id).waitFor();
      await dialog.getByRole("button", { name: "Unshare with bob" }).click();
      await row(bob.page, id).waitFor({ state: "detached" });
      // `acphub sessions share` (the command line, on the ledger) reaches it too.
      const shared = await runCli(["sessions", "share", id, "--with", "bob"], {
        home: a.home,
        env: team.env,
      });
      expect(shared.code, shared.stderr).toBe(0);
      await row(bob.page, id).waitFor();
    } finally {
      await alice.context.close();
      await bob.context.close();
    }
  });
});
