// `acphub run` serves files and terminals through the host layer, with a filtered environment,
// and `acphub permissions` lists and forgets remembered decisions.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { steps, tempDir } from "../helpers/mock.js";

const SECRETS = {
  AWS_SECRET_ACCESS_KEY: "aws-very-secret",
  GITHUB_TOKEN: "ghp_verysecret",
  DB_PASSWORD: "hunter2-secret",
  OPENAI_API_KEY: "sk-openai-secret",
  ANTHROPIC_API_KEY: "sk-ant-secret",
  SSH_AUTH_SOCK: "/tmp/agent.sock",
};

describe("acphub run with host services", () => {
  it("neither the agent's process nor its terminals see denied variables", async () => {
    const ws = tempDir();
    const r = await runCli(
      [
        "run",
        "--json",
        "--permissions",
        "approve-all",
        "--cwd",
        ws,
        steps({ env: true }, { terminal: { command: "env" } }),
      ],
      { env: SECRETS },
    );
    expect(r.code).toBe(0);
    const text = jsonLines(r.stdout)
      .map((l) => JSON.stringify(l))
      .join("\n");
    const agentEnv = /env: ([A-Z_a-z0-9,]*)/.exec(text)![1]!.split(",");
    expect(agentEnv).toContain("PATH");
    expect(text).toContain("PATH=");
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(agentEnv).not.toContain(name);
      expect(text).not.toContain(name);
      expect(text).not.toContain(value);
    }
  });

  it("reads inside the cwd, refuses outside, and prints refusals (exit 5)", async () => {
    const ws = tempDir();
    writeFileSync(join(ws, "notes.md"), "hello notes");
    const r = await runCli([
      "run",
      "--cwd",
      ws,
      steps(
        { readFile: { path: join(ws, "notes.md") } },
        { readFile: { path: "/etc/hostname" } },
      ),
    ]);
    expect(r.stdout).toContain('read: "hello notes"');
    expect(r.stderr).toContain(
      "[read] /etc/hostname refused — /etc/hostname is outside the session's allowed roots",
    );
    expect(r.code).toBe(5);
  });

  it("config adds roots, command rules and permission rules", async () => {
    const home = tempDir();
    const ws = tempDir();
    const extra = tempDir();
    writeFileSync(join(extra, "shared.txt"), "shared");
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        fs: { roots: [extra] },
        terminals: { deny: [{ name: "no-git-push", pattern: "git\\s+push" }] },
        permissions: {
          mode: "approve-reads",
          rules: [{ kind: "execute", command: "^git", action: "allow" }],
        },
      }),
    );
    const r = await runCli(
      [
        "run",
        "--json",
        "--cwd",
        ws,
        steps(
          { readFile: { path: join(extra, "shared.txt") } },
          { terminal: { command: "git", args: ["push", "origin"] } },
          { terminal: { command: "git", args: ["--version"] } },
        ),
      ],
      { home },
    );
    const lines = jsonLines(r.stdout);
    const creates = lines.filter((l) => l["type"] === "client_request");
    expect(creates.map((c) => [c["method"], c["ok"]])).toEqual([
      ["fs/read_text_file", true],
      ["terminal/create", false],
      ["terminal/create", true],
      ["terminal/wait_for_exit", true],
      ["terminal/output", true],
      ["terminal/release", true],
    ]);
    expect(JSON.stringify(creates[1])).toContain('deny rule \\"no-git-push\\"');
    expect(r.stdout).toContain("git version");
  });

  it("an invalid regular expression in config is a clear error", async () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        permissions: { rules: [{ title: "(", action: "deny" }] },
      }),
    );
    const r = await runCli(["run", "hi"], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /permissions\.rules\.0\.title: not a valid regular expression/,
    );
  });
});

describe("secrets in what acphub writes", () => {
  it("are masked in the debug log file", async () => {
    const home = tempDir();
    const log = join(home, "acphub.log");
    const prompt = steps({
      terminal: { command: "echo", args: ["sk-live-abcdef123"] },
    });
    const r = await runCli(
      [
        "run",
        "--verbose",
        "--log-file",
        log,
        "--permissions",
        "approve-all",
        prompt,
      ],
      {
        home,
        env: { MY_SERVICE_API_KEY: "sk-live-abcdef123" },
      },
    );
    expect(r.code).toBe(0);
    const text = readFileSync(log, "utf8");
    expect(text).toContain('"command":"echo ***"');
    expect(text).not.toContain("sk-live-abcdef123");
  });
});

