// Three users on one hub (issue 22, items 3 and 4): alice and bob (members), vic (viewer). No
// session, update, prompt or terminal output of one member reaches the other, and a session
// they may not see is answered exactly like one that does not exist; shared as viewer, a session
// can be listed, loaded and watched, while prompts and settings are refused and change nothing.
import { afterEach, describe, expect, it } from "vitest";
import { INIT, text, until, type HubTestClient } from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { teamFixture, type TeamHub, TEAM_WORK } from "../helpers/team.js";
import { runCli } from "../helpers/cli.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

const USERS = { alice: "member", bob: "member", vic: "viewer" } as const;

const listIds = async (c: HubTestClient) =>
  (
    await c.agent.request<{ sessions: { sessionId: string }[] }>(
      "session/list",
      {},
    )
  ).sessions.map((s) => s.sessionId);

// The error a request gets, with the session id replaced so two can be compared.
async function errorOf(
  run: Promise<unknown>,
  id: string,
): Promise<{ code: number; message: string }> {
  const error = (await run.then(
    () => ({ code: 0, message: "no error" }),
    (e: unknown) => e,
  )) as { code: number; message: string };
  return { code: error.code, message: error.message.replaceAll(id, "ID") };
}

// alice's session, with a prompt and its answer recorded.
async function aliceSession(team: TeamHub, transport: "ws" | "http") {
  const alice = fx.connect(team, "alice", transport);
  await alice.agent.request("initialize", INIT);
  const { sessionId } = await alice.agent.request<{ sessionId: string }>(
    "session/new",
    { cwd: TEAM_WORK, mcpServers: [] },
  );
  await alice.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps({ text: "alice's secret answer" })),
  });
  return { alice, sessionId };
}

