// Two `acphub acp` processes on one PostgreSQL ledger: a session created through one is listed,
// loaded (replayed) and continued through the other; an unreachable server is one line naming
// the URL (password masked) and exit code 2, never a silent fallback to SQLite.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  INIT,
  editorTracker,
  mockConfig,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());
const editors = editorTracker();
afterEach(() => editors.cleanup(() => undefined));

const text = (t: string) => [{ type: "text", text: t }];

describe("acphub acp on a PostgreSQL ledger", () => {
  it("a session created through one process is listed, loaded and continued through another", async () => {
    const url = await server.database();
    const [homeA, homeB] = [tempDir(), tempDir()];
    mockConfig(homeA);
    mockConfig(homeB);
    const a = editors.track(
      startEditor(homeA, { env: { ACPHUB_LEDGER_URL: url } }),
    );
    await a.agent.request("initialize", INIT);
    const { sessionId } = await a.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: "/shared", mcpServers: [] },
    );
    await a.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "from process A", chunks: 5 })),
    });

    const b = editors.track(
      startEditor(homeB, { env: { ACPHUB_LEDGER_URL: url } }),
    );
    await b.agent.request("initialize", INIT);
    const list = await b.agent.request<{ sessions: { sessionId: string }[] }>(
      "session/list",
      { cwd: "/shared" },
    );
    expect(list.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    await b.agent.request("session/load", {
      sessionId,
      cwd: "/shared",
      mcpServers: [],
    });
    const said = b
      .updates()
      .map(
        (u) =>
          (u["update"] as { content?: { text?: string } }).content?.text ?? "",
      )
      .join("");
    expect(said).toContain("from process A");
    await b.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "then B" })),
    });
    expect(JSON.stringify(b.updates())).toContain("then B");
    // Nothing was written to either process's own SQLite file.
    expect(existsSync(join(homeA, "ledger.db"))).toBe(false);
    expect(existsSync(join(homeB, "ledger.db"))).toBe(false);
    // And A sees what B added when it loads the session again.
    const again = editors.track(
      startEditor(homeA, { env: { ACPHUB_LEDGER_URL: url } }),
    );
    await again.agent.request("initialize", INIT);
    await again.agent.request("session/load", {
      sessionId,
      cwd: "/shared",
      mcpServers: [],
    });
    expect(
      await waitFor(() => JSON.stringify(again.updates()).includes("then B")),
    ).toBe(true);
  });

  it("PostgreSQL restarted mid-turn: the turn goes on once it is back; away past ledger.retryMs: the turn fails and the editor saw only what was stored", async () => {
    const url = await server.database();
    const home = tempDir();
    // The budget outlasts a PostgreSQL restart on a busy machine (1.5 s did not, at load 6).
    mockConfig(home, [], { ledger: { retryMs: 6000 } });
    const e = editors.track(
      startEditor(home, { env: { ACPHUB_LEDGER_URL: url } }),
    );
    await e.agent.request("initialize", INIT);
    const { sessionId } = await e.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: home, mcpServers: [] },
    );
    const chunks = (from: number) =>
      e
        .updates()
        .slice(from)
        .map(
          (u) =>
            (u["update"] as { content?: { text?: string } }).content?.text ??
            "",
        )
        .join("");
    // A restart shorter than the retry budget, while the agent streams: nothing is lost.
    const first = e.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "one " }, { sleep: 600 }, { text: "two " })),
    });
    await waitFor(() => chunks(0).includes("one "));
    await server.restart(200);
    await first;
    expect(chunks(0)).toContain("one two ");
    // Away for longer than the budget: the turn fails with the URL named; "four" never shown.
    const seen = e.updates().length;
    const second = e.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ text: "three " }, { sleep: 600 }, { text: "four " }),
      ),
    });
    await waitFor(() => chunks(seen).includes("three "));
    server.stopOnly();
    try {
      await expect(second).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(
          /ledger postgres:\/\/postgres@127\.0\.0\.1:\d+\/\w+ is unreachable/,
        ),
      });
    } finally {
      server.startAgain();
    }
    expect(chunks(seen)).not.toContain("four");
    const again = editors.track(
      startEditor(home, { env: { ACPHUB_LEDGER_URL: url } }),
    );
    await again.agent.request("initialize", INIT);
    await again.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const history = JSON.stringify(again.updates());
    for (const word of ["one ", "two ", "three "])
      expect(history).toContain(word);
    expect(history).not.toContain('"text":"four "');
  });

  it("acphub serve exits 2 the same way when PostgreSQL is unreachable", async () => {
    const home = tempDir();
    mockConfig(home);
    const r = await runCli(["serve", "--port", "0"], {
      home,
      env: { ACPHUB_LEDGER_URL: "postgres://me:s3cret-pw@127.0.0.1:1/acphub" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^acphub: ledger postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/acphub is unreachable/,
    );
    expect(r.stderr).not.toContain("s3cret-pw");
  });

  it("exits 2 with one line naming the URL, password masked, when PostgreSQL is unreachable", async () => {
    const home = tempDir();
    mockConfig(home);
    const r = await runCli(["acp"], {
      home,
      env: { ACPHUB_LEDGER_URL: "postgres://me:s3cret-pw@127.0.0.1:1/acphub" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^acphub: ledger postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/acphub is unreachable/,
    );
    expect(r.stderr).not.toContain("s3cret-pw");
    expect(r.stdout).toBe("");
    expect(existsSync(join(home, "ledger.db"))).toBe(false);
  });
});
