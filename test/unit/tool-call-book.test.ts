// The per-session memory of announced tool calls stays bounded and ignores unknown sessions.
import { describe, expect, it } from "vitest";
import { ToolCallBook } from "../../src/host/tool-call-book.js";

describe("ToolCallBook", () => {
  it("merges updates, forgets the least recently touched beyond its capacity", () => {
    const book = new ToolCallBook(3);
    book.open("s");
    const call = (id: string, kind?: string) =>
      book.record("s", { sessionUpdate: "tool_call", toolCallId: id, kind });
    call("a", "read");
    call("b", "edit");
    call("c", "execute");
    book.record("s", {
      sessionUpdate: "tool_call_update",
      toolCallId: "a",
      title: "Read a",
    });
    call("d", "search");
    expect(book.get("s", "a")).toEqual({ kind: "read", title: "Read a" });
    expect(book.get("s", "b")).toBeUndefined();
    expect(book.get("s", "d")).toEqual({ kind: "search" });
  });

  it("keeps nothing for a session it was not told about, and forgets a closed one", () => {
    const book = new ToolCallBook();
    const update = {
      sessionUpdate: "tool_call",
      toolCallId: "t",
      kind: "edit",
    };
    book.record("stranger", update);
    expect(book.get("stranger", "t")).toBeUndefined();
    book.open("s");
    book.record("s", update);
    book.close("s");
    expect(book.get("s", "t")).toBeUndefined();
  });
});
