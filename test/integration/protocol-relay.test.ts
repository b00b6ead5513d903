// What acphub passes on without knowing it: session-scoped methods of a newer protocol (with
// the session id mapped), elicitation from the agent to an editor that asked for it, and
// $/cancel_request in both directions.
import { RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { turn, useEditors } from "../helpers/acp-session.js";
import { mockConfig, openSession } from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";

const startEditor = useEditors();

describe("a method acphub does not know", () => {
  it("is forwarded with the agent's session id when it names a known session; else method not found", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = startEditor(home);
    const sessionId = await openSession(e, home);
    const answer = await e.agent.request<Record<string, unknown>>(
      "session/future_method",
      { sessionId, extra: 1 },
    );
    expect(answer["known"]).toBe(true);
    expect(answer["receivedSessionId"]).toMatch(/^mock-/);
    await expect(
      e.agent.request("session/future_method", { sessionId: "hub-unknown" }),
    ).rejects.toMatchObject({ code: -32601 });
    await expect(e.agent.request("future/thing", {})).rejects.toMatchObject({
      code: -32601,
    });
  });
});

describe("elicitation/create from the agent", () => {
  const elicit = steps({ elicit: { message: "Your name?" } });

  it("reaches an editor that advertised elicitation, with acphub's session id; the answer goes back", async () => {
    const home = tempDir();
    mockConfig(home);
    const asked: Record<string, unknown>[] = [];
    const e = startEditor(home, {
      onRequest: (method, params) => {
        asked.push({ method, ...params });
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    const sessionId = await openSession(e, home, { elicitation: { form: {} } });
    const caps = await turn(e, sessionId, steps({ state: true }));
    expect(caps).toContain('"elicitation":{"form":{}}');
    expect(await turn(e, sessionId, elicit)).toContain(
      'elicitation: {"action":"accept","content":{"name":"Ada"}}',
    );
    expect(asked).toEqual([
      expect.objectContaining({
        method: "elicitation/create",
        sessionId,
        message: "Your name?",
      }),
    ]);
  });

  it("is refused, saying why, when the editor did not advertise it (and not advertised to the agent)", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = startEditor(home);
    const sessionId = await openSession(e, home);
    expect(await turn(e, sessionId, steps({ state: true }))).not.toContain(
      "elicitation",
    );
    expect(await turn(e, sessionId, elicit)).toContain(
      "elicitation failed: -32601 acphub does not serve elicitation/create: the editor did not advertise elicitation",
    );
  });
});

describe("$/cancel_request", () => {
  it("from the agent: the editor's pending request is cancelled", async () => {
    const home = tempDir();
    mockConfig(home);
    let cancelled = false;
    const e = startEditor(home, {
      onRequest: (_method, _params, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            cancelled = true;
            reject(RequestError.requestCancelled());
          }),
        ),
    });
    const sessionId = await openSession(e, home, { elicitation: { form: {} } });
    const reply = await turn(
      e,
      sessionId,
      steps({ elicit: { message: "wait", cancelAfterMs: 200 } }),
    );
    expect(reply).toContain("elicitation failed: -32800");
    expect(await waitFor(() => cancelled)).toBe(true);
  });

  it("from the editor: the request acphub made to the agent is cancelled", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = startEditor(home);
    await openSession(e, home);
    const controller = new AbortController();
    const pending = e.agent.request(
      "_mock/wait",
      {},
      { cancellationSignal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ code: -32800 });
    expect(
      await waitFor(() =>
        e.notifications.some((n) => n.method === "_mock/cancelled"),
      ),
    ).toBe(true);
  });
});
