// Secret masking works on values: with MAX_THINKING_TOKENS=100000 (a number, not a secret) in
// acphub's environment, a usage_update with "used":1000000 is relayed, stored and replayed
// intact on SQLite and PostgreSQL, "1000000 tokens" is not altered, and a real secret inside a
// string is still masked in what the editor gets and what the ledger keeps.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  INIT,
  editorTracker,
  mockConfig,
  startEditor,
  type TestEditor,
} from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());
const editors = editorTracker();
afterEach(() => editors.cleanup(() => undefined));

const SECRET = "sk-live-Zq81xYw9";
const ENV = { MAX_THINKING_TOKENS: "100000", OPENAI_API_KEY: SECRET };
const text = (t: string) => [{ type: "text", text: t }];
type Ev = Record<string, unknown>;

// The updates of one kind among those an editor got, in order; acphub's own notices (agent text
// marked `_meta.acphub.notice`, on a line of its own) are not the agent's.
function updatesOf(got: Ev[], kind: string): Ev[] {
  return got
    .filter(
      (p) => !((p["_meta"] as Ev | undefined)?.["acphub"] as Ev)?.["notice"],
    )
    .map((p) => p["update"] as Ev)
    .filter((u) => u["sessionUpdate"] === kind);
}

// One turn that reports usage and says a number and the secret, in a new session.
async function turnWithUsage(home: string, env: Record<string, string>) {
  const e = editors.track(startEditor(home, { env: { ...ENV, ...env } }));
  await e.agent.request("initialize", INIT);
  const { sessionId } = await e.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd: home, mcpServers: [] },
  );
  const said = `1000000 tokens; key ${SECRET}; not-${SECRET}x`;
  const response = await e.agent.request<Ev>("session/prompt", {
    sessionId,
    prompt: text(
      steps({ usage: { used: 1000000, size: 2000000 } }, { text: said }),
    ),
  });
  return { e, sessionId, response };
}

// What a second acphub on the same ledger replays of the session, up to its notice that the agent
// (restored in the background, the mock cannot load) started a new session: an editor gets that
// notice as agent text, which must not be taken for the agent's words.
async function replayed(
  home: string,
  env: Record<string, string>,
  sessionId: string,
) {
  const e = editors.track(startEditor(home, { env: { ...ENV, ...env } }));
  await e.agent.request("initialize", INIT);
  await e.agent.request("session/load", {
    sessionId,
    cwd: home,
    mcpServers: [],
  });
  const notice = /\[acphub\] mock could not resume or load/;
  await expect.poll(() => JSON.stringify(e.updates())).toMatch(notice);
  return { e, got: e.updates() };
}

const expectIntact = (e: TestEditor, got: Ev[]) => {
  expect(updatesOf(got, "usage_update")).toEqual([
    { sessionUpdate: "usage_update", used: 1000000, size: 2000000 },
  ]);
  const said = updatesOf(got, "agent_message_chunk")
    .map((u) => (u["content"] as { text: string }).text)
    .join("");
  expect(said).toBe(`1000000 tokens; key ***; not-${SECRET}x`);
  expect(e.stderr()).not.toMatch(/damaged event row/);
};

describe("masking by value in acphub acp", () => {
  it.each([
    ["SQLite", async () => ({})],
    [
      "PostgreSQL",
      async () => ({ ACPHUB_LEDGER_URL: await server.database() }),
    ],
  ])(
    "%s: the usage_update is stored and replayed intact; the secret is masked",
    async (_name, ledgerEnv) => {
      const home = tempDir("acphub-home-");
      mockConfig(home);
      const env = await ledgerEnv();
      const first = await turnWithUsage(home, env);
      expect(first.response["stopReason"]).toBe("end_turn");
      expectIntact(first.e, first.e.updates());
      first.e.child.kill("SIGKILL");
      await first.e.exited;
      const second = await replayed(home, env, first.sessionId);
      expectIntact(second.e, second.got);
    },
  );
});
