// The ledger contract, continued: a session's counters (events, bytes) stay those of its stored
// events turn after turn, each turn's reply compacted — the compaction changes them by what it
// merged, whatever the turns before it stored.
import { expect, it } from "vitest";
import type { LedgerPort } from "../../src/engine/ledger-port.js";
import type { LedgerFactory } from "./contract.js";
import { session } from "./contract.js";

const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
  },
});

// The session's counters, and those of a copy of it (a fork counts the rows it copied: a
// recount of what is stored).
async function countersAndRecount(ledger: LedgerPort, copy: string) {
  await ledger.copySession("s1", session(copy));
  const [s1, recount] = await Promise.all(
    ["s1", copy].map((id) => ledger.getSession(id)),
  );
  return [s1, recount].map((s) => ({ count: s?.eventCount, bytes: s?.bytes }));
}

export function countsContract(factory: LedgerFactory): void {
  it("keeps a session's counters those of its stored events over many compacted turns", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    for (let turn = 0; turn < 5; turn++) {
      const prompt = await ledger.append("s1", "prompt", { prompt: [] });
      // Several bytes per character, and a reply stored over two batches, read in between.
      const words = Array.from(
        { length: 12 + turn },
        (_, i) => `t${turn} é😀${i} `,
      );
      await Promise.all(
        words.slice(0, 6).map((w) => ledger.append("s1", "update", chunk(w))),
      );
      await ledger.read("s1", { afterSeq: prompt });
      await Promise.all(
        words.slice(6).map((w) => ledger.append("s1", "update", chunk(w))),
      );
      const end = await ledger.append("s1", "turn_end", {
        stopReason: "end_turn",
      });
      await ledger.compact("s1", prompt, end);
      const [counters, recount] = await countersAndRecount(ledger, `c${turn}`);
      expect(counters).toEqual(recount);
      expect(counters?.count).toBe(3 * (turn + 1));
    }
    await ledger.close();
  });
}
