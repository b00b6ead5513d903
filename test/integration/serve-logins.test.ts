// Issue 34, items 3 and 9, through the real `acphub serve`: a login code or a browser session
// lives only while its user's credentials stay as they were (removed or rotated: refused, also
// when that happened while the hub was down), and an unknown or removed user is nobody — never
// the built-in admin; a trusted proxy's user header never names the built-in admin, a reserved
// name or a look-alike of one or of an existing user, however it is spelled.
import { connect } from "node:net";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { startHub, until } from "../helpers/hub.js";
import { teamFixture, type TeamHub } from "../helpers/team.js";
import {
  loginWith,
  openLoginPage,
  postLogin,
  rawRequest,
} from "../helpers/web-login.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

// A new login URL for whoever holds `token` (POST /login/code).
async function mintLoginUrl(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/login/code`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { url: string }).url;
}

// The status a WebSocket upgrade to /acp gets with these headers (101 when it opened).
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

// What a cookie reaches: /metrics (admins only), the page, and the WebSocket upgrade.
async function reach(url: string, cookie: string) {
  const headers = { Cookie: cookie };
  return {
    metrics: (await rawRequest(`${url}/metrics`, "GET", headers)).status,
    page: (await rawRequest(`${url}/`, "GET", headers)).status,
    upgrade: await upgrade(url, headers),
  };
}

const REFUSED = { metrics: 401, page: 401, upgrade: 401 };

// The status of GET /metrics with a user header sent as raw bytes (UTF-8, unchecked by a client).
function metricsAs(url: string, header: string, name: string) {
  const { hostname, port } = new URL(url);
  return new Promise<number>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    socket.on("data", (d: Buffer) => {
      answer += d.toString("latin1");
      const status = /^HTTP\/1\.1 (\d+)/.exec(answer);
      if (status) {
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    socket.on("error", reject);
    socket.write(
      Buffer.concat([
        Buffer.from(
          `GET /metrics HTTP/1.1\r\nHost: ${hostname}\r\n${header}: `,
        ),
        Buffer.from(name, "utf8"),
        Buffer.from("\r\nConnection: close\r\n\r\n"),
      ]),
    );
  });
}

const listUsers = async (team: TeamHub) =>
  (
    JSON.parse(
      (await runCli(["users", "list", "--json"], { home: team.home })).stdout,
    ) as { name: string }[]
  ).map((u) => u.name);

describe(
  "acphub serve: logins die with their user",
  { timeout: 120_000 },
  () => {
    it.each([["remove"], ["rotate"]])(
      "after users %s, a login code minted before (POST /login/code) is refused and the user's browser session reaches nothing",
      async (command) => {
        const team = await fx.start({ alice: "member", bob: "member" });
        const alice = team.tokens["alice"]!;
        const cookie = await loginWith(await mintLoginUrl(team.h.url, alice));
        expect(await reach(team.h.url, cookie)).toEqual({
          metrics: 403,
          page: 200,
          upgrade: 101,
        });
        const unspent = await mintLoginUrl(team.h.url, alice);
        const page = await openLoginPage(unspent);
        expect(page.page.status).toBe(200);
        expect(page.page.body).toContain("Log in as alice");
        const cli = await runCli(["users", command!, "alice"], {
          home: team.home,
        });
        expect(cli.code).toBe(0);
        await until(
          async () =>
            (
              await rawRequest(`${team.h.url}/metrics`, "GET", {
                Authorization: `Bearer ${alice}`,
              })
            ).status === 401,
        );
        // The code minted before: neither its page nor its post logs anyone in.
        expect((await openLoginPage(unspent)).page.status).toBe(401);
        const posted = await postLogin(unspent, page.form!, {
          Cookie: page.nonceCookie!,
        });
        expect(posted.status).toBe(401);
        expect(String(posted.headers["set-cookie"] ?? "")).not.toContain(
          "acphub_session=",
        );
        expect(await reach(team.h.url, cookie)).toEqual(REFUSED);
        // Bob's login is untouched.
        const bobs = await loginWith(
          await mintLoginUrl(team.h.url, team.tokens["bob"]!),
        );
        expect((await reach(team.h.url, bobs)).page).toBe(200);
      },
    );

    it.each([["remove"], ["rotate"]])(
      "users %s while the hub is down: after the restart the user's old browser session is 401, never admin",
      async (command) => {
        const team = await fx.start({ alice: "member" });
        const cookie = await loginWith(
          await mintLoginUrl(team.h.url, team.tokens["alice"]!),
        );
        const admins = await loginWith(
          await mintLoginUrl(team.h.url, team.tokens["admin"]!),
        );
        expect((await reach(team.h.url, cookie)).metrics).toBe(403);
        team.h.child.kill("SIGTERM");
        await team.h.exited;
        const cli = await runCli(["users", command!, "alice"], {
          home: team.home,
        });
        expect(cli.code).toBe(0);
        // On its port again: the cookie's name is the hub's port (a browser's view of the hub).
        const port = new URL(team.h.url).port;
        const again = await startHub(team.home, ["--port", port]);
        try {
          expect(await reach(again.url, cookie)).toEqual(REFUSED);
          // The admin's browser session (the serve token unchanged) survives the restart.
          expect(await reach(again.url, admins)).toEqual({
            metrics: 200,
            page: 200,
            upgrade: 101,
          });
        } finally {
          again.child.kill("SIGKILL");
          await again.exited;
        }
      },
    );

    it("a login link made by the CLI is refused once its user was removed, even on its page", async () => {
      const team = await fx.start({ alice: "member" });
      const link = await runCli(["users", "login-link", "alice", "--json"], {
        home: team.home,
      });
      const { url } = JSON.parse(link.stdout) as { url: string };
      const page = await openLoginPage(url);
      expect(page.page.body).toContain("Log in as alice");
      await runCli(["users", "remove", "alice"], { home: team.home });
      expect((await openLoginPage(url)).page.status).toBe(401);
      const posted = await postLogin(url, page.form!, {
        Cookie: page.nonceCookie!,
      });
      expect(posted.status).toBe(401);
    });
  },
);

describe(
  "acphub serve: a trusted proxy's user header",
  { timeout: 120_000 },
  () => {
    it("never names the built-in admin, a reserved name or a look-alike of one or of a user; a new name is still created", async () => {
      const team = await fx.start(
        { alice: "viewer" },
        {
          serve: {
            trustedProxy: {
              addresses: ["127.0.0.1"],
              userHeader: "X-Forwarded-User",
              autoCreate: true,
            },
          },
        },
      );
      const spellings = [
        "admin",
        " admin ",
        "admin\t",
        "\tadmin",
        "Admin",
        "ADMIN",
        "aDmIn",
        "adm1n",
        "ａｄｍｉｎ",
        "ad\u200bmin",
        "admin\u200b",
        "\u00adadmin",
        "cli",
        "CLI",
        "acphub",
        "Alice",
        "ALICE",
        "a1ice",
        "alice\u200d",
      ];
      for (const name of spellings)
        expect(
          await metricsAs(team.h.url, "X-Forwarded-User", name),
          JSON.stringify(name),
        ).toBe(401);
      expect(await metricsAs(team.h.url, "X-Forwarded-User", "alice")).toBe(
        403,
      );
      expect(await metricsAs(team.h.url, "X-Forwarded-User", "bob")).toBe(403);
      expect(await listUsers(team)).toEqual(["alice", "bob"]);
    });
  },
);
