// The ledger contract, continued: a client whose cursor lies inside a run that compaction merged
// reads only what came after its cursor; a reader from the start sees the merged text unchanged.
import { expect, it } from "vitest";
import type { LedgerPort } from "../../src/engine/ledger-port.js";
import type { LedgerFactory } from "./contract.js";
import { session } from "./contract.js";

const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    messageId: "m1",
  },
  _meta: { trace: "t" },
});

// Appends one chunk per text, in order; their sequence numbers.
async function stream(ledger: LedgerPort, texts: string[]): Promise<number[]> {
  return Promise.all(texts.map((t) => ledger.append("s1", "update", chunk(t))));
}

// The text of each update read after `afterSeq`.
async function textsAfter(ledger: LedgerPort, afterSeq: number) {
  const events = await ledger.events("s1", { afterSeq });
  return events.map(
    (e) => (e.payload["update"] as { content: { text: string } }).content.text,
  );
}

export function cutContract(factory: LedgerFactory): void {
  it("reads only the text after a cursor that lies inside a merged run", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const prompt = await ledger.append("s1", "prompt", { prompt: [] });
    const parts = ["Hel", 'lo "wo', "rld\n", "😀 é", "!"];
    const seqs = await stream(ledger, parts);
    await ledger.compact("s1", prompt);
    const [merged] = await ledger.read("s1", { afterSeq: prompt });
    expect(merged?.text).toBe(JSON.stringify(chunk(parts.join(""))));
    expect(merged?.seq).toBe(seqs[4]);
    for (let i = 0; i < parts.length - 1; i++) {
      const [rest] = await ledger.events("s1", { afterSeq: seqs[i] });
      expect(rest?.seq).toBe(seqs[4]);
      expect(rest?.payload).toEqual(chunk(parts.slice(i + 1).join("")));
    }
    expect(await ledger.read("s1", { afterSeq: seqs[4] })).toEqual([]);
    const whole = (await ledger.read("s1")).map((e) => e.text).join("");
    expect(whole).not.toContain("acphubChunks");
    await ledger.close();
  });

  it("keeps a merged run's chunk list bounded: a long reply becomes several events", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const prompt = await ledger.append("s1", "prompt", { prompt: [] });
    const parts = Array.from({ length: 2500 }, (_, i) => `${i % 10}`);
    const seqs = await stream(ledger, parts);
    await ledger.compact("s1", prompt);
    expect(await textsAfter(ledger, prompt)).toEqual([
      parts.slice(0, 1000).join(""),
      parts.slice(1000, 2000).join(""),
      parts.slice(2000).join(""),
    ]);
    const record = await ledger.getSession("s1");
    expect(record?.bytes).toBeLessThan(20_000);
    expect(await textsAfter(ledger, seqs[1499]!)).toEqual([
      parts.slice(1500, 2000).join(""),
      parts.slice(2000).join(""),
    ]);
    await ledger.close();
  });
}
