// Issue 34, items 8 and 13: usage outlives the sessions that made it, and only turns that ran are
// usage. A budget spent by `acphub run` stays spent for a fresh process after `acphub sessions
// delete` removed the sessions that spent it (SQLite and PostgreSQL), and `acphub usage` still
// counts them. A fork's copied history is not usage again (only the fork's own turn counts,
// its cost from where the parent's left off), and neither is an imported session's.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text, useEditors } from "../helpers/acp-session.js";
import { runCli } from "../helpers/cli.js";
import { INIT, mockConfig, openSession } from "../helpers/editor.js";
import { tempDir, usageTurn } from "../helpers/mock.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());
const startEditor = useEditors();

type Row = Record<string, unknown>;
const usage = async (home: string, env: Record<string, string>, by = "agent") =>
  JSON.parse(
    (await runCli(["usage", "--by", by, "--json"], { home, env })).stdout,
  ) as Row[];

describe.each([
  ["SQLite", () => Promise.resolve({})],
  ["PostgreSQL", async () => ({ ACPHUB_LEDGER_URL: await server.database() })],
])("usage on %s outlives deleted sessions", (_name, ledgerEnv) => {
  it("a fresh acphub run is still refused after acphub sessions delete", async () => {
    const env: Record<string, string> = await ledgerEnv();
    const home = tempDir();
    mockConfig(home, [], {
      limits: { budget: { agents: { mock: { tokens: 100 } } } },
    });
    expect((await runCli(["run", usageTurn(60)], { home, env })).code).toBe(0);
    expect((await runCli(["run", usageTurn(60)], { home, env })).code).toBe(0);
    const list = await runCli(["sessions", "list", "--json"], { home, env });
    const ids = (JSON.parse(list.stdout) as { id: string }[]).map((s) => s.id);
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const gone = await runCli(["sessions", "delete", id], { home, env });
      expect(gone.code).toBe(0);
    }
    const after = await runCli(["sessions", "list", "--json"], { home, env });
    expect(JSON.parse(after.stdout)).toEqual([]);

    const refused = await runCli(["run", usageTurn(1)], { home, env });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(
      /the daily budget of agent mock \(limits\.budget\.agents\.mock\) is spent: 120 of 100 tokens used/,
    );
    expect(await usage(home, env)).toEqual([
      expect.objectContaining({
        key: "mock",
        sessions: 2,
        turns: 2,
        totalTokens: 120,
      }),
    ]);
  });
});

describe("usage of forks and imports", { timeout: 60_000 }, () => {
  it("counts a fork's own turn only, and an imported session's turns not at all", async () => {
    const home = tempDir();
    mockConfig(home, [], {
      limits: { budget: { agents: { mock: { tokens: 100 } } } },
    });
    const e = startEditor(home);
    await e.agent.request("initialize", INIT);
    const parent = await openSession(e, home);
    const prompt = (sessionId: string, t: string) =>
      e.agent.request("session/prompt", { sessionId, prompt: text(t) });
    await prompt(parent, usageTurn(60, 0.5));
    const { sessionId: fork } = await e.agent.request<{ sessionId: string }>(
      "session/fork",
      { sessionId: parent, cwd: home, mcpServers: [] },
    );
    // The fork goes on from its parent's cumulative cost: 0.6 after its own turn.
    await prompt(fork, usageTurn(1, 0.6));
    // 61 tokens in all: the budget still admits (the copied turn would make it 121).
    await prompt(fork, usageTurn(1));
    const bySession = await usage(home, {}, "session");
    expect(bySession.find((r) => r["key"] === parent)).toMatchObject({
      turns: 1,
      totalTokens: 60,
      cost: 0.5,
    });
    const forkRow = bySession.find((r) => r["key"] === fork)!;
    expect(forkRow).toMatchObject({ turns: 2, totalTokens: 2 });
    expect(forkRow["cost"]).toBeCloseTo(0.1);

    // Exported, then imported into another ledger: its history is not usage there.
    const file = join(tempDir(), "parent.jsonl");
    const out = await runCli(["sessions", "export", parent, "-o", file], {
      home,
    });
    expect(out.code).toBe(0);
    const other = tempDir();
    mockConfig(other);
    const imported = await runCli(["sessions", "import", file], {
      home: other,
    });
    expect(imported.code).toBe(0);
    expect(await usage(other, {})).toEqual([]);
  });
});
