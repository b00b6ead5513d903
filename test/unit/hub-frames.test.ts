// A relayed update is serialized once for every hub client that receives it: each is handed the
// same note, whose frame is built from the stored JSON text with the seq stamped in, and is
// byte for byte what serializing the stamped params would give.
import { describe, expect, it } from "vitest";
import { Attachments, type HubClient } from "../../src/hub/attachments.js";
import { fanOutEditor } from "../../src/hub/fan-out.js";
import { catchUpNotes, type Note } from "../../src/hub/frames.js";
import type { StoredEvent } from "../../src/engine/ports.js";
import {
  replayChunks,
  stampedParams,
  withSeq,
} from "../../src/engine/wire-updates.js";

type Params = Record<string, unknown>;

// A client that keeps the notes it is sent.
function keeper(id: string, notes: Note[]): HubClient {
  return {
    id,
    closed: false,
    notify: (note) => void notes.push(note),
    request: () => Promise.reject(new Error("no requests")),
  };
}

// What the SDK wrote for a stamped update before: the params serialized with the envelope.
function serialized(params: Params, seq: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: withSeq(params, seq),
  });
}

// Relays one stored update to two attached clients (or only the first); the notes each was handed.
async function relay(payload: Params, seq: number, clients = 2) {
  const attachments = new Attachments();
  const a: Note[] = [];
  const b: Note[] = [];
  attachments.attach("s1", keeper("a", a));
  if (clients === 2) attachments.attach("s1", keeper("b", b));
  const params = { sessionId: "s1", ...payload };
  const text = JSON.stringify(payload);
  await fanOutEditor(attachments).notify("session/update", params, {
    seq,
    text,
  });
  return { a, b, params };
}

describe("a relayed update's frame", () => {
  it("is built once for all clients, from the stored text, as serializing would", async () => {
    const payload = {
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: 'é "quoted" \u2028 \n\t' },
      },
    };
    const { a, b, params } = await relay(payload, 42);
    expect(a).toHaveLength(1);
    expect(b[0]).toBe(a[0]);
    const bytes = a[0]!.bytes();
    expect(b[0]!.bytes()).toBe(bytes);
    expect(bytes.toString()).toBe(serialized(params, 42));
    expect(a[0]!.params).toEqual(withSeq(params, 42));
  });

  it("is written from its parts by a WebSocket when it goes to one client, made once when to several", async () => {
    const payload = {
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "hi" },
      },
    };
    const one = await relay(payload, 3, 1);
    const two = await relay(payload, 3, 2);
    expect(one.a[0]!.stamp).toEqual({
      sessionId: "s1",
      text: JSON.stringify(payload),
      seq: 3,
    });
    expect(one.a[0]!.fromParts).toBe(true);
    expect(two.a[0]!.fromParts).toBe(false);
    // Either way its text is what serializing gives.
    expect(one.a[0]!.json()).toBe(serialized(one.params, 3));
    expect(two.a[0]!.json()).toBe(serialized(two.params, 3));
  });

  it("keeps the agent's own _meta beside the seq", async () => {
    const payload = {
      update: { sessionUpdate: "plan", entries: [] },
      _meta: { agent: { x: 1 }, acphub: { other: true } },
    };
    const { a, params } = await relay(payload, 7);
    expect(a[0]!.bytes().toString()).toBe(serialized(params, 7));
    expect(JSON.parse(a[0]!.bytes().toString())).toMatchObject({
      params: { _meta: { agent: { x: 1 }, acphub: { other: true, seq: 7 } } },
    });
  });

  it("is not sent again to a client that already has its seq", async () => {
    const attachments = new Attachments();
    const a: Note[] = [];
    attachments.attach("s1", keeper("a", a), 5);
    const update = { update: { sessionUpdate: "plan", entries: [] } };
    const editor = fanOutEditor(attachments);
    for (const seq of [5, 6])
      await editor.notify(
        "session/update",
        { sessionId: "s1", ...update },
        { seq, text: JSON.stringify(update) },
      );
    expect(a.map((n) => (n.params["_meta"] as Params)["acphub"])).toEqual([
      { seq: 6 },
    ]);
  });
});