describe("secrets at rest", () => {
  it("the agent's reply shows the value, the ledger on disk does not", async () => {
    const home = tempDir();
    const env = { MY_SERVICE_API_KEY: "sk-live-abcdef123" };
    const r = await runCli(["run", "my key is sk-live-abcdef123"], {
      home,
      env,
    });
    expect(r.stdout).toContain("my key is sk-live-abcdef123"); // relayed faithfully to the user
    const list = await runCli(["sessions", "list", "--json"], { home });
    const id = (JSON.parse(list.stdout) as { id: string }[])[0]!.id;
    const exported = await runCli(["sessions", "export", id], { home, env });
    expect(exported.stdout).toContain("my key is ***");
    expect(exported.stdout).not.toContain("sk-live-abcdef123");
    expect(
      readFileSync(join(home, "ledger.db")).includes("sk-live-abcdef123"),
    ).toBe(false);
  });
});

describe("acphub permissions", () => {
  it("shows each decision's user, and lists and forgets by user", async () => {
    const home = tempDir();
    const at = "2026-01-01T00:00:00.000Z";
    const made = (id: string, user: string, subject: string) => ({
      id,
      user,
      workspace: "/w",
      kind: "execute",
      subject,
      decision: "allow",
      createdAt: at,
    });
    const decisions = [
      made("aaaa1111", "alice", "make"),
      made("bbbb2222", "bob", "make"),
      made("bbbb3333", "bob", "npm test"),
    ];
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "permissions.json"), JSON.stringify(decisions));
    const list = await runCli(["permissions", "list"], { home });
    expect(list.stdout.split("\n").filter(Boolean)).toEqual([
      'aaaa1111  alice    allow  execute  "make"  in /w',
      'bbbb2222  bob      allow  execute  "make"  in /w',
      'bbbb3333  bob      allow  execute  "npm test"  in /w',
    ]);
    const bobs = await runCli(
      ["permissions", "list", "--user", "bob", "--json"],
      {
        home,
      },
    );
    expect(JSON.parse(bobs.stdout)).toEqual(decisions.slice(1));
    // An id of another user's decision is not forgotten under --user.
    const wrong = await runCli(
      ["permissions", "forget", "aaaa1111", "--user", "bob"],
      { home },
    );
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      'acphub: no remembered decision with id "aaaa1111" of user "bob"\n',
    ]);
    expect(
      (await runCli(["permissions", "forget", "--user", "bob"], { home }))
        .stdout,
    ).toBe("forgot 2 decisions\n");
    const left = await runCli(["permissions", "list", "--json"], { home });
    expect(JSON.parse(left.stdout)).toEqual([decisions[0]]);
  });

  it("lists and forgets remembered decisions", async () => {
    const home = tempDir();
    const decisions = [
      {
        id: "abc12345",
        workspace: "/w",
        kind: "execute",
        subject: "make",
        decision: "allow",
        createdAt: "2026-01-01T00:00:00.000Z",
      },
      {
        id: "def67890",
        workspace: "/w",
        kind: "edit",
        subject: "Edit a.ts",
        decision: "reject",
        createdAt: "2026-01-01T00:00:00.000Z",
      },
    ];
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "permissions.json"), JSON.stringify(decisions));
    const list = await runCli(["permissions", "list"], { home });
    expect(list.code).toBe(0);
    // Stored before decisions had users: the operator's ("admin").
    expect(list.stdout).toContain(
      'abc12345  admin    allow  execute  "make"  in /w',
    );
    const json = await runCli(["permissions", "list", "--json"], { home });
    expect(JSON.parse(json.stdout)).toEqual(
      decisions.map((d) => ({ ...d, user: "admin" })),
    );
    expect(
      (await runCli(["permissions", "forget", "abc12345"], { home })).stdout,
    ).toBe("forgot 1 decision\n");
    expect(
      (await runCli(["permissions", "forget", "nope"], { home })).code,
    ).toBe(2);
    expect((await runCli(["permissions", "forget"], { home })).code).toBe(2);
    expect(
      (await runCli(["permissions", "forget", "--all"], { home })).stdout,
    ).toBe("forgot 1 decision\n");
    expect((await runCli(["permissions", "list"], { home })).stdout).toBe(
      "no remembered decisions\n",
    );
  });
});
