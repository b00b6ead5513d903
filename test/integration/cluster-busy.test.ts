// Issue 34, item 14: a prompt for a session whose turn another live node runs gets a retryable
// busy answer naming that node — the same prompt (same idempotency key: a reconnecting shim
// re-sends it) and a different one alike — never a "lease lapsed" error, and the reconnecting
// shim tries again until the turn there ended. After kill -9 of the node running a turn, that
// interrupted turn is ended exactly once in the ledger, however many nodes and paths try.
import { afterEach, describe, expect, it } from "vitest";
import { startEditor, type TestEditor } from "../helpers/editor.js";
import {
  allowOnce,
  INIT,
  openSession,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { mockConfig } from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";
import { CLUSTER_TOKEN, clusterFixture } from "../helpers/cluster.js";
import { sql } from "../helpers/postgres.js";

const cluster = clusterFixture();
const { node, client } = cluster;
const editors: TestEditor[] = [];
// Runs before the fixture's own hook: editors go before the nodes.
afterEach(async () => {
  for (const e of editors.splice(0)) {
    e.child.kill("SIGKILL");
    await e.exited;
  }
});

const ask = { permission: { title: "Edit", kind: "edit" } };
const busyOn = (node: string) => ({
  data: { code: "PROMPT_IN_FLIGHT", retryable: true, node },
});

// A client whose permission questions wait until the test opens the gate.
function gated(c: (on?: Parameters<typeof client>[1]) => HubTestClient) {
  const gates: (() => void)[] = [];
  const onA = c(
    (m, params) =>
      new Promise((resolve) => gates.push(() => resolve(allowOnce(m, params)))),
  );
  return { onA, gates };
}

// The session's events kinds and payloads, read from the database.
async function events(url: string, sessionId: string) {
  return sql<{ kind: string; payload: unknown }>(
    url,
    "SELECT kind, payload FROM acphub_events WHERE session_id = $1 ORDER BY seq",
    [sessionId],
  );
}

// The ends recorded after each prompt: one list per prompt.
async function endsPerPrompt(url: string, sessionId: string) {
  const ends: unknown[][] = [];
  for (const e of await events(url, sessionId)) {
    if (e.kind === "prompt") ends.push([]);
    else if (e.kind === "turn_end") ends.at(-1)?.push(e.payload);
  }
  return ends;
}

// A client on `h` that loaded the session.
async function loaded(
  h: Parameters<typeof client>[0],
  id: string,
  cwd: string,
) {
  const c = client(h);
  await c.agent.request("initialize", INIT);
  await c.agent.request("session/load", { sessionId: id, cwd, mcpServers: [] });
  return c;
}

// Sends the prompt until it is answered; every refusal meanwhile must be the retryable busy one,
// naming a node of the cluster (after A's death, the node ending its turn may be named).
async function untilAnswered(c: HubTestClient, params: unknown) {
  for (;;) {
    try {
      return await c.agent.request<Record<string, unknown>>(
        "session/prompt",
        params,
      );
    } catch (error) {
      expect(error).toMatchObject(
        busyOn(expect.stringMatching(/^node-[abc]$/) as unknown as string),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe("a cluster's busy answer and interrupted turns", () => {
  it("B answers busy (retryable, naming A) while A runs the turn, for the same key and another prompt; then answers the key from the ledger", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const { onA, gates } = gated((on) => client(a.h, on));
    const sessionId = await openSession(onA, a.home);
    const params = {
      sessionId,
      prompt: text(steps({ text: "started " }, ask, { text: "done" })),
      _meta: { acphub: { idempotencyKey: "key-1" } },
    };
    const turn = onA.agent.request("session/prompt", params);
    await until(() => gates.length === 1);
    const onB = await loaded(b.h, sessionId, a.home);
    await expect(
      onB.agent.request("session/prompt", params),
    ).rejects.toMatchObject(busyOn("node-a"));
    await expect(
      onB.agent.request("session/prompt", { sessionId, prompt: text("x") }),
    ).rejects.toMatchObject(busyOn("node-a"));
    gates[0]!();
    expect(await turn).toMatchObject({ stopReason: "end_turn" });
    expect(await onB.agent.request("session/prompt", params)).toMatchObject({
      stopReason: "end_turn",
      _meta: { acphub: { replayed: true, interrupted: false } },
    });
    expect(await endsPerPrompt(url, sessionId)).toEqual([
      [expect.objectContaining({ stopReason: "end_turn" })],
    ]);
  }, 90_000);

  it("after kill -9 of A its turn is ended once, however many nodes and paths end it", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const [b, c] = [await node(url, "node-b"), await node(url, "node-c")];
    const onA = client(a.h);
    const sessionId = await openSession(onA, a.home);
    const params = {
      sessionId,
      prompt: text(steps({ text: "started " }, { sleep: 60_000 })),
      _meta: { acphub: { idempotencyKey: "key-2" } },
    };
    void onA.agent.request("session/prompt", params).catch(() => undefined);
    const onB = await loaded(b.h, sessionId, a.home);
    const onC = await loaded(c.h, sessionId, a.home);
    await until(() =>
      JSON.stringify(onB.updates(sessionId)).includes("started "),
    );
    a.h.child.kill("SIGKILL");
    await a.h.exited;
    cluster.forget(a.h);
    // Re-sent by two reconnecting clients on two nodes at once, and loaded by a third.
    const answers = await Promise.all([
      untilAnswered(onB, params),
      untilAnswered(onC, params),
      untilAnswered(onB, params),
      loaded(c.h, sessionId, a.home).then(() => ({ stopReason: "cancelled" })),
    ]);
    for (const answer of answers)
      expect(answer).toMatchObject({ stopReason: "cancelled" });
    // The next prompt runs (on C), and finds nothing more to end.
    expect(
      await untilAnswered(onC, { sessionId, prompt: text("next") }),
    ).toMatchObject({ stopReason: "end_turn" });
    const ends = await endsPerPrompt(url, sessionId);
    expect(ends).toEqual([
      [
        {
          stopReason: "cancelled",
          interrupted: "outcome_unknown",
          node: "node-a",
        },
      ],
      [expect.objectContaining({ stopReason: "end_turn" })],
    ]);
  }, 90_000);

  it("the shim retries a prompt another node is busy with, and it runs once that turn ended", async () => {
    const url = await cluster.database();
    const a = await node(url, "node-a");
    const b = await node(url, "node-b");
    const { onA, gates } = gated((on) => client(a.h, on));
    const sessionId = await openSession(onA, a.home);
    const turn = onA.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "on A " }, ask, { text: "A done" })),
    });
    await until(() => gates.length === 1);
    const home = tempDir();
    mockConfig(home);
    const editor = startEditor(home, {
      args: ["--hub", b.h.url],
      env: { ACPHUB_TOKEN: CLUSTER_TOKEN },
    });
    editors.push(editor);
    await editor.agent.request("initialize", INIT);
    await editor.agent.request("session/load", {
      sessionId,
      cwd: a.home,
      mcpServers: [],
    });
    const mine = editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("then mine"),
    });
    let settled = false;
    void mine.then(
      () => (settled = true),
      () => (settled = true),
    );
    await until(
      () => editor.stderr().includes("the prompt is sent again") || settled,
    );
    expect(settled).toBe(false);
    gates[0]!();
    expect(await turn).toMatchObject({ stopReason: "end_turn" });
    expect(await mine).toMatchObject({ stopReason: "end_turn" });
    expect((await endsPerPrompt(url, sessionId)).map((e) => e.length)).toEqual([
      1, 1,
    ]);
  }, 90_000);
});
