// Issue 37, queued prompts in a cluster: the line lives on the node that runs the turn. A prompt
// queued on A while A's turn runs is shown to a client on B (through the ledger's feed), runs on
// A after the turn — the lease stays A's between them, so no other node takes the session and the
// agent is not restored — and a revoke sent to B is carried to A. A queued prompt sent to B is carried
// to A, the runner, and waits in A's line like the others.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INIT, openSession, text, until } from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";
import { clusterFixture } from "../helpers/cluster.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
const { node, client } = cluster;
type Meta = { acphub?: Record<string, { queueId?: string; reason?: string }> };

// The kinds of the session's events, read from the database.
async function kinds(url: string, sessionId: string): Promise<string[]> {
  const rows = await sql<{ kind: string }>(
    url,
    "SELECT kind FROM acphub_events WHERE session_id = $1 ORDER BY seq",
    [sessionId],
  );
  return rows.map((r) => r.kind);
}

describe("queued prompts in a cluster", () => {
  it("queued on A, shown on B, run on A after the turn; revoked from B (carried to A); B's queue:true is carried to A and queued there", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    const load = { sessionId, cwd: a.home, mcpServers: [] };
    const other = client(a.h);
    await other.agent.request("initialize", INIT);
    await other.agent.request("session/load", load);
    const onB = client(b.h);
    await onB.agent.request("initialize", INIT);
    await onB.agent.request("session/load", load);
    const gate = join(tempDir(), "go");
    const turn = onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "first " }, { waitFile: gate })),
    });
    await until(() =>
      JSON.stringify(onB.updates(sessionId)).includes("first "),
    );
    const queue = { acphub: { queue: true } };
    const queued = other.agent.request<Record<string, unknown>>(
      "session/prompt",
      { sessionId, prompt: text(steps({ text: "queued-on-a" })), _meta: queue },
    );
    const revoked = other.agent.request<Record<string, unknown>>(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps({ text: "revoked-on-a" })),
        _meta: queue,
      },
    );
    const seen = (kind: string) =>
      onB
        .updates(sessionId)
        .map((u) => (u["_meta"] as Meta | undefined)?.acphub?.[kind])
        .filter((q) => q !== undefined);
    await until(() => seen("queued").length === 2);
    const fromB = onB.agent.request<Record<string, unknown>>("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "queued-on-b" })),
      _meta: queue,
    });
    await until(() => seen("queued").length === 3);
    // The two prompts from A's client were sent at once: the line's order is theirs of arrival.
    const second = seen("queued").find((q) =>
      JSON.stringify(q).includes("revoked-on-a"),
    )!.queueId!;
    // Revoked from B: carried to A, whose line holds it.
    expect(
      await onB.agent.request("_acphub/queue/revoke", {
        sessionId,
        queueId: second,
      }),
    ).toEqual({ queueId: second, revoked: true });
    expect(await revoked).toMatchObject({
      stopReason: "cancelled",
      _meta: { acphub: { revoked: true } },
    });
    writeFileSync(gate, "");
    await turn;
    expect(await queued).toMatchObject({ stopReason: "end_turn" });
    expect(await fromB).toMatchObject({ stopReason: "end_turn" });
    await until(() =>
      JSON.stringify(onB.updates(sessionId)).includes("queued-on-b"),
    );
    expect(seen("dequeued").map((d) => d.reason)).toEqual([
      "revoked",
      "started",
      "started",
    ]);
    expect(await kinds(url, sessionId)).not.toContain("restore");
    expect((await kinds(url, sessionId)).filter((k) => k !== "update")).toEqual(
      [
        "prompt",
        "prompt_queued",
        "prompt_queued",
        "prompt_queued",
        "prompt_dequeued",
        "turn_end",
        "prompt_dequeued",
        "prompt",
        "turn_end",
        "prompt_dequeued",
        "prompt",
        "turn_end",
      ],
    );
  }, 90_000);
});
