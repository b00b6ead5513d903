// Two hub processes sharing one PostgreSQL ledger (issue 22): users made by the CLI work on
// both, a member's session on one hub is not seen by another member on the other, a share made
// on one applies on the other, and removing a user closes their connection on the other hub.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import {
  connectClient,
  INIT,
  startHub,
  text,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { TEAM_WORK } from "../helpers/team.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());

const hubs: RunningHub[] = [];
const clients: HubTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

const listIds = async (c: HubTestClient) =>
  (
    await c.agent.request<{ sessions: { sessionId: string }[] }>(
      "session/list",
      {},
    )
  ).sessions.map((s) => s.sessionId);

describe("two hubs on one PostgreSQL ledger", { timeout: 120_000 }, () => {
  it("share users and grants, and revoke on both", async () => {
    const url = await server.database();
    const env = { ACPHUB_LEDGER_URL: url };
    const home = tempDir();
    mockConfig(home, [], { users: { roots: { "*": [TEAM_WORK] } } });
    const token = async (name: string) =>
      (
        JSON.parse(
          (await runCli(["users", "add", name, "--json"], { home, env }))
            .stdout,
        ) as { token: string }
      ).token;
    const tokens = { alice: await token("alice"), bob: await token("bob") };
    const [a, b] = [
      await startHub(home, [], env),
      await startHub(home, [], env),
    ];
    hubs.push(a, b);
    const connect = (h: RunningHub, t: string) => {
      const c = connectClient({ acpUrl: h.acpUrl, token: t }, "ws");
      clients.push(c);
      return c;
    };
    const alice = connect(a, tokens.alice);
    const bob = connect(b, tokens.bob);
    for (const c of [alice, bob]) await c.agent.request("initialize", INIT);
    const { sessionId } = await alice.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd: TEAM_WORK, mcpServers: [] },
    );
    await alice.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "alice only" })),
    });
    expect(await listIds(bob)).toEqual([]);
    await expect(
      bob.agent.request("session/load", {
        sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({
      code: -32002,
      message: `no session "${sessionId}"`,
    });
    await alice.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "viewer",
    });
    expect(await listIds(bob)).toEqual([sessionId]);
    expect(JSON.stringify(bob.notifications)).not.toContain("alice only");
    expect((await runCli(["users", "remove", "bob"], { home, env })).code).toBe(
      0,
    );
    await bob.closed;
  });
});
