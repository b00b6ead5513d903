// Issue 38, the cluster in the page: a node that does not run a session's turn tells its clients
// the truth about it — running while it runs elsewhere (the replay's `running`, session/list,
// `_acphub/session/state`, also for a client that attached mid-turn), waiting while a question
// waits on another node; after the runner died, which node stopped answering and when the
// session is taken over (not "wait for it to end"), a takeover at the lease's expiry with no
// prompt needed, and the dead turn's unfinished tool call ended as interrupted, live and in
// replay.
import { describe, expect, it } from "vitest";
import {
  allowOnce,
  INIT,
  openSession,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";
import { clusterFixture } from "../helpers/cluster.js";
import { partition } from "../helpers/pg-partition.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
const { node, client } = cluster;

const WATCH = {
  protocolVersion: 1,
  clientCapabilities: { _meta: { acphub: { watch: true } } },
};

type Params = Record<string, unknown>;

// The `_acphub/...` notifications a client got, of one method.
const notes = (c: HubTestClient, method: string): Params[] =>
  c.notifications
    .filter((n) => n.method === `_acphub/${method}`)
    .map((n) => n.params);

// A prompt that starts a tool call and then sleeps (a turn that runs until cancelled).
const LONG = text(
  steps(
    { text: "started " },
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Edit it",
        status: "in_progress",
      },
    },
    { sleep: 60_000 },
  ),
);

// A prompt whose turn asks one permission question, then says "after".
const ASKS = text(
  steps({ permission: { title: "Edit it", kind: "edit" } }, { text: "after" }),
);

// A watching client of `h` that loads the session.
async function watcher(
  h: Parameters<typeof client>[0],
  sessionId: string,
  cwd: string,
  onRequest?: Parameters<typeof client>[1],
): Promise<HubTestClient> {
  const c = client(h, onRequest);
  await c.agent.request("initialize", WATCH);
  await c.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
  return c;
}

// A session on A whose permission questions wait in `answers` (each call answers one: allow),
// and a watching client of B, whose node reaches the database through a proxy that can lose
// notifications (heartbeats `bHeartbeatMs` apart): what B's client is asked and told withdrawn.
async function questionsAcross(bHeartbeatMs: number) {
  const url = await cluster.database();
  const cut = await partition(url);
  cluster.afterNodes(() => cut.close());
  const a = await node(url, "node-a", 60_000, 30_000);
  const b = await node(cut.url, "node-b", 60_000, bHeartbeatMs);
  const answers: (() => void)[] = [];
  const onA = client(a.h, (method, params) => {
    return new Promise((resolve) =>
      answers.push(() => resolve(allowOnce(method, params))),
    );
  });
  const sessionId = await openSession(onA, a.home);
  const asked: string[] = [];
  const cancelled: string[] = [];
  const onB = await watcher(b.h, sessionId, a.home, (method, _p, signal) => {
    asked.push(method);
    return new Promise((_resolve, reject) =>
      signal.addEventListener("abort", () => {
        cancelled.push(method);
        reject(new Error("cancelled"));
      }),
    );
  });
  return { cut, onA, onB, sessionId, answers, asked, cancelled };
}

// A's turn "first ", then (after `between`) a turn whose question waits, with B hearing the
// session's events only by its reads: once B's client has the first turn and `settleMs` passed,
// it was asked the question once and never told it was withdrawn (`check` then looks further);
// A's client answers, and B's is told the question is over. `hold`, if given, runs before the
// first turn and what it resolves with once `between` was called: B, whose reads are made only
// when the session grew, must not have read the first turn before `between` can catch a read.
async function nextTurnAskedOnce(
  q: Awaited<ReturnType<typeof questionsAcross>>,
  settleMs: number,
  between: () => Promise<void>,
  check: () => void = () => undefined,
  hold?: () => Promise<() => void>,
): Promise<void> {
  const { cut, onA, onB, sessionId, answers, asked, cancelled } = q;
  cut.dropNotifications((channel) => channel === "acphub_events");
  const held = await hold?.();
  await onA.agent.request("session/prompt", {
    sessionId,
    prompt: text(steps({ text: "first " })),
  });
  const caught = between();
  held?.();
  await caught;
  const second = onA.agent.request<Params>("session/prompt", {
    sessionId,
    prompt: ASKS,
  });
  await until(() => answers.length === 1 && asked.length === 1);
  const texts = () => JSON.stringify(onB.updates(sessionId));
  await until(() => texts().includes("first "));
  await new Promise((r) => setTimeout(r, settleMs));
  expect({ asked, cancelled }).toEqual({
    asked: ["session/request_permission"],
    cancelled: [],
  });
  check();
  answers[0]!();
  expect(await second).toMatchObject({ stopReason: "end_turn" });
  await until(() => cancelled.length === 1);
}

