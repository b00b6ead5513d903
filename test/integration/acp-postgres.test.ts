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
