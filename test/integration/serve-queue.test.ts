// Issue 37, "prompts while a turn runs": a session/prompt with `_meta.acphub.queue: true` sent
// while the session's turn runs waits for it (recorded `prompt_queued`, shown to every attached
// client, revocable by its author, the owner or an admin), then runs as its own turn and its
// request is answered with that turn's result; FIFO; without the flag the busy refusal stays;
// the line is bounded; a cancel stops only the running turn; a hub restart drops what waited.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { startHub, until, type RunningHub } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { rawClient, type Frame, type RawClient } from "../helpers/raw-ws.js";
import { TEAM_WORK, teamFixture, type TeamHub } from "../helpers/team.js";

const fx = teamFixture();
const open: RawClient[] = [];
const extra: RunningHub[] = [];
afterEach(async () => {
  open.splice(0).forEach((c) => c.close());
  for (const h of extra.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
  await fx.cleanup();
});

const INIT = { protocolVersion: 1, clientCapabilities: {} };

const USERS = { alice: "member", bob: "member", carol: "member" } as const;
const QUEUE = { acphub: { queue: true } };

// A raw client of `user`, initialized.
async function as(acpUrl: string, token: string): Promise<RawClient> {
  const c = await rawClient(acpUrl, token);
  open.push(c);
  expect((await c.call("initialize", INIT))["result"]).toBeDefined();
  return c;
}

// alice's session shared with bob and carol as drivers, each attached, alice's turn waiting on
// the returned gate file.
async function busySession(team: TeamHub) {
  const url = team.h.acpUrl;
  const alice = await as(url, team.tokens["alice"]!);
  const made = await alice.call("session/new", {
    cwd: TEAM_WORK,
    mcpServers: [],
  });
  const { sessionId } = made["result"] as { sessionId: string };
  const others: Record<string, RawClient> = {};
  for (const user of ["bob", "carol"]) {
    await alice.call("_acphub/session/share", {
      sessionId,
      user,
      role: "driver",
    });
    others[user] = await as(url, team.tokens[user]!);
    await others[user].call("session/load", {
      sessionId,
      cwd: TEAM_WORK,
      mcpServers: [],
    });
  }
  const gate = join(tempDir(), "go");
  const turn = alice.call("session/prompt", {
    sessionId,
    prompt: [
      {
        type: "text",
        text: steps({ text: "first " }, { waitFile: gate }, { text: "done" }),
      },
    ],
  });
  await until(() =>
    alice.frames.some((m) => JSON.stringify(m).includes('"first "')),
  );
  return {
    alice,
    bob: others["bob"]!,
    carol: others["carol"]!,
    sessionId,
    gate,
    turn,
  };
}

// Sends a prompt that reports the agent's `text` (and asks to queue when `queue`).
function prompt(c: RawClient, sessionId: string, text: string, queue = true) {
  return c.call("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: steps({ text }) }],
    ...(queue ? { _meta: QUEUE } : {}),
  });
}

// The `_meta.acphub.queued` of each queue notice a client received, in order.
function queuedSeen(c: RawClient, sessionId: string): Frame[] {
  return c
    .updates(sessionId)
    .map(
      (p) =>
        (p["_meta"] as { acphub?: { queued?: Frame } } | undefined)?.acphub
          ?.queued,
    )
    .filter((q): q is Frame => q !== undefined);
}

function dequeuedSeen(c: RawClient, sessionId: string): Frame[] {
  return c
    .updates(sessionId)
    .map(
      (p) =>
        (p["_meta"] as { acphub?: { dequeued?: Frame } } | undefined)?.acphub
          ?.dequeued,
    )
    .filter((q): q is Frame => q !== undefined);
}

// The session's stored events as `sessions show --json` gives them.
async function events(home: string, sessionId: string) {
  const shown = await runCli(["sessions", "show", sessionId, "--json"], {
    home,
  });
  return (
    JSON.parse(shown.stdout) as { events: { kind: string; payload: Frame }[] }
  ).events;
}

// The text of every prompt the agent was given (the ledger's `prompt` events).
function promptsRun(evs: { kind: string; payload: Frame }[]): string[] {
  return evs
    .filter((e) => e.kind === "prompt")
    .map((e) => JSON.stringify(e.payload["prompt"]));
}

