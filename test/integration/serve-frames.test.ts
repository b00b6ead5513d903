// A WebSocket client of `acphub serve` is sent relayed updates as frames the hub writes itself
// (built once, from the stored text) and the SDK's own messages (answers, a permission request)
// serialized as they enter the SDK's transport: every frame is one JSON-RPC message, each answer
// comes once, after the updates it follows, and none of the SDK's stand-ins ever reaches it.
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { hubFixture, INIT, until } from "../helpers/hub.js";
import { steps } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

type Message = Record<string, unknown>;

describe("acphub serve over a raw WebSocket", () => {
  it("updates, a permission request and answers arrive once each, in order, as plain JSON-RPC", async () => {
    const { h, home } = await fx.start();
    const ws = new WebSocket(h.acpUrl.replace(/^http/, "ws"), {
      headers: { Authorization: `Bearer ${h.token}` },
    });
    const got: Message[] = [];
    ws.on("message", (data: Buffer, binary: boolean) => {
      expect(binary).toBe(false);
      const m = JSON.parse(data.toString()) as Message;
      got.push(m);
      if (m["method"] === "session/request_permission")
        ws.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: m["id"],
            result: { outcome: { outcome: "selected", optionId: "allow" } },
          }),
        );
    });
    await new Promise((resolve) => ws.once("open", resolve));
    const send = (id: number, method: string, params: unknown) =>
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    const answer = (id: number) =>
      got.find((m) => m["id"] === id && !m["method"]);
    send(1, "initialize", INIT);
    send(2, "session/new", { cwd: home, mcpServers: [] });
    await until(() => answer(2) !== undefined);
    const { sessionId } = answer(2)!["result"] as { sessionId: string };
    const script = steps(
      { text: "one " },
      { permission: { title: "Edit it", kind: "edit" } },
      { text: "two " },
      { text: "three" },
    );
    send(3, "session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: script }],
    });
    await until(() => answer(3) !== undefined);
    ws.close();

    expect(JSON.stringify(got)).not.toContain("acphub:written");
    for (const id of [1, 2, 3])
      expect(got.filter((m) => m["id"] === id && !m["method"])).toHaveLength(1);
    expect(answer(3)!["result"]).toMatchObject({ stopReason: "end_turn" });
    const asked = got.filter(
      (m) => m["method"] === "session/request_permission",
    );
    expect(asked).toHaveLength(1);
    const updates = got.filter((m) => m["method"] === "session/update");
    const texts = updates
      .map((m) => (m["params"] as { update: Message }).update)
      .filter((u) => u["sessionUpdate"] === "agent_message_chunk")
      .map((u) => (u["content"] as { text: string }).text);
    expect(texts).toEqual([
      "one ",
      "permission granted (allow)\n",
      "two ",
      "three",
    ]);
    const seqs = updates.map(
      (m) =>
        (m["params"] as { _meta: { acphub: { seq: number } } })._meta.acphub
          .seq,
    );
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    // The answer to the prompt follows every update of its turn.
    expect(got.indexOf(answer(3)!)).toBeGreaterThan(
      got.indexOf(updates.at(-1)!),
    );
  });
});
