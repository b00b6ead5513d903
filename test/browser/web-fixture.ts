// A real `acphub serve` over the mock agent and one headless Chromium (Debian's, through
// playwright-core) for a browser test file; pages log in with the URL the hub printed.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Page,
} from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { hubFixture, type RunningHub } from "../helpers/hub.js";

export const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");

export interface WebHub {
  h: RunningHub;
  home: string;
  /** The one-time login URL `acphub serve` printed. */
  loginUrl: string;
}

/** Launches Debian's Chromium headless (no downloads; --no-sandbox to run as root in CI). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env["CHROMIUM"] ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

/** The hub a browser test file's Chromium talks to: its `serve` config and mock-agent flags. */
export interface WebSuiteOptions {
  /** The serve config, or a function giving it once earlier hooks ran (a proxy's origin). */
  serve?: Record<string, unknown> | (() => Record<string, unknown>);
  flags?: string[];
  /** More of the hub's config (its `agents` are offered beside the mock). */
  config?: Record<string, unknown>;
  /** The before-all hook's timeout (ms), when its `ready` does much. */
  timeoutMs?: number;
}

export function webFixture() {
  const hubs = hubFixture();
  // A hub over the mock agent, with the login URL it printed.
  const start = async (
    serve: Record<string, unknown> = {},
    flags: string[] = [],
    config: Record<string, unknown> = {},
  ): Promise<WebHub> => {
    const { h, home } = await hubs.start(serve, flags, undefined, config);
    const first = JSON.parse(h.stdout().split("\n")[0]!) as {
      loginUrl: string;
    };
    return { h, home, loginUrl: first.loginUrl };
  };
  const cleanup = () => hubs.cleanup();
  return {
    hubs,
    start,
    cleanup,
    /** Registers the file's hooks: Chromium and a hub started together before its tests (then
     *  `ready` with both), Chromium closed and the hubs stopped after them. */
    withBrowser(
      options: WebSuiteOptions,
      ready: (browser: Browser, hub: WebHub) => Promise<void>,
    ): void {
      let browser: Browser | undefined;
      beforeAll(async () => {
        const { serve, flags, config } = options;
        const served = typeof serve === "function" ? serve() : serve;
        const [b, hub] = await Promise.all([
          launchBrowser(),
          start(served, flags, config),
        ]);
        browser = b;
        await ready(b, hub);
      }, options.timeoutMs);
      afterAll(async () => {
        await browser?.close();
        await cleanup();
      });
    },
  };
}

/** A new login URL from the hub (POST /login/code with the bearer token). */
export async function freshLoginUrl(h: RunningHub): Promise<string> {
  const res = await fetch(`${h.url}/login/code`, {
    method: "POST",
    headers: { Authorization: `Bearer ${h.token}` },
  });
  return ((await res.json()) as { url: string }).url;
}

/** A logged-in browser context and its first page, on the session list. */
export async function loggedIn(
  browser: Browser,
  loginUrl: string,
  viewport = { width: 1100, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  // Below the test's own timeout, so a failure names the element it waited for.
  context.setDefaultTimeout(45_000);
  // Every Content-Security-Policy violation the page meets, for `cspViolations`.
  await context.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      w.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`),
    );
  });
  const page = await context.newPage();
  await logIn(page, loginUrl);
  return { context, page };
}

/** Opens a login URL and presses its button, as a person does (issue 34: the code is posted). */
export async function logIn(page: Page, loginUrl: string): Promise<void> {
  await page.goto(loginUrl);
  await page.getByRole("button", { name: /^Log in as / }).click();
  await page.waitForSelector(".sessions");
}

export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** A mock-agent scenario as prompt text. */
export const scenario = (...steps: Record<string, unknown>[]) =>
  JSON.stringify({ steps });

/** Sends a prompt from the page's composer with the keyboard (Enter). */
export async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole("textbox", { name: "Prompt" });
  await box.fill(text);
  await box.press("Enter");
}

/** Waits until the page's session shows the turn ended with this stop reason. */
export async function turnEnded(page: Page, stopReason = "end_turn") {
  await page.waitForSelector(
    `.turn-state[data-running=false][data-stop-reason=${stopReason}]`,
  );
}

/** Opens a new session from the page (agent picker, folder) and waits for its view. */
/** Starts a session from the New session form, in `cwd` or else the folder the form offers. */
export async function newSession(page: Page, cwd?: string): Promise<string> {
  await page.goto(new URL("/#/new", page.url()).href);
  // Once the agents are there (the form fills in a folder then, if none is there yet).
  await page
    .getByLabel("Agent")
    .locator("option")
    .first()
    .waitFor({ state: "attached" });
  if (cwd !== undefined) await page.getByLabel("Working folder").fill(cwd);
  await page.getByRole("button", { name: "Start" }).click();
  const view = await page
    .waitForSelector(".session[data-session-id]")
    .catch(async (error: unknown) => {
      await page.screenshot({ path: artifact("new-session-failed.png") });
      throw error;
    });
  return (await view.getAttribute("data-session-id"))!;
}

/** Starts recording, once per animation frame, each new value of the last element matching
 *  `selector`: its attribute `attr`, or the length of its text; `samples` reads them back. */
export async function record(
  page: Page,
  name: string,
  selector: string,
  attr?: string,
) {
  await page.evaluate(
    ([n, sel, a]) => {
      const w = window as unknown as Record<string, unknown[]>;
      const seen: unknown[] = (w[`__${n}`] = []);
      const tick = () => {
        const all = document.querySelectorAll(sel);
        const el = all[all.length - 1];
        const v = !el
          ? undefined
          : a
            ? el.getAttribute(a)
            : el.textContent?.length;
        if (v !== undefined && v !== null && v !== seen.at(-1)) seen.push(v);
        if (w[`__${n}`] === seen) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    },
    [name, selector, attr ?? ""] as const,
  );
}

export async function samples<T>(page: Page, name: string): Promise<T[]> {
  return page.evaluate(
    (n) => (window as unknown as Record<string, T[]>)[`__${n}`] ?? [],
    name,
  );
}

/** The Content-Security-Policy violations the page has met since it loaded. */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(
    () => (window as unknown as { __csp?: string[] }).__csp ?? [],
  );
}

/** axe-core's serious and critical findings on the page as it is now (rule: node targets). */
export async function axeFindings(page: Page): Promise<string[]> {
  const source = readFileSync(
    createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
    "utf8",
  );
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) still holds.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(c: Document, o: unknown): Promise<{ violations: AxeViolation[] }>;
        };
      }
    ).axe;
    return (await axe.run(document, { resultTypes: ["violations"] }))
      .violations;
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
    );
}

interface AxeViolation {
  id: string;
  impact?: string;
  nodes: { target: string[] }[];
}