describe(
  "acphub serve: prompts queued while a turn runs",
  { timeout: 90_000 },
  () => {
    it("queues, shows every client, runs FIFO after the turn, answers each with its own result", async () => {
      const team = await fx.start(USERS);
      const s = await busySession(team);
      const refused = await prompt(s.bob, s.sessionId, "not queued", false);
      expect(refused["error"]).toMatchObject({
        data: { code: "PROMPT_IN_FLIGHT" },
      });
      const bobs = prompt(s.bob, s.sessionId, "bob-queued");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 1);
      const carols = prompt(s.carol, s.sessionId, "carol-queued");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 2);
      // Every attached client sees both, with who queued them.
      for (const c of [s.alice, s.bob, s.carol]) {
        await until(() => queuedSeen(c, s.sessionId).length === 2);
        expect(queuedSeen(c, s.sessionId).map((q) => q["author"])).toEqual([
          "bob",
          "carol",
        ]);
      }
      // Ledger first: both are recorded as queued while alice's turn still runs.
      const before = await events(team.home, s.sessionId);
      expect(before.filter((e) => e.kind === "prompt_queued")).toHaveLength(2);
      expect(before.some((e) => e.kind === "turn_end")).toBe(false);
      writeFileSync(s.gate, "");
      expect((await s.turn)["result"]).toMatchObject({
        stopReason: "end_turn",
      });
      const [b, c] = [await bobs, await carols];
      expect(b["result"]).toMatchObject({ stopReason: "end_turn" });
      expect(c["result"]).toMatchObject({ stopReason: "end_turn" });
      // Each request was answered after its own turn: its text came before its answer.
      const answeredAt = (cl: RawClient, id: unknown) =>
        cl.frames.findIndex((f) => f["id"] === id && f["method"] === undefined);
      const textAt = (cl: RawClient, t: string) =>
        cl.frames.findIndex(
          (f) =>
            JSON.stringify(f).includes(`"${t}"`) &&
            f["method"] === "session/update" &&
            !JSON.stringify(f).includes("queued"),
        );
      expect(textAt(s.bob, "bob-queued")).toBeLessThan(
        answeredAt(s.bob, b["id"]),
      );
      expect(textAt(s.carol, "carol-queued")).toBeLessThan(
        answeredAt(s.carol, c["id"]),
      );
      const evs = await events(team.home, s.sessionId);
      expect(evs.map((e) => e.kind).filter((k) => k !== "update")).toEqual([
        "prompt",
        "prompt_queued",
        "prompt_queued",
        "turn_end",
        "prompt_dequeued",
        "prompt",
        "turn_end",
        "prompt_dequeued",
        "prompt",
        "turn_end",
      ]);
      const runs = promptsRun(evs);
      expect(runs[1]).toContain("bob-queued");
      expect(runs[2]).toContain("carol-queued");
      expect(
        dequeuedSeen(s.alice, s.sessionId).map((d) => d["reason"]),
      ).toEqual(["started", "started"]);
      // A replay shows the queued prompts in place, and `sessions show` reads them.
      const late = await as(team.h.acpUrl, team.tokens["alice"]!);
      await late.call("session/load", {
        sessionId: s.sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      });
      const kinds = late
        .updates(s.sessionId)
        .map((p) => {
          const own =
            (p["_meta"] as { acphub?: Frame } | undefined)?.acphub ?? {};
          if (own["queued"]) return "queued";
          if (own["dequeued"]) return "dequeued";
          return JSON.stringify(p).includes('"done"') ? "done" : "";
        })
        .filter(Boolean);
      expect(kinds).toEqual([
        "queued",
        "queued",
        "done",
        "dequeued",
        "dequeued",
      ]);
      const text = (
        await runCli(["sessions", "show", s.sessionId], { home: team.home })
      ).stdout;
      expect(text).toMatch(/\[queued q-[0-9a-f-]+ by bob\] .*bob-queued/);
      expect(text).toMatch(/\[queued q-[0-9a-f-]+ started\]/);
    });

    it("revoked before it runs: only by its author, the owner or an admin; answered cancelled; never run", async () => {
      const team = await fx.start(USERS);
      const s = await busySession(team);
      const carols = prompt(s.carol, s.sessionId, "carol-revoked");
      await until(() => queuedSeen(s.bob, s.sessionId).length === 1);
      const queueId = String(queuedSeen(s.bob, s.sessionId)[0]!["queueId"]);
      const byBob = await s.bob.call("_acphub/queue/revoke", {
        sessionId: s.sessionId,
        queueId,
      });
      expect(byBob["error"]).toMatchObject({
        data: { code: "PERMISSION_DENIED" },
      });
      expect(JSON.stringify(byBob["error"])).toContain(
        "only the one who queued",
      );
      const unknown = await s.carol.call("_acphub/queue/revoke", {
        sessionId: s.sessionId,
        queueId: "q-nope",
      });
      expect(JSON.stringify(unknown["error"])).toContain("unknown_queue_id");
      const byCarol = await s.carol.call("_acphub/queue/revoke", {
        sessionId: s.sessionId,
        queueId,
      });
      expect(byCarol["result"]).toEqual({ queueId, revoked: true });
      const answer = await carols;
      expect(answer["result"]).toMatchObject({
        stopReason: "cancelled",
        _meta: {
          acphub: {
            revoked: true,
            queueId,
            dequeued: { reason: "revoked", by: "carol" },
          },
        },
      });
      await until(() => dequeuedSeen(s.alice, s.sessionId).length === 1);
      // The owner revokes bob's; an already started one cannot be revoked.
      const bobs = prompt(s.bob, s.sessionId, "bob-revoked-by-owner");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 2);
      const second = String(queuedSeen(s.alice, s.sessionId)[1]!["queueId"]);
      expect(
        (
          await s.alice.call("_acphub/queue/revoke", {
            sessionId: s.sessionId,
            queueId: second,
          })
        )["result"],
      ).toEqual({ queueId: second, revoked: true });
      expect((await bobs)["result"]).toMatchObject({ stopReason: "cancelled" });
      const runs = prompt(s.bob, s.sessionId, "bob-runs");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 3);
      const third = String(queuedSeen(s.alice, s.sessionId)[2]!["queueId"]);
      writeFileSync(s.gate, "");
      expect((await runs)["result"]).toMatchObject({ stopReason: "end_turn" });
      const late = await s.bob.call("_acphub/queue/revoke", {
        sessionId: s.sessionId,
        queueId: third,
      });
      expect(JSON.stringify(late["error"])).toContain("already_started");
      const evs = await events(team.home, s.sessionId);
      const all = JSON.stringify(promptsRun(evs));
      expect(all).not.toContain("carol-revoked");
      expect(all).not.toContain("bob-revoked-by-owner");
      expect(all).toContain("bob-runs");
      expect(
        evs
          .filter((e) => e.kind === "prompt_dequeued")
          .map((e) => e.payload["reason"]),
      ).toEqual(["revoked", "revoked", "started"]);
    });

    it("session/cancel stops the running turn only: the queued prompt runs next", async () => {
      const team = await fx.start(USERS);
      const s = await busySession(team);
      const bobs = prompt(s.bob, s.sessionId, "after-cancel");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 1);
      s.alice.notify("session/cancel", { sessionId: s.sessionId });
      expect((await s.turn)["result"]).toMatchObject({
        stopReason: "cancelled",
      });
      expect((await bobs)["result"]).toMatchObject({ stopReason: "end_turn" });
      expect(
        JSON.stringify(promptsRun(await events(team.home, s.sessionId))),
      ).toContain("after-cancel");
      expect(existsSync(s.gate)).toBe(false);
    });

    it("the line is bounded per session (serve.maxQueuedPrompts)", async () => {
      const team = await fx.start(USERS, { serve: { maxQueuedPrompts: 1 } });
      const s = await busySession(team);
      const first = prompt(s.bob, s.sessionId, "fits");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 1);
      const over = await prompt(s.carol, s.sessionId, "over");
      expect(over["error"]).toMatchObject({ data: { code: "LIMIT_EXCEEDED" } });
      expect(JSON.stringify(over["error"])).toContain("serve.maxQueuedPrompts");
      writeFileSync(s.gate, "");
      expect((await first)["result"]).toMatchObject({ stopReason: "end_turn" });
      const evs = await events(team.home, s.sessionId);
      expect(evs.filter((e) => e.kind === "prompt_queued")).toHaveLength(1);
    });

    it("a hub restart drops what waited: recorded and shown as dropped, never run later", async () => {
      const team = await fx.start(USERS);
      const s = await busySession(team);
      void prompt(s.bob, s.sessionId, "left-behind");
      await until(() => queuedSeen(s.alice, s.sessionId).length === 1);
      team.h.child.kill("SIGKILL");
      await team.h.exited;
      const h = await startHub(team.home);
      extra.push(h);
      const alice = await as(h.acpUrl, team.tokens["alice"]!);
      await alice.call("session/load", {
        sessionId: s.sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      });
      await until(() => dequeuedSeen(alice, s.sessionId).length === 1);
      expect(dequeuedSeen(alice, s.sessionId)[0]).toMatchObject({
        reason: "dropped",
      });
      const after = await alice.call("session/prompt", {
        sessionId: s.sessionId,
        prompt: [{ type: "text", text: steps({ text: "next" }) }],
      });
      expect(after["result"]).toMatchObject({ stopReason: "end_turn" });
      const evs = await events(team.home, s.sessionId);
      expect(JSON.stringify(promptsRun(evs))).not.toContain("left-behind");
      expect(
        evs
          .filter((e) => e.kind === "prompt_dequeued")
          .map((e) => e.payload["reason"]),
      ).toEqual(["dropped"]);
      const text = (
        await runCli(["sessions", "show", s.sessionId], { home: team.home })
      ).stdout;
      expect(text).toContain("dropped: the hub stopped before it ran");
    });

    it("a disconnect does not revoke it (it runs); the request's own $/cancel_request does", async () => {
      const team = await fx.start(USERS);
      const s = await busySession(team);
      const carol = fx.connect(team, "carol", "ws");
      await carol.agent.request("initialize", INIT);
      await carol.agent.request("session/load", {
        sessionId: s.sessionId,
        cwd: TEAM_WORK,
        mcpServers: [],
      });
      const controller = new AbortController();
      const withdrawn = carol.agent.request<Frame>(
        "session/prompt",
        {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: steps({ text: "carol-withdrawn" }) }],
          _meta: QUEUE,
        },
        { cancellationSignal: controller.signal },
      );
      await until(() => queuedSeen(s.alice, s.sessionId).length === 1);
      void prompt(s.bob, s.sessionId, "bob-gone").catch(() => undefined);
      await until(() => queuedSeen(s.alice, s.sessionId).length === 2);
      s.bob.close();
      controller.abort();
      expect(await withdrawn).toMatchObject({
        stopReason: "cancelled",
        _meta: { acphub: { revoked: true } },
      });
      writeFileSync(s.gate, "");
      await s.turn;
      await until(
        async () =>
          (await events(team.home, s.sessionId)).filter(
            (e) => e.kind === "turn_end",
          ).length === 2,
      );
      const evs = await events(team.home, s.sessionId);
      const all = JSON.stringify(promptsRun(evs));
      expect(all).toContain("bob-gone");
      expect(all).not.toContain("carol-withdrawn");
      expect(
        evs
          .filter((e) => e.kind === "prompt_dequeued")
          .map((e) => e.payload["reason"]),
      ).toEqual(["revoked", "started"]);
    });
    it("a stop drops the line (recorded at once, nothing starts); a re-sent key is not queued twice; a delete revokes", async () => {
      const team = await fx.start(USERS);
      const s = await busySession(team);
      const params = {
        sessionId: s.sessionId,
        prompt: [{ type: "text", text: steps({ text: "stopped-before" }) }],
        _meta: { acphub: { queue: true, idempotencyKey: "k-1" } },
      };
      void s.bob.call("session/prompt", params).catch(() => undefined);
      await until(() => queuedSeen(s.alice, s.sessionId).length === 1);
      const again = await s.bob.call("session/prompt", params);
      expect(JSON.stringify(again["error"])).toContain("already_queued");
      team.h.child.kill("SIGTERM");
      await team.h.exited;
      const evs = await events(team.home, s.sessionId);
      expect(JSON.stringify(promptsRun(evs))).not.toContain("stopped-before");
      expect(
        evs
          .filter((e) => e.kind === "prompt_dequeued")
          .map((e) => e.payload["reason"]),
      ).toEqual(["dropped"]);
      // A delete: the session's queued prompts are revoked, their requests answered.
      const h = await startHub(team.home);
      extra.push(h);
      const alice = await as(h.acpUrl, team.tokens["alice"]!);
      const made = await alice.call("session/new", {
        cwd: TEAM_WORK,
        mcpServers: [],
      });
      const { sessionId } = made["result"] as { sessionId: string };
      const gate = join(tempDir(), "go");
      const turn = alice.call("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: steps({ text: "busy " }, { waitFile: gate }) },
        ],
      });
      await until(() => JSON.stringify(alice.frames).includes('"busy "'));
      const queued = prompt(alice, sessionId, "deleted-before");
      await until(() => queuedSeen(alice, sessionId).length === 1);
      const other = await as(h.acpUrl, team.tokens["alice"]!);
      expect(
        (await other.call("session/delete", { sessionId }))["error"],
      ).toBeUndefined();
      expect((await queued)["result"]).toMatchObject({
        stopReason: "cancelled",
        _meta: { acphub: { revoked: true } },
      });
      writeFileSync(gate, "");
      await turn;
    });
  },
);
