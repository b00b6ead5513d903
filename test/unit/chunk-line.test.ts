// A text chunk's line read without JSON.parse must give what parsing gives, and its kept text
// must be byte for byte what serializing the parsed update gives (what the relay stored and sent
// before): otherwise a secret written in other escapes would slip past masking, and replay would
// differ from what was sent. Any line it is not sure of is left to JSON.parse.
import { describe, expect, it } from "vitest";
import { readChunkLine, updateText } from "../../src/protocol/chunk-line.js";

const line = (update: unknown, sessionId = "sess-1") =>
  JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: { sessionId, update },
  });
const chunk = (text: string, kind = "agent_message_chunk") => ({
  sessionUpdate: kind,
  content: { type: "text", text },
});

const TEXTS = [
  "",
  "plain words",
  'a "quoted" word',
  "back\\slash and a trailing one\\",
  "lines\nand\ttabs\r\b\f",
  "control \u0000 \u0001 \u001b \u001f",
  "unicode é ü 漢字 😀 \u2028 \u2029",
  '}}}} braces "}}}}',
  "\u007f del",
];

describe("readChunkLine", () => {
  for (const kind of [
    "agent_message_chunk",
    "agent_thought_chunk",
    "user_message_chunk",
  ])
    it(`reads ${kind} lines as JSON.parse does, text as JSON.stringify writes it`, () => {
      for (const text of TEXTS) {
        const sent = line(chunk(text, kind));
        const read = readChunkLine(sent);
        const parsed = JSON.parse(sent).params;
        expect(read, text).toEqual(parsed);
        expect(updateText(read!.update), text).toBe(
          JSON.stringify(parsed.update),
        );
      }
    });

  it("leaves every other line to the parser", () => {
    const sent = line(chunk("x"));
    const withText = (body: string) =>
      sent.replace('"text":"x"', `"text":"${body}"`);
    const others = [
      // another update, another content, another key order, more keys
      line({ sessionUpdate: "tool_call", toolCallId: "t", title: "x" }),
      line({
        sessionUpdate: "agent_message_chunk",
        content: { type: "image", data: "x", mimeType: "image/png" },
      }),
      line({
        content: { type: "text", text: "x" },
        sessionUpdate: "agent_message_chunk",
      }),
      line({ ...chunk("x"), _meta: { acphub: { author: "eve" } } }),
      line({ ...chunk("x"), extra: { y: "z" } }),
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: "s", update: chunk("x"), _meta: { k: 1 } },
      }),
      // a request, not a notification
      sent.replace('"method"', '"id":1,"method"'),
      // escapes JSON.stringify would not write: parsed, so masking sees the text
      withText("\\u0041"),
      withText("\\u00e9"),
      withText("\\u001B"),
      withText("\\/"),
      withText("\\ud83d\\ude00"),
      sent.replace("sess-1", "se\\u0073s"),
      sent.replace("sess-1", ""),
      // not JSON at all
      withText("x\\"),
      sent.replace('"text":"x"', '"text":"x\\'),
      withText("a\nb"),
      withText("\\q"),
      withText("\\u00"),
      sent.slice(0, -1),
    ];
    for (const other of others)
      expect(readChunkLine(other), other).toBeUndefined();
  });

  it("keeps no text for a copy of the update, which may have been changed", () => {
    const read = readChunkLine(line(chunk("secret")))!;
    expect(updateText(read.update)).toBeDefined();
    const copy = { ...read.update, content: { type: "text", text: "***" } };
    expect(updateText(copy)).toBeUndefined();
    expect(updateText(structuredClone(read.update))).toBeUndefined();
    expect(JSON.stringify(copy)).toContain("***");
  });
});
