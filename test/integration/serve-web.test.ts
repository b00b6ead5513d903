// The web page's HTTP side of `acphub serve` (no browser): the one-time login code and its
// cookie, the headers every web response carries, static assets, the cookie on the WebSocket
// upgrade (and the Origin check with it), logout, and a login kept across a hub restart.
import { request, type IncomingHttpHeaders } from "node:http";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { startHub } from "../helpers/hub.js";
import { webFixture } from "../browser/web-fixture.js";
import { loginWith, openLoginPage, postLogin } from "../helpers/web-login.js";

const fx = webFixture();
afterEach(() => fx.cleanup());

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

// One raw HTTP request (fetch would normalize the path and follow redirects).
function get(
  url: string,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({ hostname, port, path, method, headers }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

// The status a WebSocket upgrade to /acp gets (101 when it opened).
function upgrade(url: string, headers: Record<string, string>) {
  return new Promise<number>((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/acp`, { headers });
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("error", () => resolve(-1));
  });
}

const pathOf = (loginUrl: string) =>
  new URL(loginUrl).pathname + new URL(loginUrl).search;

// Logs in with a login URL as the page's button does; the cookie header to send afterwards.
async function login(url: string, loginUrl: string): Promise<string> {
  expect(loginUrl.startsWith(url)).toBe(true);
  return loginWith(loginUrl);
}

function expectSecurityHeaders(a: Answer): void {
  const csp = String(a.headers["content-security-policy"]);
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(a.headers["x-content-type-options"]).toBe("nosniff");
}

describe("acphub serve: the web page's login and files", () => {
  it("opening the printed code shows a button naming the account; its post from the hub's page trades the code once for an HttpOnly SameSite=Strict cookie and a redirect to the clean URL; a wrong or reused code is refused", async () => {
    const { h, loginUrl } = await fx.start();
    expect(loginUrl).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/login\?code=[\w-]{32}$/,
    );
    const page = await get(h.url, "/");
    expect(page.status).toBe(401);
    expect(page.body).toContain("not logged in");
    expectSecurityHeaders(page);
    const wrong = await get(
      h.url,
      "/login?code=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    const shown = await openLoginPage(loginUrl);
    expect(shown.page.status).toBe(200);
    expect(shown.page.body).toContain("Log in as admin");
    expect(shown.page.body).toContain('<form method="post" action="/login">');
    const port = new URL(h.url).port;
    expect(shown.nonceCookie).toMatch(
      new RegExp(`^acphub_login_${port}=[\\w-]+$`),
    );
    expect(String(shown.page.headers["set-cookie"])).toContain(
      "SameSite=Strict",
    );
    expectSecurityHeaders(shown.page as Answer);
    const first = await postLogin(loginUrl, shown.form!, {
      Cookie: shown.nonceCookie!,
    });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/");
    expect(first.headers["cache-control"]).toBe("no-store");
    const cookie =
      [first.headers["set-cookie"] ?? []]
        .flat()
        .find((c) => c.startsWith("acphub_session_")) ?? "";
    expect(cookie).toMatch(new RegExp(`^acphub_session_${port}=[\\w-]{43};`));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    const reused = await get(h.url, pathOf(loginUrl));
    expect(reused.status).toBe(401);
    expect(reused.headers["set-cookie"]).toBeUndefined();
    expect(reused.body).toContain("already used");
  });

  it("login CSRF: opening a login URL never logs the browser in; a post from another site, without the page's nonce cookie or without an Origin is refused and leaves the code unspent", async () => {
    const { h, loginUrl } = await fx.start();
    // Opening the link (a top-level navigation another site can cause) sets no session.
    const opened = await get(h.url, pathOf(loginUrl));
    expect(opened.status).toBe(200);
    const cookies = [opened.headers["set-cookie"] ?? []].flat();
    expect(cookies.some((c) => c.startsWith("acphub_session"))).toBe(false);
    const { form, nonceCookie } = await openLoginPage(loginUrl);
    const attempts: Record<string, string>[] = [
      // Another site's form: its Origin, and no SameSite=Strict nonce cookie.
      { Origin: "http://evil.example" },
      { Origin: "http://evil.example", Cookie: nonceCookie! },
      { Origin: "null", Cookie: nonceCookie! },
      // The hub's origin but no nonce cookie, or another page's nonce.
      { Origin: h.url },
      {
        Origin: h.url,
        Cookie: `acphub_login_${new URL(h.url).port}=forged-nonce-0123456789`,
      },
    ];
    for (const headers of attempts) {
      const answer = await postLogin(loginUrl, form!, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(String(answer.headers["set-cookie"] ?? "")).not.toContain(
        "acphub_session",
      );
    }
    // No Origin at all: a post not from a browser page.
    const bare = await get(h.url, "/login", { Cookie: nonceCookie! }, "POST");
    expect(bare.status).toBe(403);
    // The code is still good for its own page's post.
    expect(await loginWith(loginUrl)).toMatch(/^acphub_session_\d+=/);
  });

  it("serves the page with strict headers and its hashed assets with their types, cached immutable; nothing outside dist/web", async () => {
    const { h, loginUrl } = await fx.start();
    const cookie = await login(h.url, loginUrl);
    const page = await get(h.url, "/", { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expectSecurityHeaders(page);
    expect(page.body).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(page.body).not.toMatch(/https?:\/\//);
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)![1]!;
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(page.body)![1]!;
    const script = await get(h.url, js);
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe(
      "text/javascript; charset=utf-8",
    );
    expect(script.headers["cache-control"]).toBe(
      "public, max-age=31536000, immutable",
    );
    expectSecurityHeaders(script);
    const style = await get(h.url, css);
    expect(style.headers["content-type"]).toBe("text/css; charset=utf-8");
    for (const path of [
      "/assets/../../package.json",
      "/assets/%2e%2e/%2e%2e/package.json",
      "/assets/%2e%2e%2f%2e%2e%2fpackage.json",
      "/assets/nothing.js",
      "/assets/x%00.js",
    ])
      expect((await get(h.url, path)).status, path).toBe(404);
    // The page itself only behind the login, under no other name.
    expect((await get(h.url, "/index.html")).status).toBe(401);
    expect((await get(h.url, "/assets/../index.html")).status).toBe(404);
  });

  it("the WebSocket upgrade accepts the cookie or the bearer token, and the Origin check still applies", async () => {
    const { h, loginUrl } = await fx.start();
    const cookie = await login(h.url, loginUrl);
    expect(await upgrade(h.url, { Cookie: cookie })).toBe(101);
    expect(await upgrade(h.url, { Cookie: cookie, Origin: h.url })).toBe(101);
    expect(await upgrade(h.url, { Authorization: `Bearer ${h.token}` })).toBe(
      101,
    );
    const forged = `acphub_session_${new URL(h.url).port}=forged`;
    expect(await upgrade(h.url, { Cookie: forged })).toBe(401);
    expect(await upgrade(h.url, {})).toBe(401);
    expect(
      await upgrade(h.url, { Cookie: cookie, Origin: "http://evil.example" }),
    ).toBe(403);
  });

  it("logout ends the browser session: the page, the upgrade and /auth refuse its cookie", async () => {
    const { h, loginUrl } = await fx.start();
    const cookie = await login(h.url, loginUrl);
    expect((await get(h.url, "/auth", { Cookie: cookie })).status).toBe(204);
    const cross = await get(
      h.url,
      "/logout",
      { Cookie: cookie, Origin: "http://evil.example" },
      "POST",
    );
    expect(cross.status).toBe(403);
    expect((await get(h.url, "/auth", { Cookie: cookie })).status).toBe(204);
    const out = await get(
      h.url,
      "/logout",
      { Cookie: cookie, Origin: h.url },
      "POST",
    );
    expect(out.status).toBe(204);
    expect(out.headers["set-cookie"]?.[0]).toContain("Max-Age=0");
    expect((await get(h.url, "/auth", { Cookie: cookie })).status).toBe(401);
    expect((await get(h.url, "/", { Cookie: cookie })).status).toBe(401);
    expect(await upgrade(h.url, { Cookie: cookie })).toBe(401);
  });

  it("a new login URL for a bearer-token holder only; a browser stays logged in across a hub restart", async () => {
    const { h, home, loginUrl } = await fx.start();
    const noToken = await get(h.url, "/login/code", {}, "POST");
    expect(noToken.status).toBe(401);
    const minted = await new Promise<Answer>((resolve, reject) => {
      const req = request(
        `${h.url}/login/code`,
        { method: "POST", headers: { Authorization: `Bearer ${h.token}` } },
        (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
    const url = (JSON.parse(minted.body) as { url: string }).url;
    expect(url.startsWith(`${h.url}/login?code=`)).toBe(true);
    expect(url).not.toBe(loginUrl);
    const cookie = await login(h.url, url);
    h.child.kill("SIGTERM");
    await h.exited;
    // On its port again: the cookie's name is the hub's port (a browser's view of the hub).
    const again = await startHub(home, ["--port", new URL(h.url).port]);
    try {
      expect((await get(again.url, "/", { Cookie: cookie })).status).toBe(200);
      expect(await upgrade(again.url, { Cookie: cookie })).toBe(101);
    } finally {
      again.child.kill("SIGKILL");
      await again.exited;
    }
  });
});
