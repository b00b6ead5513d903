// The ledger contract, replay part: readReplay (the frames of plain updates made by the
// database) gives the editor exactly the bytes that frames built from `read` give, whatever the
// mix of events: prompts, notices, merged runs with their chunk list, `{}`, damaged rows.
import { expect, it } from "vitest";
import { frameHead, replayChunks } from "../../src/engine/wire-updates.js";
import type { LedgerFactory } from "./contract.js";
import { session } from "./contract.js";

const chunk = (text: string, messageId?: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    ...(messageId ? { messageId } : {}),
  },
});

// Every event kind and shape a replay meets, appended to session `id`; the seq of the plain
// update damaged later.
async function mixedSession(
  ledger: Awaited<ReturnType<LedgerFactory["create"]>>["ledger"],
  id: string,
): Promise<number> {
  await ledger.createSession(session(id));
  await ledger.append(id, "update", chunk("before the prompt"));
  const prompt = await ledger.append(id, "prompt", {
    prompt: [{ type: "text", text: "hi ]}" }],
    author: "ann",
  });
  for (let i = 0; i < 30; i++)
    await ledger.append(id, "update", chunk(`part ${i} `, "m1"));
  await ledger.append(id, "update", "{}");
  await ledger.append(id, "notice", { severity: "info", title: "resumed" });
  await ledger.append(id, "update", chunk('ends with "]}"'));
  const damaged = await ledger.append(id, "update", chunk("to damage"));
  await ledger.append(id, "update", {
    update: { sessionUpdate: "tool_call", toolCallId: "t", title: "é ✓ \n" },
    _meta: { x: [1] },
  });
  await ledger.append(id, "turn_end", { stopReason: "end_turn" });
  await ledger.compact(id, prompt);
  for (let i = 0; i < 5; i++)
    await ledger.append(id, "update", chunk(`live ${i}`, `n${i}`));
  return damaged;
}

export function replayContract(factory: LedgerFactory): void {
  it("readReplay gives the same frames as frames built from read, for every kind of event, and never another session's", async () => {
    const { ledger, where } = await factory.create();
    const damaged = await mixedSession(ledger, "r1");
    await mixedSession(ledger, "r2");
    await factory.damage(where, "r1", damaged);
    for (const asNotice of [false, true]) {
      const expected = replayChunks("r1", await ledger.read("r1"), asNotice);
      const parts = await ledger.readReplay!("r1", frameHead("r1"));
      const got = replayChunks("r1", parts, asNotice);
      expect(got.join("")).toBe(expected.join(""));
      // Most updates arrive made into frames: far fewer parts than events.
      expect(parts.length).toBeLessThan(12);
      expect(got.join("")).not.toContain('"sessionId":"r2"');
      expect(got.join("")).not.toContain("to damage");
      expect(got.join("")).toContain("part 29");
    }
    expect(await ledger.readReplay!("none", frameHead("none"))).toEqual([]);
    await ledger.close();
  });

  it("readReplay of a long session gives every frame in order, with prompts and notices between them", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("long"));
    // 1,200 events: more than one of the database's aggregates, other rows inside and at edges.
    const appends: Promise<number>[] = [];
    for (let i = 0; i < 1200; i++)
      appends.push(
        i % 257 === 3
          ? ledger.append("long", "prompt", {
              prompt: [{ type: "text", text: `p${i}` }],
            })
          : i % 300 === 255
            ? ledger.append("long", "notice", {
                severity: "info",
                title: `n${i}`,
              })
            : ledger.append("long", "update", chunk(`c${i} `, `m${i}`)),
      );
    await Promise.all(appends);
    const expected = replayChunks("long", await ledger.read("long"), false);
    const parts = await ledger.readReplay!("long", frameHead("long"));
    expect(replayChunks("long", parts, false).join("")).toBe(expected.join(""));
    expect(expected.join("").split("\n")).toHaveLength(1201); // a frame per event
    await ledger.close();
  });
}
