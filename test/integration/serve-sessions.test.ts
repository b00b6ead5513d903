// Many clients, one session, through a real `acphub serve`: replay after a cursor, permission
// routing when the prompting client has gone, cancel from another client, the busy error,
// idempotent re-sends, and what a disconnection does to a running turn.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import {
  allowOnce,
  hubFixture,
  INIT,
  openSession,
  seqOf,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

const said = (c: HubTestClient, sessionId: string) =>
  JSON.stringify(c.updates(sessionId));

interface Shown {
  events: { kind: string; payload: Record<string, unknown> }[];
}

// The session's ledger events, read by the real CLI (a second reader of the ledger).
async function ledgerEvents(home: string, sessionId: string) {
  const shown = await runCli(["sessions", "show", sessionId, "--json"], {
    home,
  });
  return (JSON.parse(shown.stdout) as Shown).events;
}

// Waits until the session's turn has ended in the ledger; its turn_end payload.
async function turnEnd(home: string, sessionId: string) {
  for (;;) {
    const ends = (await ledgerEvents(home, sessionId)).filter(
      (e) => e.kind === "turn_end",
    );
    if (ends.length > 0) return ends.at(-1)!.payload;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function load(c: HubTestClient, sessionId: string, cwd: string) {
  await c.agent.request("initialize", INIT);
  await c.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
}

describe("acphub serve: sessions shared by connections", () => {
  it("_acphub/session/replay returns exactly what came after a cursor", async () => {
    const { h, home } = await fx.start();
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    await c.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ text: "one " }, { text: "two " }, { text: "three" }),
      ),
    });
    const seqs = c.updates(sessionId).map(seqOf);
    const cursor = seqs[1]!;
    const replay = await c.agent.request<{
      updates: Record<string, unknown>[];
      lastSeq: number;
      running: boolean;
    }>("_acphub/session/replay", { sessionId, afterSeq: cursor });
    expect(replay.updates.map(seqOf)).toEqual(seqs.filter((s) => s > cursor));
    expect(JSON.stringify(replay.updates)).toContain("three");
    expect(JSON.stringify(replay.updates)).not.toContain("two ");
    expect(replay.running).toBe(false);
    expect(replay.lastSeq).toBeGreaterThanOrEqual(seqs.at(-1)!);
  });

  it("a permission goes to the other attached clients when the prompter left: first answer wins, the rest are cancelled", async () => {
    const { h, home } = await fx.start();
    const prompter = fx.connect(h, "ws");
    const sessionId = await openSession(prompter, home);
    // The agent asks only once the prompter is gone (a sleep here lost the race under load).
    const go = join(tempDir(), "go");
    void prompter.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(
          steps(
            { text: "start" },
            { waitFile: go },
            { permission: { title: "Edit it", kind: "edit" } },
          ),
        ),
      })
      .catch(() => undefined);
    await until(() => prompter.updates(sessionId).length > 0);
    const cancelled: string[] = [];
    const fast = fx.connect(h, "ws", allowOnce);
    const slow = fx.connect(h, "http", (_m, _p, signal) => {
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => {
          cancelled.push("slow");
          reject(new Error("cancelled"));
        }),
      );
    });
    await load(fast, sessionId, home);
    await load(slow, sessionId, home);
    prompter.close();
    await until(async () => {
      const res = await fetch(`${h.url}/metrics`, {
        headers: { Authorization: `Bearer ${h.token}` },
      });
      return /^acphub_connections 2$/m.test(await res.text());
    });
    writeFileSync(go, "");
    await until(() => said(fast, sessionId).includes("permission granted"));
    await until(() => cancelled.length === 1);
    await until(() => said(slow, sessionId).includes("permission granted"));
  });

  it("with nobody attached the policy decides (ask → refused) after serve.answerGraceMs, never an automatic allow", async () => {
    const { h, home } = await fx.start({ answerGraceMs: 300 });
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    void c.agent
      .request("session/prompt", {
        sessionId,
        prompt: text(
          steps(
            { text: "start" },
            { sleep: 800 },
            {
              permission: { title: "Edit it", kind: "edit" },
              onReject: "continue",
            },
            { text: "after" },
          ),
        ),
      })
      .catch(() => undefined);
    await until(() => c.updates(sessionId).length > 0);
    c.close();
    expect(await turnEnd(home, sessionId)).toEqual({ stopReason: "end_turn" });
    const events = await ledgerEvents(home, sessionId);
    const permission = events.find((e) => e.kind === "permission")!;
    expect(JSON.stringify(permission.payload["outcome"])).toMatch(/reject/);
    const recorded = JSON.stringify(events.filter((e) => e.kind === "update"));
    expect(recorded).toContain("after");
    expect(recorded).not.toContain("permission granted");
  });

  it("cancel from another attached client ends the turn; a prompt meanwhile gets the busy error", async () => {
    const { h, home } = await fx.start();
    const a = fx.connect(h, "ws");
    const sessionId = await openSession(a, home);
    const turn = a.agent.request<{ stopReason: string }>("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "working" }, { sleep: 20_000 })),
    });
    await until(() => a.updates(sessionId).length > 0);
    const b = fx.connect(h, "http");
    await load(b, sessionId, home);
    const busy = await b.agent
      .request("session/prompt", { sessionId, prompt: text("me too") })
      .catch((e: { code: number; data?: { code?: string } }) => e);
    expect(busy).toMatchObject({
      code: -32602,
      data: { code: "PROMPT_IN_FLIGHT" },
    });
    await b.agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
  });

  it("a prompt re-sent with the same idempotency key is not run again: the recorded turn is returned", async () => {
    const { h, home } = await fx.start();
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    const prompt = {
      sessionId,
      prompt: text(steps({ text: "ran once" }, { stop: "max_tokens" })),
      _meta: { acphub: { idempotencyKey: "k-1" } },
    };
    const first = await c.agent.request<{ stopReason: string }>(
      "session/prompt",
      prompt,
    );
    const again = await c.agent.request<{ stopReason: string; _meta: unknown }>(
      "session/prompt",
      prompt,
    );
    expect(first.stopReason).toBe("max_tokens");
    expect(again.stopReason).toBe("max_tokens");
    expect(again._meta).toMatchObject({ acphub: { replayed: true } });
    const replay = await c.agent.request<{ updates: unknown[] }>(
      "_acphub/session/replay",
      { sessionId, afterSeq: 0 },
    );
    const agentSaid = replay.updates.filter(
      (u) =>
        (u as { update: { sessionUpdate: string } }).update.sessionUpdate ===
        "agent_message_chunk",
    );
    expect(JSON.stringify(agentSaid).split("ran once").length - 1).toBe(1);
    const prompts = (await ledgerEvents(home, sessionId)).filter(
      (e) => e.kind === "prompt",
    );
    expect(prompts).toHaveLength(1);
  });

  // A client starts a turn (begun, a pause, finished), then disconnects once it has begun.
  async function leaveMidTurn(serve: Record<string, unknown>, pauseMs: number) {
    const { h, home } = await fx.start(serve);
    const c = fx.connect(h, "ws");
    const sessionId = await openSession(c, home);
    const scenario = steps(
      { text: "begun" },
      { sleep: pauseMs },
      { text: "finished" },
    );
    void c.agent
      .request("session/prompt", { sessionId, prompt: text(scenario) })
      .catch(() => undefined);
    await until(() => c.updates(sessionId).length > 0);
    c.close();
    return { h, home, sessionId };
  }

  it("a client that disconnects mid-turn does not cancel it (serve.cancelOnDisconnect false)", async () => {
    const { h, home, sessionId } = await leaveMidTurn({}, 600);
    expect(await turnEnd(home, sessionId)).toEqual({ stopReason: "end_turn" });
    const later = fx.connect(h, "ws");
    await load(later, sessionId, home);
    expect(said(later, sessionId)).toContain("finished");
  });

  it("with serve.cancelOnDisconnect the turn is cancelled when its client goes", async () => {
    const { home, sessionId } = await leaveMidTurn(
      { cancelOnDisconnect: true },
      20_000,
    );
    expect(await turnEnd(home, sessionId)).toEqual({ stopReason: "cancelled" });
  });
});