describe(
  "a turn on another node, seen from this one",
  { timeout: 120_000 },
  () => {
    it("a client of B that attached mid-turn learns the turn on A runs (replay, session/list, session/state), its cancel ends it on A, and B says it ended", async () => {
      const url = await cluster.database();
      const a = await node(url, "node-a", 10_000, 1000);
      const b = await node(url, "node-b", 10_000, 1000);
      const onA = client(a.h);
      const sessionId = await openSession(onA, a.home);
      const turn = onA.agent.request<Params>("session/prompt", {
        sessionId,
        prompt: LONG,
      });
      await until(() =>
        JSON.stringify(onA.updates(sessionId)).includes("Edit it"),
      );
      const onB = await watcher(b.h, sessionId, a.home);
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === true),
      );
      expect(notes(onB, "session/state")).toEqual([
        { sessionId, running: true },
      ]);
      const replay = await onB.agent.request<Params>("_acphub/session/replay", {
        sessionId,
        afterSeq: Number.MAX_SAFE_INTEGER,
      });
      expect(replay["running"]).toBe(true);
      const list = await onB.agent.request<{ sessions: Params[] }>(
        "session/list",
        {},
      );
      expect(list.sessions[0]!["_meta"]).toMatchObject({
        acphub: { running: true, state: "running" },
      });
      // Stop turn on B: carried to A, whose turn ends cancelled; B hears the end.
      await onB.agent.notify("session/cancel", { sessionId });
      expect(await turn).toMatchObject({ stopReason: "cancelled" });
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === false),
      );
      expect(notes(onB, "session/state").at(-1)).toEqual({
        sessionId,
        running: false,
        stopReason: "cancelled",
      });
      const after = await onB.agent.request<Params>("_acphub/session/replay", {
        sessionId,
        afterSeq: Number.MAX_SAFE_INTEGER,
      });
      expect(after["running"]).toBe(false);
    });

    it("while a question of A's turn waits, B's watchers are told the session waits for an answer, and then that it runs again", async () => {
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
      // B's client may answer, but is slow: it never does.
      const onB = await watcher(
        b.h,
        sessionId,
        a.home,
        () => new Promise(() => undefined),
      );
      const turn = onA.agent.request<Params>("session/prompt", {
        sessionId,
        prompt: text(
          steps(
            { text: "start " },
            { permission: { title: "Edit it", kind: "edit" } },
            { text: "after" },
          ),
        ),
      });
      await until(() => answers.length === 1);
      await until(() =>
        notes(onB, "sessions/changed").some((p) => p["state"] === "waiting"),
      );
      const list = await onB.agent.request<{ sessions: Params[] }>(
        "session/list",
        {},
      );
      expect(list.sessions[0]!["_meta"]).toMatchObject({
        acphub: { running: true, state: "waiting" },
      });
      answers[0]!();
      expect(await turn).toMatchObject({ stopReason: "end_turn" });
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === false),
      );
      const states = notes(onB, "sessions/changed").map((p) => p["state"]);
      expect(states.slice(states.indexOf("waiting"))).toContain("running");
      expect(states.at(-1)).toBe("idle");
    });

    it("B's session list says what B's following client was told: idle once A's turn ended (told once), though A's lease still said busy", async () => {
      const url = await cluster.database();
      const a = await node(url, "node-a", 10_000, 1000);
      const b = await node(url, "node-b", 10_000, 200);
      const onA = client(a.h);
      const sessionId = await openSession(onA, a.home);
      const onB = await watcher(b.h, sessionId, a.home);
      const turn = onA.agent.request<Params>("session/prompt", {
        sessionId,
        prompt: text(steps({ text: "done" })),
      });
      expect(await turn).toMatchObject({ stopReason: "end_turn" });
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === false),
      );
      // B's heartbeats read the session again (a lost notification's catch-up): its end is
      // not told again.
      await new Promise((r) => setTimeout(r, 1000));
      expect(
        notes(onB, "session/state").filter((p) => p["running"] === false),
      ).toHaveLength(1);
      // The list's state came first: a page showing the end from the state note shows idle.
      const told = onB.notifications;
      const end = told.findIndex(
        (n) =>
          n.method === "_acphub/session/state" && n.params["running"] === false,
      );
      expect(told[end - 1]).toMatchObject({
        method: "_acphub/sessions/changed",
        params: { sessionId, state: "idle" },
      });
      // A clears its lease's busy mark after the turn's end: as if it had not yet.
      const marked = await sql(
        url,
        "UPDATE acphub_leases SET busy = TRUE WHERE session_id = $1 RETURNING session_id",
        [sessionId],
      );
      expect(marked).toHaveLength(1);
      const list = await onB.agent.request<{ sessions: Params[] }>(
        "session/list",
        {},
      );
      expect(list.sessions[0]!["_meta"]).toMatchObject({
        acphub: { running: false, state: "idle" },
      });
    });

    it("a question answered on A whose word B never hears: A's turn ending ends it on B (idle, not waiting; B's client's question cancelled)", async () => {
      // Heartbeats far apart: B's reads of the open questions do not make up for the lost word.
      const { cut, onA, onB, sessionId, answers, cancelled } =
        await questionsAcross(30_000);
      // B hears questions asked, never their answers or withdrawals.
      cut.dropNotifications(
        (channel, payload) =>
          channel === "acphub_questions" && !payload.includes('"ask"'),
      );
      const turn = onA.agent.request<Params>("session/prompt", {
        sessionId,
        prompt: ASKS,
      });
      await until(() => answers.length === 1);
      await until(() =>
        notes(onB, "sessions/changed").some((p) => p["state"] === "waiting"),
      );
      answers[0]!();
      expect(await turn).toMatchObject({ stopReason: "end_turn" });
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === false),
      );
      expect(notes(onB, "sessions/changed").at(-1)).toMatchObject({
        running: false,
        state: "idle",
      });
      await until(() => cancelled.length === 1);
    });

    it("a question of A's next turn, shown on B before B's feed read the end of the turn before: B's client is asked once and not told it was withdrawn", async () => {
      // B reads the session's events at its heartbeats only (1.5 s apart); questions it hears.
      const q = await questionsAcross(1500);
      // B's feed reads the first turn, its end and the second's start; two heartbeats more.
      await nextTurnAskedOnce(
        q,
        3500,
        async () => undefined,
        () =>
          expect(notes(q.onB, "sessions/changed").at(-1)).toMatchObject({
            state: "waiting",
          }),
      );
    });

    it("a question of A's next turn, shown on B while B's read of the turn before's end was under way: it stays asked on B", async () => {
      const q = await questionsAcross(300);
      // B's next read of the session holds the first turn's end, not the second's prompt; its
      // answer comes 2 s late, after the second turn's question was shown on B. (Until then B's
      // look at what grew is held: a read of the first turn made before would leave none.)
      await nextTurnAskedOnce(
        q,
        1000,
        () => q.cut.delayReply("AS payload, at FROM acphub_events", 2000),
        undefined,
        () => q.cut.holdReply("next_seq - 1 AS last FROM acphub_sessions"),
      );
    });

    it("A killed mid-turn: B says A stopped answering and when the session is taken over (a re-sent prompt, a cancel), takes it over at the lease's expiry with no prompt, and the unfinished tool call ends as interrupted, live and in replay", async () => {
      const url = await cluster.database();
      const a = await node(url, "node-a", 6000, 500);
      const b = await node(url, "node-b", 6000, 500);
      const onA = client(a.h);
      const sessionId = await openSession(onA, a.home);
      const params = {
        sessionId,
        prompt: LONG,
        _meta: { acphub: { idempotencyKey: "turn-1" } },
      };
      // B's client is there before the turn begins (it saw it start without this fix too).
      const onB = await watcher(b.h, sessionId, a.home);
      void onA.agent.request("session/prompt", params).catch(() => undefined);
      await until(() =>
        JSON.stringify(onA.updates(sessionId)).includes("Edit it"),
      );
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === true),
      );
      // The tool call is in the ledger (B's client had it from there) before A dies.
      await until(() =>
        onB
          .updates(sessionId)
          .some(
            (u) => (u["update"] as Params)["sessionUpdate"] === "tool_call",
          ),
      );
      a.h.child.kill("SIGKILL");
      await a.h.exited;
      cluster.forget(a.h);
      // The re-sent prompt (a shim's, with its key): refused until the takeover, saying why.
      let refusal: { message?: string; data?: Params } | undefined;
      for (
        let i = 0;
        i < 200 && !refusal?.message?.includes("stopped answering");
        i++
      ) {
        try {
          await onB.agent.request("session/prompt", params);
          break;
        } catch (error) {
          refusal = error as typeof refusal;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      expect(refusal?.message).toMatch(
        /turn ran on node node-a, which stopped answering \d+ s ago: the turn cannot end there\. The session is taken over when node node-a's lease lapses, at \d\d:\d\d:\d\d UTC \(in about \d+ s\), and its turn is ended as interrupted: send the prompt again then/,
      );
      expect(refusal?.data).toMatchObject({
        code: "PROMPT_IN_FLIGHT",
        retryable: true,
        node: "node-a",
        takeoverAt: expect.stringMatching(/^\d{4}-/),
      });
      await onB.agent.notify("session/cancel", { sessionId });
      await until(() =>
        JSON.stringify(onB.updates(sessionId)).includes(
          "this cancel cannot reach",
        ),
      );
      // Nobody prompts again: B takes the session over once A's lease lapsed.
      await until(() =>
        notes(onB, "session/state").some((p) => p["running"] === false),
      );
      expect(notes(onB, "session/state").at(-1)).toEqual({
        sessionId,
        running: false,
        stopReason: "cancelled",
        interrupted: "outcome_unknown",
        node: "node-a",
      });
      const ended = {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "failed",
        _meta: { acphub: { interrupted: "outcome_unknown" } },
      };
      expect(onB.updates(sessionId).map((u) => u["update"])).toContainEqual(
        ended,
      );
      // A client opening it afterwards replays the same.
      const late = client(b.h);
      await late.agent.request("initialize", INIT);
      await late.agent.request("session/load", {
        sessionId,
        cwd: a.home,
        mcpServers: [],
      });
      const replayed = late.updates(sessionId).map((u) => u["update"]);
      expect(replayed).toContainEqual(ended);
    });
  },
);
