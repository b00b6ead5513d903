// A reply merged in parts while it streams (each part's rows kept as one, with its chunk list)
// becomes one event when its turn is compacted, and a client reading after any cursor reads
// exactly the text it has not seen, before the last merge as after it.
import Database from "better-sqlite3";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { LedgerPort } from "../../src/engine/ledger-port.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "./contract.js";

const chunk = (text: string) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    messageId: "m1",
  },
});

// A ledger with session s1 and its prompt; the prompt's seq.
async function withPrompt(mask?: (text: string) => string) {
  const where = join(tempDir("acphub-ledger-"), "ledger.db");
  const ledger = new SqliteLedger(where, mask ? { mask } : {});
  await ledger.createSession(session("s1"));
  return { ledger, prompt: await ledger.append("s1", "prompt", {}) };
}

const WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `);

// Appends one chunk per text, in order; their sequence numbers.
function stream(ledger: LedgerPort, texts: string[]): Promise<number[]> {
  return Promise.all(texts.map((t) => ledger.append("s1", "update", chunk(t))));
}

// The text of the updates read after `afterSeq`, joined.
async function textAfter(ledger: LedgerPort, afterSeq: number) {
  const events = await ledger.events("s1", { afterSeq });
  return events
    .map((e) => (e.payload["update"] as { content: { text: string } }).content)
    .map((content) => content.text)
    .join("");
}

// The reply's text after each cursor from the prompt on: what every reader reads next.
async function everyRest(ledger: LedgerPort, prompt: number, seqs: number[]) {
  const rests = [];
  for (const cursor of [prompt, ...seqs])
    rests.push(await textAfter(ledger, cursor));
  return rests;
}

it("makes a reply merged in parts one event, each reader reading the same text as before", async () => {
  const { ledger, prompt } = await withPrompt();
  const parts = Array.from({ length: 250 }, (_, i) =>
    i % 7 ? `${i} ` : `"${i}"\n\\é`,
  );
  const seqs = await stream(ledger, parts.slice(0, 100));
  await ledger.compact("s1", prompt, seqs[99]);
  seqs.push(...(await stream(ledger, parts.slice(100, 200))));
  await ledger.compact("s1", seqs[99]!, seqs[199]);
  seqs.push(...(await stream(ledger, parts.slice(200))));
  const expected = parts.map((_, i) => parts.slice(i).join(""));
  expected.push("");
  // Two parts merged by compact, the third by the spool's fold (../sqlite/spool.ts).
  expect(await ledger.read("s1", { afterSeq: prompt })).toHaveLength(3);
  expect(await everyRest(ledger, prompt, seqs)).toEqual(expected);

  await ledger.compact("s1", prompt);
  const rows = await ledger.read("s1", { afterSeq: prompt });
  expect(rows.map((e) => e.seq)).toEqual([seqs[249]]);
  expect(rows[0]?.text).toBe(JSON.stringify(chunk(parts.join(""))));
  expect(await everyRest(ledger, prompt, seqs)).toEqual(expected);
  expect((await ledger.getSession("s1"))?.eventCount).toBe(2);
  await ledger.close();
});

it("keeps a part that masking left without a chunk list whole, merging the rest after it", async () => {
  const { ledger, prompt } = await withPrompt((text) =>
    text.replaceAll("SECRET", "[masked]"),
  );
  const parts = [
    "a ",
    "SEC",
    "RET",
    " b",
    ...Array.from({ length: 6 }, (_, i) => `${i}`),
  ];
  const seqs = await stream(ledger, parts.slice(0, 4));
  await ledger.compact("s1", prompt, seqs[3]);
  seqs.push(...(await stream(ledger, parts.slice(4, 8))));
  await ledger.compact("s1", seqs[3]!, seqs[7]);
  seqs.push(...(await stream(ledger, parts.slice(8))));
  const before = await everyRest(ledger, prompt, seqs);
  // A reader inside the masked part reads it whole; one after it, only what follows.
  expect(before[1]).toBe("a [masked] b012345");
  expect(before[5]).toBe("12345");

  await ledger.compact("s1", prompt);
  const rows = await ledger.read("s1", { afterSeq: prompt });
  expect(rows.map((e) => e.seq)).toEqual([seqs[9]]);
  expect(await everyRest(ledger, prompt, seqs)).toEqual(before);
  await ledger.close();
});

// On a connection of its own (the ledger's spool left as it is): the spool's rows, and a
// session's events as stored (count, bytes).
function onDisk(path: string, id: string) {
  const db = new Database(path, { readonly: true });
  const one = (sql: string) => Number(db.prepare(sql).pluck().get(id));
  const out = {
    spool: Number(db.prepare("SELECT COUNT(*) FROM event_spool").pluck().get()),
    events: ["COUNT(*)", "COALESCE(SUM(bytes), 0)"].map(
      (f) =>
        one(`SELECT ${f} FROM events WHERE session_id = ?`) +
        one(`SELECT ${f} FROM event_journal WHERE session_id = ?`),
    ),
  };
  db.close();
  return out;
}

it("compacts a turn whose rows left the spool without folding the others' rows, counters exact", async () => {
  const { ledger, prompt } = await withPrompt();
  await ledger.createSession(session("s2"));
  await ledger.append("s2", "update", chunk("s2 before"));
  // The turn's reply folded in two parts (a read folds the spool), merged into one by compact.
  const turn = await stream(ledger, WORDS.slice(0, 20));
  expect(await ledger.read("s1", { afterSeq: prompt })).toHaveLength(1);
  turn.push(...(await stream(ledger, WORDS.slice(20))));
  const end = await ledger.append("s1", "turn_end", { stopReason: "end_turn" });
  // Resolves once the turn's rows are folded (the spool's timer): nothing of it is spooled.
  await ledger.whenCompactable!("s1", end);
  expect(onDisk(ledger.file, "s1").spool).toBe(0);
  // Meanwhile the other session streams, and s1's next turn begins.
  const s2 = await Promise.all(
    WORDS.map((w) => ledger.append("s2", "update", chunk(w))),
  );
  const next = await ledger.append("s1", "prompt", {});
  const { spool } = onDisk(ledger.file, "s1");
  expect(spool).toBeGreaterThan(0);

  await ledger.compact("s1", prompt, end);
  // The compaction folded nothing: the spooled rows are still there.
  expect(onDisk(ledger.file, "s1").spool).toBe(spool);
  // s1's next events take the next seqs; the turn is one event, x and y another (the fold).
  expect(await stream(ledger, ["x", "y"])).toEqual([next + 1, next + 2]);
  const seqs = (await ledger.read("s1")).map((e) => e.seq);
  expect(seqs).toEqual([prompt, turn.at(-1), end, next, next + 2]);
  const texts = (await ledger.events("s1"))
    .filter((e) => e.kind === "update")
    .map((e) => (e.payload as ReturnType<typeof chunk>).update.content.text);
  expect(texts).toEqual([WORDS.join(""), "xy"]);
  expect((await ledger.read("s2")).at(-1)?.seq).toBe(s2.at(-1));
  await ledger.close();
  // The counters the ledger held (written on the session's row at its close) are the stored
  // events', and the next event takes the next seq.
  const reopened = new SqliteLedger(ledger.file);
  const s1 = await reopened.getSession("s1");
  expect([s1?.eventCount, s1?.bytes]).toEqual(onDisk(ledger.file, "s1").events);
  expect(s1?.eventCount).toBe(seqs.length);
  expect(await reopened.append("s1", "update", chunk("z"))).toBe(next + 3);
  await reopened.close();
});

it("keeps a session's counters exact turn after turn, for its writer and for another reader", async () => {
  const { ledger } = await withPrompt();
  const reader = new SqliteLedger(ledger.file);
  // A compaction changes the counters by its runs alone: what each turn merged must leave them
  // equal to the stored events', however many turns came before.
  for (let turn = 0; turn < 6; turn++) {
    const prompt = await ledger.append("s1", "prompt", {});
    // One turn's reply read halfway by the other connection (which folds the spool): its rows
    // then lie in the journal in two parts, one of them the other connection's.
    await stream(ledger, WORDS.slice(0, 10 + turn));
    if (turn % 2) await reader.read("s1", { afterSeq: prompt });
    await stream(ledger, WORDS.slice(10 + turn));
    const end = await ledger.append("s1", "turn_end", {});
    await ledger.whenCompactable!("s1", end);
    await ledger.compact("s1", prompt, end);
    const stored = onDisk(ledger.file, "s1").events;
    for (const l of [ledger, reader]) {
      const s1 = await l.getSession("s1");
      expect([s1?.eventCount, s1?.bytes]).toEqual(stored);
    }
  }
  // One merged reply per turn besides its prompt and end (and the first prompt).
  expect(onDisk(ledger.file, "s1").events[0]).toBe(1 + 6 * 3);
  await Promise.all([ledger.close(), reader.close()]);
  const reopened = new SqliteLedger(ledger.file);
  const s1 = await reopened.getSession("s1");
  expect([s1?.eventCount, s1?.bytes]).toEqual(onDisk(ledger.file, "s1").events);
  await reopened.close();
});

it("counts a turn's compaction from its own rows: the rows of the turns before are not read again", async () => {
  const { ledger, prompt } = await withPrompt();
  const end = async (from: number) => {
    await stream(ledger, WORDS);
    const last = await ledger.append("s1", "turn_end", {});
    await ledger.whenCompactable!("s1", last);
    await ledger.compact("s1", from, last);
  };
  await end(prompt);
  const before = await ledger.getSession("s1");
  // An earlier row's `bytes` changed behind the ledger's back: a compaction that reads the
  // session's history again (a recount) would count it; one that counts its runs does not.
  const db = new Database(ledger.file);
  db.prepare(
    "UPDATE events SET bytes = bytes + 1000 WHERE session_id = 's1' AND seq = ?",
  ).run(prompt);
  db.close();
  const next = await ledger.append("s1", "prompt", {});
  await end(next);
  const after = await ledger.getSession("s1");
  // The turn's own rows, as stored.
  const look = new Database(ledger.file, { readonly: true });
  const turn = ["events", "event_journal"]
    .map((t) =>
      Number(
        look
          .prepare(
            `SELECT COALESCE(SUM(bytes), 0) FROM ${t} WHERE session_id = 's1' AND seq >= ?`,
          )
          .pluck()
          .get(next),
      ),
    )
    .reduce((a, b) => a + b);
  look.close();
  expect(after?.eventCount).toBe(before!.eventCount + 3);
  expect(after?.bytes).toBe(before!.bytes + turn);
  await ledger.close();
});
