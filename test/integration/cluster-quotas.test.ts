// Issue 37 (and 36, "Limits that follow"): a user's quotas hold across the nodes of a cluster —
// sessions open at once, turns at once, prompts per minute — counted in the shared ledger; a
// node killed with its user's holds frees them once its heartbeat has lapsed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addUser } from "../../src/app/user-admin.js";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import { mockConfig } from "../helpers/editor.js";
import {
  allowOnce,
  connectClient,
  INIT,
  startHub,
  text,
  until,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { TEAM_WORK } from "../helpers/team.js";

let server: PgServer | undefined;
const hubs: RunningHub[] = [];
const clients: HubTestClient[] = [];
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

/** Each user's own limits (config `users.perUser`), one quota per user. */
const PER_USER = {
  alice: { liveSessions: 1 },
  bob: { concurrentTurns: 1 },
  carol: { promptsPerMinute: 2 },
  dave: { liveSessions: 1, concurrentTurns: 1 },
};

// A database with the users; their tokens by name.
async function team(): Promise<{
  url: string;
  tokens: Record<string, string>;
}> {
  const url = await server!.database();
  const ledger = await PostgresLedger.open(url);
  const tokens: Record<string, string> = {};
  for (const name of Object.keys(PER_USER))
    tokens[name] = (await addUser(ledger.users, name, "member")).token;
  await ledger.close();
  return { url, tokens };
}

// A node of the cluster, its members limited as PER_USER says.
async function node(url: string, id: string): Promise<RunningHub> {
  const home = tempDir();
  mockConfig(home, [], {
    cluster: { leaseMs: 2000 },
    users: { roots: { "*": [TEAM_WORK] }, perUser: PER_USER },
  });
  const h = await startHub(home, ["--node-id", id], {
    ACPHUB_LEDGER_URL: url,
    ACPHUB_TOKEN: "cluster-admin-token",
  });
  hubs.push(h);
  return h;
}

// A user's client of a node, initialized; `onRequest` answers the agent's questions.
async function as(
  h: RunningHub,
  token: string,
  onRequest?: Parameters<typeof connectClient>[2],
): Promise<HubTestClient> {
  const c = connectClient({ acpUrl: h.acpUrl, token }, "ws", onRequest);
  clients.push(c);
  await c.agent.request("initialize", INIT);
  return c;
}

const newSession = async (c: HubTestClient) =>
  (
    await c.agent.request<{ sessionId: string }>("session/new", {
      cwd: TEAM_WORK,
      mcpServers: [],
    })
  ).sessionId;

const refusedFor = (quota: string) => ({
  message: expect.stringContaining(`quota users.limits.${quota}`),
  data: expect.objectContaining({ code: "LIMIT_EXCEEDED", retryable: true }),
});

// Tries `run` until it is admitted (a release reaches the ledger a round trip after the answer
// that caused it); every refusal meanwhile must name `quota`.
async function admittedSoon<T>(quota: string, run: () => Promise<T>) {
  for (let i = 0; ; i++) {
    try {
      return await run();
    } catch (error) {
      expect(error).toMatchObject(refusedFor(quota));
      if (i >= 200) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe("quotas across a cluster's nodes", { timeout: 120_000 }, () => {
  it("liveSessions: open on A counts on B; the same session is free; closing on A admits on B", async () => {
    const { url, tokens } = await team();
    const [a, b] = [await node(url, "node-a"), await node(url, "node-b")];
    const onA = await as(a, tokens["alice"]!);
    const onB = await as(b, tokens["alice"]!);
    const first = await newSession(onA);
    await expect(newSession(onB)).rejects.toMatchObject({
      message: expect.stringContaining(
        "quota users.limits.liveSessions (1 open at once) reached",
      ),
    });
    // Loading on B the session she has open on A is not one more.
    await onB.agent.request("session/load", {
      sessionId: first,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    await onB.agent.request("session/close", { sessionId: first });
    await expect(newSession(onB)).rejects.toMatchObject(
      refusedFor("liveSessions"),
    );
    await onA.agent.request("session/close", { sessionId: first });
    const second = await admittedSoon("liveSessions", () => newSession(onB));
    expect(second).not.toBe(first);
    await expect(newSession(onA)).rejects.toMatchObject(
      refusedFor("liveSessions"),
    );
  });

  it("concurrentTurns: a turn running on A refuses bob's prompt on B in another session", async () => {
    const { url, tokens } = await team();
    const [a, b] = [await node(url, "node-a"), await node(url, "node-b")];
    const gates: (() => void)[] = [];
    const onA = await as(
      a,
      tokens["bob"]!,
      (m, params) =>
        new Promise((resolve) =>
          gates.push(() => resolve(allowOnce(m, params))),
        ),
    );
    const onB = await as(b, tokens["bob"]!);
    const [s1, s2] = [await newSession(onA), await newSession(onB)];
    const ask = { permission: { title: "Edit", kind: "edit" } };
    const turn = onA.agent.request("session/prompt", {
      sessionId: s1,
      prompt: text(steps({ text: "on A " }, ask, { text: "done" })),
    });
    await until(() => gates.length === 1);
    await expect(
      onB.agent.request("session/prompt", { sessionId: s2, prompt: text("x") }),
    ).rejects.toMatchObject({
      message: expect.stringContaining(
        "quota users.limits.concurrentTurns (1 at once) reached",
      ),
    });
    gates[0]!();
    expect(await turn).toMatchObject({ stopReason: "end_turn" });
    expect(
      await admittedSoon("concurrentTurns", () =>
        onB.agent.request("session/prompt", {
          sessionId: s2,
          prompt: text("now"),
        }),
      ),
    ).toMatchObject({ stopReason: "end_turn" });
  });

  it("promptsPerMinute counts carol's prompts on every node", async () => {
    const { url, tokens } = await team();
    const [a, b] = [await node(url, "node-a"), await node(url, "node-b")];
    const onA = await as(a, tokens["carol"]!);
    const onB = await as(b, tokens["carol"]!);
    const [s1, s2] = [await newSession(onA), await newSession(onB)];
    const prompt = (c: HubTestClient, sessionId: string) =>
      c.agent.request("session/prompt", { sessionId, prompt: text("hi") });
    await prompt(onA, s1);
    await prompt(onB, s2);
    const refused = prompt(onA, s1);
    await expect(refused).rejects.toMatchObject({
      message: expect.stringMatching(
        /quota users\.limits\.promptsPerMinute \(2 per minute\) reached: frees up in \d+ s/,
      ),
      data: expect.objectContaining({ retryAfterS: expect.any(Number) }),
    });
    await expect(prompt(onB, s2)).rejects.toMatchObject(
      refusedFor("promptsPerMinute"),
    );
  });

  it("a killed node's holds stop counting once its heartbeat has lapsed", async () => {
    const { url, tokens } = await team();
    const [a, b] = [await node(url, "node-a"), await node(url, "node-b")];
    const onA = await as(a, tokens["dave"]!);
    const onB = await as(b, tokens["dave"]!);
    const s1 = await newSession(onA);
    void onA.agent
      .request("session/prompt", {
        sessionId: s1,
        prompt: text(steps({ text: "started " }, { sleep: 60_000 })),
      })
      .catch(() => undefined);
    await expect(newSession(onB)).rejects.toMatchObject(
      refusedFor("liveSessions"),
    );
    a.child.kill("SIGKILL");
    await a.exited;
    hubs.splice(hubs.indexOf(a), 1);
    // A's open session and running turn no longer count: B opens one and runs a turn in it.
    const s2 = await admittedSoon("liveSessions", () => newSession(onB));
    expect(
      await onB.agent.request("session/prompt", {
        sessionId: s2,
        prompt: text("after"),
      }),
    ).toMatchObject({ stopReason: "end_turn" });
  });
});
