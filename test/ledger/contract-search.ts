// The ledger contract, continued: the hub's session list and search as ledger queries, one
// query each (issue 35): the sessions shared with a user, listed page by page; and the sessions
// whose title or text holds some words — a phrase across two chunks of one message found,
// across two messages not, JSON keys never, case folded beyond ASCII, bounded.
import { expect, it } from "vitest";
import type { LedgerPort } from "../../src/engine/ledger-port.js";
import { userStoreOf } from "../../src/ledger/open.js";
import type { LedgerFactory } from "./contract.js";
import { session } from "./contract.js";

const say = (text: string, kind = "agent_message_chunk") => ({
  update: { sessionUpdate: kind, content: { type: "text", text } },
});

// Sessions s1..sN, sN the newest.
async function sessions(ledger: LedgerPort, count: number): Promise<void> {
  for (let i = 1; i <= count; i++)
    await ledger.createSession(session(`s${i}`, 1000 + i));
}

// Puts the sessions back in their order (an append makes its session the newest).
async function reorder(ledger: LedgerPort, count: number): Promise<void> {
  for (let i = 1; i <= count; i++)
    await ledger.updateSession(`s${i}`, { updatedAt: 1000 + i });
}

const find = (ledger: LedgerPort, text: string, more = {}) =>
  ledger.searchSessions({ text, scan: 200, limit: 100, ...more });

export function searchContract(factory: LedgerFactory): void {
  it("lists only the sessions shared with a user, in full pages, newest first", async () => {
    const { ledger } = await factory.create();
    await sessions(ledger, 7);
    const users = userStoreOf(ledger);
    for (const id of ["s1", "s3", "s4", "s6"])
      await users.grant({ sessionId: id, user: "ann", role: "viewer" });
    await users.grant({ sessionId: "s2", user: "bob", role: "owner" });
    const first = await ledger.listSessions({ sharedWith: "ann", limit: 3 });
    expect(first.sessions.map((s) => s.id)).toEqual(["s6", "s4", "s3"]);
    const rest = await ledger.listSessions({
      sharedWith: "ann",
      limit: 3,
      cursor: first.nextCursor,
    });
    expect(rest.sessions.map((s) => s.id)).toEqual(["s1"]);
    expect(rest.nextCursor).toBeNull();
    const none = await ledger.listSessions({ sharedWith: "carol" });
    expect(none.sessions).toEqual([]);
    expect((await ledger.listSessions({})).sessions).toHaveLength(7);
    await ledger.close();
  });

  it("finds titles and the text of prompts and messages, a phrase across a message's chunks, never keys", async () => {
    const { ledger } = await factory.create();
    await sessions(ledger, 4);
    await ledger.updateSession("s1", { title: "About ZEBRAS" });
    await ledger.append("s2", "prompt", {
      prompt: [
        { type: "resource_link", uri: "file:///zebra.txt", name: "x" },
        { type: "text", text: "Über die Straße" },
      ],
    });
    for (const part of ["a striped ", "ho", "rse"])
      await ledger.append("s2", "update", say(part));
    await ledger.append(
      "s3",
      "update",
      say("a striped ", "agent_thought_chunk"),
    );
    await ledger.append("s3", "update", say("horse"));
    await ledger.append("s4", "update", {
      update: { sessionUpdate: "tool_call", toolCallId: "zebra", title: "t" },
    });
    await reorder(ledger, 4);
    expect(await find(ledger, "zebra")).toEqual(["s1"]);
    expect(await find(ledger, "striped horse")).toEqual(["s2"]);
    expect(await find(ledger, "horse")).toEqual(["s3", "s2"]);
    expect(await find(ledger, "ÜBER DIE")).toEqual(["s2"]);
    expect(await find(ledger, "sessionUpdate")).toEqual([]);
    expect(await find(ledger, "straße\na")).toEqual([]);
    await ledger.close();
  });

  it("is bounded: the newest sessions scanned, the matches limited, only the shared ones", async () => {
    const { ledger } = await factory.create();
    await sessions(ledger, 5);
    for (let i = 1; i <= 5; i++)
      await ledger.append(`s${i}`, "prompt", {
        prompt: [{ type: "text", text: `needle ${i}` }],
      });
    await userStoreOf(ledger).grant({
      sessionId: "s2",
      user: "ann",
      role: "driver",
    });
    await reorder(ledger, 5);
    expect(await find(ledger, "NEEDLE")).toEqual([
      "s5",
      "s4",
      "s3",
      "s2",
      "s1",
    ]);
    expect(await find(ledger, "needle", { scan: 2 })).toEqual(["s5", "s4"]);
    expect(await find(ledger, "needle", { limit: 3 })).toEqual([
      "s5",
      "s4",
      "s3",
    ]);
    expect(await find(ledger, "needle", { sharedWith: "ann" })).toEqual(["s2"]);
    expect(await find(ledger, "needle 1", { sharedWith: "ann" })).toEqual([]);
    await ledger.close();
  });
}