describe("a catch-up's frames", () => {
  const chunk = (text: string) => ({
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text },
    },
  });
  const row = (seq: number, kind: string, payload: unknown) => ({
    seq,
    kind: kind as StoredEvent["kind"],
    text: typeof payload === "string" ? payload : JSON.stringify(payload),
    at: 0,
  });

  const stored = [
    row(1, "update", chunk("before the cursor")),
    row(2, "prompt", { prompt: [{ type: "text", text: "hi" }], author: "ann" }),
    row(3, "update", chunk('é "q" \u2028')),
    row(4, "update", { ...chunk("meta"), _meta: { agent: 1 } }),
    row(5, "update", "{damaged"),
    row(6, "turn_end", { stopReason: "end_turn" }),
    row(7, "notice", { severity: "warning", title: "restored" }),
    row(8, "update", chunk("last")),
  ];

  it("are the stored texts stamped, as serializing the parsed events would give", () => {
    const damaged: number[] = [];
    const notes = catchUpNotes("s1", stored, 1, (seq) => damaged.push(seq));
    const expected = stampedParams("s1", stored, 1).map((params) =>
      JSON.stringify({ jsonrpc: "2.0", method: "session/update", params }),
    );
    expect(notes.map((n) => n.bytes().toString())).toEqual(expected);
    expect(expected).toHaveLength(5);
    expect(JSON.parse(expected[0]!)).toMatchObject({
      params: {
        update: { sessionUpdate: "user_message_chunk" },
        _meta: { acphub: { author: "ann", seq: 2 } },
      },
    });
    expect(damaged).toEqual([5]);
    // Params are made on demand, the same as the frame says.
    for (const note of notes)
      expect(note.params).toEqual(
        (JSON.parse(note.bytes().toString()) as { params: Params }).params,
      );
  });

  it("are, for an editor's replay, the same updates without the seq", () => {
    const frames = replayChunks("s1", stored.slice(1)).join("").split("\n");
    expect(frames.pop()).toBe("");
    const expected = stampedParams("s1", stored, 1).map((params) => {
      const { acphub, ...meta } = params["_meta"] as Params;
      const { seq: _seq, ...rest } = acphub as Params;
      const kept = Object.keys(rest).length ? { ...meta, acphub: rest } : meta;
      const { _meta: _dropped, ...bare } = params;
      return { ...bare, ...(Object.keys(kept).length ? { _meta: kept } : {}) };
    });
    expect(
      frames.map((f) => (JSON.parse(f) as { params: Params }).params),
    ).toEqual(expected);
  });
});

describe("a replayed prompt's frames", () => {
  const prompt = (seq: number, payload: Params): StoredEvent => ({
    seq,
    kind: "prompt",
    text: JSON.stringify(payload),
    at: 0,
  });
  // The frames serializing each block's update gives.
  const built = (blocks: unknown[], author?: string) =>
    blocks.map(
      (content) =>
        `${JSON.stringify({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId: "s1",
            update: { sessionUpdate: "user_message_chunk", content },
            ...(author ? { _meta: { acphub: { author } } } : {}),
          },
        })}\n`,
    );

  it("are byte for byte what serializing the parsed blocks gives, one block or several, with or without an author", () => {
    const file = {
      type: "resource",
      resource: {
        uri: "file:///a.ts",
        text: 'const s = "é \\u2028\n";'.repeat(50),
      },
    };
    const image = { type: "image", data: "AAAA", mimeType: "image/png" };
    const cases: [unknown[], string?][] = [
      [[file]],
      [[{ type: "text", text: '{"steps":[1]}]}' }]],
      [[file, image]],
      [[image], "ann"],
    ];
    for (const [blocks, author] of cases) {
      const payload = { prompt: blocks, ...(author ? { author } : {}) };
      expect(replayChunks("s1", [prompt(1, payload)]).join("")).toBe(
        built(blocks, author).join(""),
      );
    }
    // A key after the blocks that ends in a bracket too: not taken for part of the block.
    const extra = prompt(2, { prompt: [image], later: [1] });
    expect(replayChunks("s1", [extra]).join("")).toBe(built([image]).join(""));
  });
});
