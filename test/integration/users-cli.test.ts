// `acphub users …` (issue 22): tokens printed once and stored hashed, clear refusals (exit 2)
// for unknown, duplicate and invalid names and for removing the last admin without a serve token.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

describe("acphub users", { timeout: 90_000 }, () => {
  it("adds, lists, rotates and removes users; the token is shown once and stored hashed", async () => {
    const home = tempDir();
    const add = await runCli(["users", "add", "alice", "--json"], { home });
    expect(add.code).toBe(0);
    const alice = JSON.parse(add.stdout) as Record<string, string>;
    expect(alice).toEqual({
      name: "alice",
      role: "member",
      token: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(
      readFileSync(join(home, "ledger.db")).includes(alice["token"]!),
    ).toBe(false);
    const viewer = await runCli(["users", "add", "vic", "--role", "viewer"], {
      home,
    });
    expect(viewer.stdout).toMatch(
      /^user vic \(viewer\); token \(shown once, keep it safe\):\n[\w-]{43}\n$/,
    );
    const list = JSON.parse(
      (await runCli(["users", "list", "--json"], { home })).stdout,
    ) as { name: string; role: string }[];
    expect(list.map((u) => [u.name, u.role])).toEqual([
      ["alice", "member"],
      ["vic", "viewer"],
    ]);
    const rotated = JSON.parse(
      (await runCli(["users", "rotate", "alice", "--json"], { home })).stdout,
    ) as Record<string, string>;
    expect(rotated["token"]).not.toBe(alice["token"]);
    expect((await runCli(["users", "remove", "vic"], { home })).stdout).toBe(
      "removed vic\n",
    );
    const after = JSON.parse(
      (await runCli(["users", "list", "--json"], { home })).stdout,
    ) as { name: string }[];
    expect(after.map((u) => u.name)).toEqual(["alice"]);
  });

  it.each([
    [["users", "add", "alice"], "a user named alice already exists"],
    [
      ["users", "add", "no spaces"],
      'invalid user name "no spaces": use 1–64 letters',
    ],
    [["users", "add", "x!y"], "invalid user name"],
    [["users", "add", "admin"], '"admin" is the serve token\'s holder'],
    // Issue 34, item 9: reserved names and look-alikes of them or of a user are refused.
    [["users", "add", "cli"], 'user name "cli" is reserved'],
    [["users", "add", "Admin"], 'reads like the reserved name "admin"'],
    [["users", "add", "ADMIN"], 'reads like the reserved name "admin"'],
    [["users", "add", "adm1n"], 'reads like the reserved name "admin"'],
    [["users", "add", "ALICE"], 'reads like the existing user "alice"'],
    [["users", "add", "a1ice"], 'reads like the existing user "alice"'],
    [["users", "add", "ａｄｍｉｎ"], 'invalid user name "ａｄｍｉｎ"'],
    [["users", "add", "ad\u200bmin"], "invalid user name"],
    [["users", "add", " admin"], "invalid user name"],
    [["users", "add", "admin\t"], "invalid user name"],
    [
      ["users", "add", "bob", "--role", "boss"],
      'invalid role "boss": one of admin, member, viewer',
    ],
    [["users", "remove", "zed"], 'no user named "zed"'],
    [["users", "rotate", "zed"], 'no user named "zed"'],
    [["users", "login-link", "zed"], 'no user named "zed"'],
  ])("refuses %j with exit 2 and changes nothing", async (args, message) => {
    const home = tempDir();
    await runCli(["users", "add", "alice"], { home });
    const result = await runCli(args, { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe("");
    const list = JSON.parse(
      (await runCli(["users", "list", "--json"], { home })).stdout,
    ) as { name: string }[];
    expect(list.map((u) => u.name)).toEqual(["alice"]);
  });

  it("audits every change as the command line's operator: admin, via cli (one spelling, issue 35)", async () => {
    const home = tempDir();
    expect((await runCli(["users", "add", "alice"], { home })).code).toBe(0);
    expect((await runCli(["users", "rotate", "alice"], { home })).code).toBe(0);
    expect((await runCli(["users", "remove", "alice"], { home })).code).toBe(0);
    const entries = JSON.parse(
      (await runCli(["audit", "--json"], { home })).stdout,
    ) as { user: string; action: string; detail: Record<string, unknown> }[];
    expect(entries.map((e) => [e.user, e.action, e.detail])).toEqual([
      ["admin", "user.add", { via: "cli", name: "alice", role: "member" }],
      ["admin", "user.rotate", { via: "cli", name: "alice" }],
      ["admin", "user.remove", { via: "cli", name: "alice" }],
    ]);
  });

  it("keeps the last admin unless a serve token can still administer the hub", async () => {
    const home = tempDir();
    await runCli(["users", "add", "root", "--role", "admin"], { home });
    const refused = await runCli(["users", "remove", "root"], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "root is the last admin and there is no serve token",
    );
    const withToken = await runCli(["users", "remove", "root"], {
      home,
      env: { ACPHUB_TOKEN: "a-serve-token-of-enough-length" },
    });
    expect(withToken.code).toBe(0);
  });

  it("prints a login link for the hub's URL", async () => {
    const home = tempDir();
    await runCli(["users", "add", "alice"], { home });
    const link = await runCli(
      [
        "users",
        "login-link",
        "alice",
        "--url",
        "https://hub.example/",
        "--json",
      ],
      { home },
    );
    const parsed = JSON.parse(link.stdout) as {
      url: string;
      expiresAt: string;
    };
    expect(parsed.url).toMatch(
      /^https:\/\/hub\.example\/login\?code=[\w-]{43}$/,
    );
    expect(Date.parse(parsed.expiresAt) - Date.now()).toBeGreaterThan(
      14 * 60_000,
    );
  });
});
