// `acphub users secrets set|list|remove` (issue 36): a hub user's secrets sealed in the ledger
// with a key beside it (mode 0600), listed by name only, refused clearly when the name is no
// environment variable's, the value is over 64 KiB, the user is unknown, the key is another
// (nothing changes) or missing (serve refuses to start, giving the line that makes one).
import {
  chmodSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import { CLI, tempDir } from "../helpers/mock.js";

const VALUE = "sk-ant-alice-0123456789abcdef";

// A state folder with alice (member) and bob (member).
async function homeWithUsers(): Promise<string> {
  const home = tempDir();
  for (const name of ["alice", "bob"])
    expect((await runCli(["users", "add", name], { home })).code).toBe(0);
  return home;
}

const set = (home: string, args: string[], input = VALUE, env = {}) =>
  runCli(["users", "secrets", "set", ...args], { home, input, env });

// The ledger's stored bytes (with its write-ahead log, if one is left).
function ledgerBytes(home: string): Buffer {
  const files = ["ledger.db", "ledger.db-wal"].map((f) => join(home, f));
  return Buffer.concat(files.filter(existsSync).map((f) => readFileSync(f)));
}

// The stored rows as they are, for "nothing changed".
function rows(home: string): unknown[] {
  const db = new Database(join(home, "ledger.db"), { readonly: true });
  try {
    return db
      .prepare("SELECT * FROM user_secrets ORDER BY user_name, name")
      .all();
  } finally {
    db.close();
  }
}

async function listJson(home: string, user: string): Promise<unknown> {
  const r = await runCli(["users", "secrets", "list", user, "--json"], {
    home,
  });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe("acphub users secrets", { timeout: 120_000 }, () => {
  it("sets from stdin and a file, lists names only, removes; sealed in the ledger, audited without the value", async () => {
    const home = await homeWithUsers();
    const r = await set(home, ["alice", "ANTHROPIC_API_KEY"], `${VALUE}\n`);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      "set ANTHROPIC_API_KEY for alice (value not shown)\n",
      "",
    ]);
    expect(statSync(join(home, "secrets.key")).mode & 0o777).toBe(0o600);
    const file = join(tempDir(), "token.txt");
    writeFileSync(file, "ghp-bob-token-abcdefghij\n");
    const j = await set(
      home,
      ["bob", "GH_TOKEN", "--from-file", file, "--json"],
      "",
    );
    expect(JSON.parse(j.stdout)).toEqual({
      user: "bob",
      name: "GH_TOKEN",
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const text = await runCli(["users", "secrets", "list", "alice"], { home });
    expect(text.stdout).toMatch(
      /^ANTHROPIC_API_KEY +\d{4}-\d\d-\d\dT[\d:.]+Z\n$/,
    );
    expect(await listJson(home, "alice")).toEqual([
      { name: "ANTHROPIC_API_KEY", updatedAt: expect.any(String) },
    ]);
    expect(await listJson(home, "bob")).toEqual([
      { name: "GH_TOKEN", updatedAt: expect.any(String) },
    ]);
    // Neither value anywhere: the ledger's bytes, the key file aside, the audit log.
    const bytes = ledgerBytes(home);
    expect(bytes.includes(VALUE)).toBe(false);
    expect(bytes.includes("ghp-bob-token-abcdefghij")).toBe(false);
    expect(rows(home)).toHaveLength(2);
    const audit = await runCli(["audit", "--json"], { home });
    expect(audit.stdout).not.toContain(VALUE);
    const entries = JSON.parse(audit.stdout) as {
      action: string;
      detail: unknown;
    }[];
    expect(
      entries.filter((e) => e.action === "secret.set").map((e) => e.detail),
    ).toEqual([
      { via: "cli", user: "alice", name: "ANTHROPIC_API_KEY" },
      { via: "cli", user: "bob", name: "GH_TOKEN" },
    ]);
    const rm = await runCli(
      ["users", "secrets", "remove", "alice", "ANTHROPIC_API_KEY", "--json"],
      { home },
    );
    expect(JSON.parse(rm.stdout)).toEqual({
      user: "alice",
      removed: "ANTHROPIC_API_KEY",
    });
    expect(await listJson(home, "alice")).toEqual([]);
    const again = await runCli(
      ["users", "secrets", "remove", "alice", "ANTHROPIC_API_KEY"],
      { home },
    );
    expect([again.code, again.stderr]).toEqual([
      2,
      'acphub: alice has no secret named "ANTHROPIC_API_KEY"\n',
    ]);
    // The built-in admin (the serve token's holder) keeps secrets too.
    expect((await set(home, ["admin", "OPENAI_API_KEY"])).code).toBe(0);
    expect(await listJson(home, "admin")).toEqual([
      { name: "OPENAI_API_KEY", updatedAt: expect.any(String) },
    ]);
    // A removed user's secrets go with them: a new user of the same name has none.
    await runCli(["users", "remove", "bob"], { home });
    await runCli(["users", "add", "bob"], { home });
    expect(await listJson(home, "bob")).toEqual([]);
  });

  it.each([
    [
      ["alice", "1BAD"],
      VALUE,
      /invalid secret name "1BAD": give an environment variable's name/,
    ],
    [["alice", "A-B"], VALUE, /invalid secret name "A-B"/],
    [["alice", ""], VALUE, /a secret's name may not be empty/],
    [["alice", "ACPHUB_TOKEN"], VALUE, /ACPHUB_\* variables are acphub's own/],
    [
      ["alice", "LD_PRELOAD"],
      VALUE,
      /LD_PRELOAD: it changes which program runs/,
    ],
    [
      ["alice", "BIG"],
      "x".repeat(64 * 1024 + 1),
      /the value of BIG is 65537 bytes: a secret holds at most 65536 \(64 KiB\)/,
    ],
    [["alice", "EMPTY"], "", /the value of EMPTY is empty/],
    [["carol", "OPENAI_API_KEY"], VALUE, /no user named "carol"/],
  ])("refuses %j (exit 2), storing nothing", async (args, input, message) => {
    const home = await homeWithUsers();
    const r = await set(home, args, input);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain(VALUE);
    expect(rows(home)).toEqual([]);
  });

  it("a wrong key (ACPHUB_SECRETS_KEY not the file's) is refused, naming the file; nothing changes", async () => {
    const home = await homeWithUsers();
    expect((await set(home, ["alice", "OPENAI_API_KEY"])).code).toBe(0);
    const before = rows(home);
    const other = Buffer.alloc(32, 7).toString("hex");
    const r = await set(
      home,
      ["alice", "OPENAI_API_KEY"],
      "sk-another-value-123456",
      {
        ACPHUB_SECRETS_KEY: other,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `was sealed with another key than ACPHUB_SECRETS_KEY (the key file is ${join(home, "secrets.key")}): nothing was decrypted or changed`,
    );
    const added = await set(
      home,
      ["bob", "NEW_KEY"],
      "sk-bob-value-123456789",
      {
        ACPHUB_SECRETS_KEY: other,
      },
    );
    expect(added.code).toBe(2);
    expect(rows(home)).toEqual(before);
    // The file's own key, given as base64 in the variable, opens them.
    const key = readFileSync(join(home, "secrets.key"), "utf8").trim();
    const ok = await set(home, ["bob", "NEW_KEY"], "sk-bob-value-123456789", {
      ACPHUB_SECRETS_KEY: key,
    });
    expect(ok.code).toBe(0);
    const bad = await set(home, ["bob", "NEW_KEY"], VALUE, {
      ACPHUB_SECRETS_KEY: "short",
    });
    expect(bad.stderr).toMatch(
      /ACPHUB_SECRETS_KEY is not a secrets key: give 32 bytes as base64/,
    );
  });

  it("acphub serve refuses to start with secrets stored and no key, giving the one line that makes one", async () => {
    const home = await homeWithUsers();
    mockConfig(home);
    expect((await set(home, ["alice", "OPENAI_API_KEY"])).code).toBe(0);
    const keyFile = join(home, "secrets.key");
    renameSync(keyFile, join(home, "elsewhere.key"));
    const r = await runCli(["serve", "--port", "0", "--json"], {
      home,
      timeoutMs: 30_000,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(
      `secrets are stored in the ledger but there is no key to open them (no ${keyFile}, no ACPHUB_SECRETS_KEY)`,
    );
    // The line it gives makes a key file, mode 0600.
    const line = /\n {2}(node -e .*)\n/.exec(r.stderr)?.[1];
    expect(line).toBeDefined();
    const { execSync } = await import("node:child_process");
    execSync(line!, { env: { PATH: process.env["PATH"] ?? "" } });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, "utf8").trim()).toMatch(
      /^[A-Za-z0-9+/]{43}=$/,
    );
    // Set aside in a file readable by others, a key is refused, naming the file and the fix.
    writeFileSync(keyFile, readFileSync(join(home, "elsewhere.key")));
    chmodSync(keyFile, 0o644);
    const loose = await set(home, ["alice", "OPENAI_API_KEY"]);
    expect(loose.stderr).toContain(
      `the key file ${keyFile} may be read by others: chmod 600 ${keyFile}`,
    );
  });

  it("a ${secret:NAME} in an agent's env is refused clearly where no hub user's agent runs (acphub run)", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      agents: {
        mock: {
          command: process.execPath,
          args: [CLI, "mock-agent"],
          env: { OPENAI_API_KEY: "${secret:OPENAI_API_KEY}" },
        },
      },
    });
    const r = await runCli(["run", "-a", "mock", "hello"], {
      home,
      timeoutMs: 30_000,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "agent mock's config env names ${secret:OPENAI_API_KEY}, which only a hub user's agent gets",
    );
    mockConfig(home, [], {
      agents: { mock: { command: "x", env: { A: "${secret:not a name}" } } },
    });
    const bad = await runCli(["run", "-a", "mock", "hello"], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("write a secret as ${secret:NAME}");
  });
});