describe("acphub serve: a team of three", { timeout: 120_000 }, () => {
  it.each(["ws", "http"] as const)(
    "over %s a member neither sees nor reaches another member's session",
    async (transport) => {
      const team = await fx.start(USERS, {}, ["--modes"]);
      const bob = fx.connect(team, "bob", transport);
      await bob.agent.request("initialize", {
        ...INIT,
        clientCapabilities: { _meta: { acphub: { watch: true } } },
      });
      const { alice, sessionId } = await aliceSession(team, transport);
      expect(await listIds(alice)).toEqual([sessionId]);
      expect(await listIds(bob)).toEqual([]);
      const ghost = "hub-00000000-0000-0000-0000-000000000000";
      const tries: [string, (id: string) => Promise<unknown>][] = [
        [
          "load",
          (id) =>
            bob.agent.request("session/load", {
              sessionId: id,
              cwd: TEAM_WORK,
              mcpServers: [],
            }),
        ],
        [
          "resume",
          (id) =>
            bob.agent.request("session/resume", {
              sessionId: id,
              cwd: TEAM_WORK,
              mcpServers: [],
            }),
        ],
        [
          "prompt",
          (id) =>
            bob.agent.request("session/prompt", {
              sessionId: id,
              prompt: text("hi"),
            }),
        ],
        [
          "fork",
          (id) =>
            bob.agent.request("session/fork", {
              sessionId: id,
              cwd: TEAM_WORK,
              mcpServers: [],
            }),
        ],
        [
          "set_mode",
          (id) =>
            bob.agent.request("session/set_mode", {
              sessionId: id,
              modeId: "code",
            }),
        ],
        [
          "replay",
          (id) =>
            bob.agent.request("_acphub/session/replay", { sessionId: id }),
        ],
        [
          "terminal",
          (id) =>
            bob.agent.request("_acphub/terminal/output", {
              sessionId: id,
              terminalId: "t1",
            }),
        ],
        [
          "share",
          (id) =>
            bob.agent.request("_acphub/session/share", {
              sessionId: id,
              user: "bob",
              role: "driver",
            }),
        ],
        [
          "delete",
          (id) => bob.agent.request("session/delete", { sessionId: id }),
        ],
      ];
      for (const [name, run] of tries) {
        const real = await errorOf(run(sessionId), sessionId);
        const none = await errorOf(run(ghost), ghost);
        expect({ name, ...real }).toEqual({ name, ...none });
        // The SDK's client resolves a "not found" session/delete as done (idempotent).
        if (name !== "delete")
          expect({ name, code: real.code }).not.toEqual({ name, code: 0 });
      }
      await bob.agent.notify("session/cancel", { sessionId });
      // Nothing of alice's session reached bob, and her session is as she left it.
      expect(JSON.stringify(bob.notifications)).not.toContain(sessionId);
      expect(JSON.stringify(bob.notifications)).not.toContain("secret");
      expect(await listIds(alice)).toEqual([sessionId]);
    },
  );

  it("a session shared as viewer is listed, loaded and watched; prompts and settings are refused and change nothing", async () => {
    const team = await fx.start(USERS, {}, ["--modes"]);
    const { alice, sessionId } = await aliceSession(team, "ws");
    expect(
      await alice.agent.request("_acphub/session/share", {
        sessionId,
        user: "vic",
      }),
    ).toEqual({ sessionId, user: "vic", role: "viewer" });
    const vic = fx.connect(team, "vic", "http");
    await vic.agent.request("initialize", INIT);
    expect(await listIds(vic)).toEqual([sessionId]);
    await vic.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    expect(JSON.stringify(vic.updates(sessionId))).toContain(
      "alice's secret answer",
    );
    const before = await vic.agent.request<{ lastSeq: number }>(
      "_acphub/session/replay",
      { sessionId },
    );
    const refused = [
      vic.agent.request("session/prompt", {
        sessionId,
        prompt: text("from vic"),
      }),
      vic.agent.request("session/set_mode", { sessionId, modeId: "code" }),
      vic.agent.request("session/new", { cwd: TEAM_WORK, mcpServers: [] }),
      vic.agent.request("session/delete", { sessionId }),
      vic.agent.request("_acphub/session/share", {
        sessionId,
        user: "vic",
        role: "driver",
      }),
    ];
    for (const r of refused)
      await expect(r).rejects.toMatchObject({ code: -32001 });
    await vic.agent.notify("session/cancel", { sessionId });
    const after = await vic.agent.request<{ lastSeq: number }>(
      "_acphub/session/replay",
      { sessionId },
    );
    expect(after.lastSeq).toBe(before.lastSeq);
    // Shared as driver, a member may prompt it.
    await alice.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const bob = fx.connect(team, "bob", "ws");
    await bob.agent.request("initialize", INIT);
    await bob.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    await bob.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "bob drove" })),
    });
    expect(
      await alice.agent.request<{ grants: unknown[] }>(
        "_acphub/session/grants",
        { sessionId },
      ),
    ).toEqual({
      grants: [
        { sessionId, user: "alice", role: "owner" },
        { sessionId, user: "bob", role: "driver" },
        { sessionId, user: "vic", role: "viewer" },
      ],
    });
    // Unshared, the session is gone for bob as if it never existed.
    await alice.agent.request("_acphub/session/unshare", {
      sessionId,
      user: "bob",
    });
    expect(await listIds(bob)).toEqual([]);
  });

  it("acphub sessions share and unshare change what a running hub lets a user see", async () => {
    const team = await fx.start(USERS);
    const { sessionId } = await aliceSession(team, "ws");
    const bob = fx.connect(team, "bob", "ws");
    await bob.agent.request("initialize", INIT);
    expect(await listIds(bob)).toEqual([]);
    const shared = await runCli(
      [
        "sessions",
        "share",
        sessionId,
        "--with",
        "bob",
        "--role",
        "driver",
        "--json",
      ],
      { home: team.home },
    );
    expect(JSON.parse(shared.stdout)).toEqual({
      sessionId,
      user: "bob",
      role: "driver",
    });
    expect(await listIds(bob)).toEqual([sessionId]);
    const bad = await runCli(
      ["sessions", "share", sessionId, "--with", "zed"],
      { home: team.home },
    );
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'acphub: no user named "zed"\n',
    ]);
    expect(
      (
        await runCli(["sessions", "unshare", sessionId, "--with", "bob"], {
          home: team.home,
        })
      ).code,
    ).toBe(0);
    expect(await listIds(bob)).toEqual([]);
  });

  it("acphub audit lists who prompted, shared and changed settings; a refused prompt is not there", async () => {
    const team = await fx.start(USERS, {}, ["--modes"]);
    const { alice, sessionId } = await aliceSession(team, "ws");
    await alice.agent.request("session/set_mode", {
      sessionId,
      modeId: "code",
    });
    await alice.agent.request("_acphub/session/share", {
      sessionId,
      user: "vic",
    });
    const vic = fx.connect(team, "vic", "ws");
    await vic.agent.request("initialize", INIT);
    await vic.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    await expect(
      vic.agent.request("session/prompt", {
        sessionId,
        prompt: text("from vic"),
      }),
    ).rejects.toMatchObject({ code: -32001 });
    const audit = await runCli(["audit", "--json", "--since", "1h"], {
      home: team.home,
    });
    const entries = JSON.parse(audit.stdout) as {
      user: string;
      action: string;
      sessionId: string | null;
    }[];
    expect(
      entries
        .filter((e) => e.sessionId === sessionId)
        .map((e) => [e.user, e.action]),
    ).toEqual([
      ["alice", "prompt"],
      ["alice", "session/set_mode"],
      ["alice", "session.share"],
    ]);
    const mine = await runCli(["audit", "--user", "vic", "--json"], {
      home: team.home,
    });
    expect(JSON.parse(mine.stdout)).toEqual([]);
    const bad = await runCli(["audit", "--since", "yesterday-ish"], {
      home: team.home,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since "yesterday-ish": give a duration');
  });

  it("a prompt over a quota is refused naming the limit, records nothing, and is admitted once the quota frees up", async () => {
    const team = await fx.start(USERS, {
      users: { limits: { concurrentTurns: 1, promptBytes: 2000 } },
    });
    const alice = fx.connect(team, "alice", "ws");
    await alice.agent.request("initialize", INIT);
    const open = async () =>
      (
        await alice.agent.request<{ sessionId: string }>("session/new", {
          cwd: TEAM_WORK,
          mcpServers: [],
        })
      ).sessionId;
    const [first, second] = [await open(), await open()];
    const slow = alice.agent.request("session/prompt", {
      sessionId: first,
      prompt: text(
        steps({ text: "working" }, { sleep: 1500 }, { text: "done" }),
      ),
    });
    await until(() => alice.updates(first).length > 0);
    const seqBefore = (
      await alice.agent.request<{ lastSeq: number }>("_acphub/session/replay", {
        sessionId: second,
      })
    ).lastSeq;
    await expect(
      alice.agent.request("session/prompt", {
        sessionId: second,
        prompt: text("hi"),
      }),
    ).rejects.toMatchObject({
      message: expect.stringContaining(
        "quota users.limits.concurrentTurns (1 at once) reached",
      ),
    });
    await expect(
      alice.agent.request("session/prompt", {
        sessionId: second,
        prompt: text("x".repeat(3000)),
      }),
    ).rejects.toMatchObject({
      message: expect.stringContaining("promptBytes (2000 bytes"),
    });
    expect(
      (
        await alice.agent.request<{ lastSeq: number }>(
          "_acphub/session/replay",
          { sessionId: second },
        )
      ).lastSeq,
    ).toBe(seqBefore);
    await slow;
    await alice.agent.request("session/prompt", {
      sessionId: second,
      prompt: text(steps({ text: "now" })),
    });
    // The serve token's holder (admin) is not limited.
    const admin = fx.connect(team, "admin", "ws");
    await admin.agent.request("initialize", INIT);
    await admin.agent.request("session/load", {
      sessionId: first,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    await admin.agent.request("session/prompt", {
      sessionId: first,
      prompt: text("x".repeat(3000)),
    });
  });
});
