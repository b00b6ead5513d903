// The ledger contract, continued: a session's history read a page at a time, from its newest
// event back (the web page's first screen, then older pages as the reader scrolls up) or from a
// cursor forward, bounded by a count and by bytes, in order, without a gap or a duplicate.
import { expect, it } from "vitest";
import type { LedgerPort } from "../../src/engine/ledger-port.js";
import type { LedgerFactory } from "./contract.js";
import { session } from "./contract.js";

// Each its own message, so that no ledger merges them.
const say = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    messageId: text,
    content: { type: "text", text },
  },
});

// A prompt, then `count` updates "u1".."uN"; the sequence numbers of all of them.
async function history(ledger: LedgerPort, count: number): Promise<number[]> {
  const seqs = [await ledger.append("s1", "prompt", { prompt: [] })];
  for (let i = 1; i <= count; i++)
    seqs.push(await ledger.append("s1", "update", say(`u${i}`)));
  return seqs;
}

export function pageContract(factory: LedgerFactory): void {
  it("reads the newest page first, then older pages before a cursor, in order, to the first event", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const seqs = await history(ledger, 10);
    const newest = { limit: 4, from: "newest" } as const;
    const last = await ledger.readPage("s1", newest);
    expect(last.map((e) => e.seq)).toEqual(seqs.slice(-4));
    expect(last.at(-1)?.text).toBe(JSON.stringify(say("u10")));
    const pages = [last];
    for (let i = 0; i < 10; i++) {
      const beforeSeq = pages[0]![0]!.seq;
      const page = await ledger.readPage("s1", { ...newest, beforeSeq });
      if (page.length === 0) break;
      pages.unshift(page);
    }
    expect(pages.map((p) => p.length)).toEqual([3, 4, 4]);
    expect(pages.flat().map((e) => e.seq)).toEqual(seqs);
    expect(pages[0]![0]).toMatchObject({
      kind: "prompt",
      text: '{"prompt":[]}',
    });
    await ledger.close();
  });

  it("reads forward from a cursor, bounded by count and by bytes (the first event always)", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const seqs = await history(ledger, 10);
    const forward = await ledger.readPage("s1", {
      afterSeq: seqs[2],
      beforeSeq: seqs[9],
      limit: 100,
      from: "oldest",
    });
    expect(forward.map((e) => e.seq)).toEqual(seqs.slice(3, 9));
    const two = await ledger.readPage("s1", {
      afterSeq: seqs[2],
      limit: 2,
      from: "oldest",
    });
    expect(two.map((e) => e.seq)).toEqual(seqs.slice(3, 5));
    const size = JSON.stringify(say("u10")).length;
    const byBytes = await ledger.readPage("s1", {
      limit: 100,
      maxBytes: size * 3,
      from: "newest",
    });
    expect(byBytes.map((e) => e.seq)).toEqual(seqs.slice(-3));
    const tiny = await ledger.readPage("s1", {
      limit: 100,
      maxBytes: 1,
      from: "newest",
    });
    expect(tiny.map((e) => e.seq)).toEqual(seqs.slice(-1));
    expect(await ledger.readPage("nope", { limit: 5, from: "newest" })).toEqual(
      [],
    );
    await ledger.close();
  });
}
