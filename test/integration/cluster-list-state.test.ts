// Issue 38, the cluster follow-ups: a node where no client has a session open lists a turn that
// runs on another node as running (waiting while its question waits) and then idle —
// session/list and `acphub sessions list --hub`; a NEW prompt sent on B while a dead node's
// lease still holds is told at once that the node stopped answering and when the session is
// taken over, and then runs on B; a share made while B's LISTEN connection was down reaches a
// watching client of B once it listens again.
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { mockConfig } from "../helpers/editor.js";
import {
  allowOnce,
  connectClient,
  INIT,
  openSession,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { partition } from "../helpers/pg-partition.js";
import { TEAM_WORK } from "../helpers/team.js";

const cluster = clusterFixture();
const { node, client } = cluster;

type Params = Record<string, unknown>;

// A turn that runs until cancelled.
const LONG = text(steps({ text: "started " }, { sleep: 60_000 }));

// The state session/list gives the session on the client's node.
async function listed(c: HubTestClient, sessionId: string): Promise<unknown> {
  const page = await c.agent.request<{ sessions: Params[] }>(
    "session/list",
    {},
  );
  const entry = page.sessions.find((s) => s["sessionId"] === sessionId);
  return ((entry?.["_meta"] as Params)?.["acphub"] as Params)?.["state"];
}

// The notices (session/update with acphub's notice) a client got, as text.
const noticesOf = (c: HubTestClient, sessionId: string): string =>
  JSON.stringify(
    c
      .updates(sessionId)
      .filter((u) => JSON.stringify(u).includes('"notice"'))
      .map((u) => u["update"]),
  );

describe(
  "the cluster's session list and waits (issue 38)",
  { timeout: 120_000 },
  () => {
    it("B, with no client on the session, lists A's turn as running (session/list, sessions list --hub), waiting while its question waits, then idle", async () => {
      const url = await cluster.database();
      const a = await node(url, "node-a", 10_000, 1000);
      const b = await node(url, "node-b", 10_000, 1000);
      const answers: (() => void)[] = [];
      const onA = client(a.h, (method, params) => {
        return new Promise((resolve) =>
          answers.push(() => resolve(allowOnce(method, params))),
        );
      });
      const sessionId = await openSession(onA, a.home);
      const onB = client(b.h);
      await onB.agent.request("initialize", INIT);
      expect(await listed(onB, sessionId)).toBe("idle");
      const turn = onA.agent.request<Params>("session/prompt", {
        sessionId,
        prompt: LONG,
      });
      await until(() =>
        JSON.stringify(onA.updates(sessionId)).includes("started"),
      );
      expect(await listed(onB, sessionId)).toBe("running");
      // The command line on B says it too (its line and its JSON).
      const env = { ACPHUB_TOKEN: CLUSTER_TOKEN };
      const home = tempDir();
      const text1 = await runCli(["sessions", "list", "--hub", b.h.url], {
        home,
        env,
      });
      expect(text1.code, text1.stderr).toBe(0);
      expect(text1.stdout).toContain(`${sessionId}  running  `);
      const json = await runCli(
        ["sessions", "list", "--hub", b.h.url, "--json"],
        {
          home,
          env,
        },
      );
      expect(JSON.parse(json.stdout)).toEqual([
        expect.objectContaining({
          sessionId,
          _meta: {
            acphub: expect.objectContaining({
              running: true,
              state: "running",
            }),
          },
        }),
      ]);
      // No client of B ever opened the session: nothing here followed it.
      expect(onB.updates(sessionId)).toEqual([]);
      await onA.agent.notify("session/cancel", { sessionId });
      expect(await turn).toMatchObject({ stopReason: "cancelled" });
      await until(async () => (await listed(onB, sessionId)) === "idle");

      // A question of A's turn waits: B lists the session as waiting, then idle once answered.
      const asking = onA.agent.request<Params>("session/prompt", {
        sessionId,
        prompt: text(
          steps(
            { text: "start " },
            { permission: { title: "Edit it", kind: "edit" } },
          ),
        ),
      });
      await until(() => answers.length === 1);
      expect(await listed(onB, sessionId)).toBe("waiting");
      answers[0]!();
      expect(await asking).toMatchObject({ stopReason: "end_turn" });
      await until(async () => (await listed(onB, sessionId)) === "idle");
    });

    it("A killed mid-turn: a new prompt on B is told at once that A stopped answering and when it is taken over, then runs on B", async () => {
      const url = await cluster.database();
      const a = await node(url, "node-a", 6000, 500);
      const b = await node(url, "node-b", 6000, 500);
      const onA = client(a.h);
      const sessionId = await openSession(onA, a.home);
      void onA.agent
        .request("session/prompt", { sessionId, prompt: LONG })
        .catch(() => undefined);
      await until(() =>
        JSON.stringify(onA.updates(sessionId)).includes("started"),
      );
      a.h.child.kill("SIGKILL");
      await a.h.exited;
      cluster.forget(a.h);
      const onB = client(b.h);
      await onB.agent.request("initialize", INIT);
      await onB.agent.request("session/load", {
        sessionId,
        cwd: a.home,
        mcpServers: [],
      });
      // A new prompt: no idempotency key.
      let answered = false;
      const prompt = onB.agent
        .request<Params>("session/prompt", {
          sessionId,
          prompt: text(steps({ text: "ran on B" })),
        })
        .finally(() => (answered = true));
      await until(() =>
        noticesOf(onB, sessionId).includes("stopped answering"),
      );
      // Told while the prompt still waits for the lease to lapse.
      expect(answered).toBe(false);
      expect(noticesOf(onB, sessionId)).toMatch(
        /turn ran on node node-a, which stopped answering \d+ s ago: the turn cannot end there\. The session is taken over when node node-a's lease lapses, at \d\d:\d\d:\d\d UTC \(in about \d+ s\), and its turn is ended as interrupted: this prompt waits for it and then runs here/,
      );
      expect(await prompt).toMatchObject({ stopReason: "end_turn" });
      expect(JSON.stringify(onB.updates(sessionId))).toContain("ran on B");
    });

    it("a share made on A while B's LISTEN connection is down reaches bob's watching client on B once B listens again", async () => {
      const url = await cluster.database();
      const env = { ACPHUB_LEDGER_URL: url, ACPHUB_TOKEN: CLUSTER_TOKEN };
      const home = tempDir();
      mockConfig(home);
      const tokens: Record<string, string> = {};
      for (const name of ["alice", "bob"]) {
        const out = await runCli(["users", "add", name, "--json"], {
          home,
          env,
        });
        expect(out.code, out.stderr).toBe(0);
        tokens[name] = (JSON.parse(out.stdout) as { token: string }).token;
      }
      const cutB = await partition(url);
      cluster.afterNodes(() => cutB.close());
      const team = { users: { roots: { "*": [TEAM_WORK] } } };
      const a = await node(url, "node-a", 60_000, 30_000, [], team);
      const b = await node(cutB.url, "node-b", 60_000, 30_000, [], team);
      const as = (h: typeof a.h, user: string) =>
        connectClient({ acpUrl: h.acpUrl, token: tokens[user]! }, "ws");
      const alice = as(a.h, "alice");
      const bob = as(b.h, "bob");
      try {
        const sessionId = await openSession(alice, TEAM_WORK);
        await bob.agent.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { _meta: { acphub: { watch: true } } },
        });
        const told = () =>
          bob.notifications.some(
            (n) =>
              n.method === "_acphub/sessions/changed" &&
              n.params["sessionId"] === sessionId,
          );
        // B's connections to the database (its LISTEN one too) are cut; the share's notice is lost.
        cutB.cut();
        await alice.agent.request("_acphub/session/share", {
          sessionId,
          user: "bob",
          role: "viewer",
        });
        expect(told()).toBe(false);
        cutB.heal();
        await until(told);
        const page = await bob.agent.request<{ sessions: Params[] }>(
          "session/list",
          {},
        );
        expect(page.sessions.map((s) => s["sessionId"])).toEqual([sessionId]);
      } finally {
        alice.close();
        bob.close();
      }
    });
  },
);
