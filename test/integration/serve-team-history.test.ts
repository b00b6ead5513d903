// Who said what on a shared hub (issue 22): a prompt from a known user is recorded with its
// author, relayed live and replayed with `_meta.acphub.author`, and `acphub sessions show`
// (local and --hub) prints it as "alice> …"; a single-user hub keeps its output.
import { afterEach, describe, expect, it } from "vitest";
import {
  allowOnce,
  openSession,
  text,
  until,
  type HubTestClient,
  type Raw,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import {
  joinSession,
  teamFixture,
  type TeamHub,
  TEAM_WORK,
} from "../helpers/team.js";
import { runCli } from "../helpers/cli.js";

const fx = teamFixture();
afterEach(() => fx.cleanup());

const USERS = { alice: "member", bob: "member", vic: "viewer" } as const;

// The authors of the user_message_chunk updates a client got for a session, in order.
function authors(c: HubTestClient, sessionId: string): unknown[] {
  return c
    .updates(sessionId)
    .filter(
      (u) =>
        (u["update"] as Raw["params"])["sessionUpdate"] ===
        "user_message_chunk",
    )
    .map(
      (u) =>
        (u["_meta"] as { acphub?: { author?: unknown } } | undefined)?.acphub
          ?.author,
    );
}

// `user` joins the session and prompts a turn that asks a permission question, and leaves when
// asked: the question goes to the session's other clients.
async function promptAndLeave(team: TeamHub, user: string, sessionId: string) {
  const c: HubTestClient = fx.connect(team, user, "ws", () => {
    c.close();
    return new Promise(() => undefined);
  });
  await joinSession(c, sessionId);
  await c.agent
    .request("session/prompt", {
      sessionId,
      prompt: text(steps({ permission: { title: "Edit notes.md" } })),
    })
    .catch(() => undefined);
}

describe("acphub serve: authors in the history", { timeout: 120_000 }, () => {
  it("a prompt carries its author live, in the replay and in sessions show", async () => {
    const team = await fx.start(USERS);
    const alice = fx.connect(team, "alice", "ws");
    const sessionId = await openSession(alice, TEAM_WORK);
    await alice.agent.request("_acphub/session/share", {
      sessionId,
      user: "bob",
      role: "driver",
    });
    const bob = fx.connect(team, "bob", "http");
    await joinSession(bob, sessionId);
    await alice.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "to alice" })),
    });
    // Live: bob sees alice's prompt, with her name.
    await until(() => authors(bob, sessionId).length > 0);
    expect(authors(bob, sessionId)).toEqual(["alice"]);
    await bob.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "to bob" })),
    });
    // Replayed on load, to anyone who may see it (the serve token's admin here).
    const admin = fx.connect(team, "admin", "ws");
    await joinSession(admin, sessionId);
    expect(authors(admin, sessionId)).toEqual(["alice", "bob"]);
    const local = await runCli(["sessions", "show", sessionId], {
      home: team.home,
    });
    expect(local.code).toBe(0);
    expect(local.stdout).toMatch(/^alice> \{"steps":\[\{"text":"to alice"/m);
    expect(local.stdout).toMatch(/^bob> \{"steps":\[\{"text":"to bob"/m);
    expect(local.stdout).toMatch(/^agent: to bob$/m);
    const remote = await runCli(
      ["sessions", "show", sessionId, "--hub", team.h.url],
      { home: team.home, env: { ACPHUB_TOKEN: team.tokens["bob"]! } },
    );
    expect(remote.stderr).toBe("");
    expect(remote.stdout).toMatch(/^alice> \{"steps"/m);
    expect(remote.stdout).toMatch(/^bob> \{"steps"/m);
    // vic may not see it: exactly like a session that does not exist.
    const hidden = await runCli(
      ["sessions", "show", sessionId, "--hub", team.h.url],
      { home: team.home, env: { ACPHUB_TOKEN: team.tokens["vic"]! } },
    );
    expect(hidden.code).toBe(4);
    expect(hidden.stderr).toContain(`no session "${sessionId}"`);
  });

  it("a permission answer is the driver's, recorded with their name; a viewer is never asked", async () => {
    const team = await fx.start(USERS);
    const alice = fx.connect(team, "alice", "ws", allowOnce);
    const sessionId = await openSession(alice, TEAM_WORK);
    for (const [user, role] of [
      ["bob", "driver"],
      ["vic", "viewer"],
    ])
      await alice.agent.request("_acphub/session/share", {
        sessionId,
        user,
        role,
      });
    const askedVic: string[] = [];
    const vic = fx.connect(team, "vic", "ws", (method) => {
      askedVic.push(method);
      return allowOnce(method, {
        options: [{ optionId: "allow", kind: "allow_once" }],
      });
    });
    await joinSession(vic, sessionId);
    // bob prompts, and goes away when asked: the question goes to the session's other
    // drivers (alice), never to its viewer (vic).
    await promptAndLeave(team, "bob", sessionId);
    await until(() =>
      JSON.stringify(vic.updates(sessionId)).includes("permission granted"),
    );
    expect(askedVic).toEqual([]);
    const audit = await runCli(["audit", "--json"], { home: team.home });
    const answers = (
      JSON.parse(audit.stdout) as {
        user: string;
        action: string;
        sessionId: string;
        detail: Record<string, unknown>;
      }[]
    ).filter((e) => e.action === "permission.answer");
    expect(answers).toMatchObject([
      {
        user: "alice",
        sessionId,
        detail: { title: "Edit notes.md", kind: "allow_once" },
      },
    ]);
    const show = await runCli(["sessions", "show", sessionId], {
      home: team.home,
    });
    expect(show.stdout).toMatch(/^bob> \{"steps"/m);
    expect(show.stdout).toMatch(
      /^who did what \(acphub audit\):\n(.*\n)* {2}\S+ \S+ {2}alice {2}permission\.answer {2}\{.*"Edit notes\.md"/m,
    );
  });

  it("a driver made a viewer is no longer asked, and unshared gets no more updates", async () => {
    const team = await fx.start({ ...USERS, dan: "member" });
    const alice = fx.connect(team, "alice", "ws", allowOnce);
    const sessionId = await openSession(alice, TEAM_WORK);
    const share = (user: string, role: string) =>
      alice.agent.request("_acphub/session/share", { sessionId, user, role });
    await share("bob", "driver");
    await share("dan", "driver");
    const askedDan: string[] = [];
    const dan = fx.connect(team, "dan", "ws", (method, params) => {
      askedDan.push(method);
      return allowOnce(method, params);
    });
    await joinSession(dan, sessionId);
    // While dan is attached, alice makes him a viewer and leaves the session.
    await share("dan", "viewer");
    await alice.agent.request("session/close", { sessionId });
    await promptAndLeave(team, "bob", sessionId);
    // Nobody who may answer is left: the policy refuses; dan was not asked.
    await until(() =>
      /permission (granted|denied)/.test(
        JSON.stringify(dan.updates(sessionId)),
      ),
    );
    expect(askedDan).toEqual([]);
    expect(JSON.stringify(dan.updates(sessionId))).toContain(
      "permission denied",
    );
    await alice.agent.request("_acphub/session/unshare", {
      sessionId,
      user: "dan",
    });
    await alice.agent.request("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
    await alice.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "after the unshare" })),
    });
    const seen = await alice.agent.request<{ updates: unknown[] }>(
      "_acphub/session/replay",
      { sessionId },
    );
    expect(JSON.stringify(seen.updates)).toContain("after the unshare");
    // A round trip on dan's connection: what was sent him before is in by now.
    await dan.agent.request("session/list", {});
    expect(JSON.stringify(dan.updates(sessionId))).not.toContain(
      "after the unshare",
    );
  });

  it("a single-user hub records no author and shows prompts as before", async () => {
    const team = await fx.start({});
    const admin = fx.connect(team, "admin", "ws");
    const sessionId = await openSession(admin, TEAM_WORK);
    await admin.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "solo" })),
    });
    const again = fx.connect(team, "admin", "ws");
    await joinSession(again, sessionId);
    expect(authors(again, sessionId)).toEqual([undefined]);
    const show = await runCli(["sessions", "show", sessionId], {
      home: team.home,
    });
    expect(show.stdout).toMatch(/^user: \{"steps"/m);
  });
});
