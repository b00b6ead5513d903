// The ledger contract: what every LedgerPort implementation must do, run against SQLite and a
// real PostgreSQL by the test files next to this one.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import type {
  LedgerPort,
  NewSessionRecord,
} from "../../src/engine/ledger-port.js";
import type { LedgerCaps } from "../../src/ledger/caps.js";
import { cutContract } from "./contract-cut.js";
import { countsContract } from "./contract-counts.js";
import { pageContract } from "./contract-page.js";
import { replayContract } from "./contract-replay.js";
import { searchContract } from "./contract-search.js";
import { usageContract, type Downgrade } from "./contract-usage.js";

export interface LedgerFactory {
  /** A new, empty ledger; `where` names it for child processes (file path or URL). */
  create(
    caps?: Partial<LedgerCaps>,
  ): Promise<{ ledger: LedgerPort; where: string }>;
  /** The same ledger opened again. */
  reopen(where: string, caps?: Partial<LedgerCaps>): Promise<LedgerPort>;
  /** Overwrites event `seq` with text that is not a JSON object of a session, behind the ledger's back. */
  damage(where: string, sessionId: string, seq: number): Promise<void>;
  /** Takes the ledger back to the schema before the usage table, behind its back. */
  downgradeUsage: Downgrade;
  /** When runs of text chunks are merged as they are stored, before their turn's compaction:
   * across batches ("spool": SQLite's spool folds them) or within one group-commit batch
   * ("batch": PostgreSQL). Reads then give the merged text where the others give each chunk. */
  mergesAsWritten?: "spool" | "batch";
}

export const session = (
  id: string,
  updatedAt = Date.now(),
  cwd = "/w",
): NewSessionRecord => ({
  id,
  agent: "a",
  cwd,
  title: null,
  createdAt: updatedAt,
  updatedAt,
  state: "active",
  agentSessionId: `ag-${id}`,
  request: { mcpServers: [] },
});

const chunk = (text: string, extra: Record<string, unknown> = {}) => ({
  update: {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    ...extra,
  },
});

const WRITER = fileURLToPath(new URL("./writer-process.mjs", import.meta.url));

/** A child process appending to the ledger, printing each seq once its append resolved. */
export function writerProcess(
  where: string,
  sessionId: string,
  count: number,
  tag: string,
) {
  const child = spawn(
    process.execPath,
    [WRITER, where, sessionId, String(count), tag],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const acknowledged: number[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => acknowledged.push(Number(line)));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  return { child, acknowledged, lines, exited };
}

export function ledgerContract(factory: LedgerFactory): void {
  cutContract(factory);
  countsContract(factory);
  pageContract(factory);
  replayContract(factory);
  searchContract(factory);
  usageContract(factory, factory.downgradeUsage);
  it("appends in call order, with growing sequence numbers, and reads back what was stored", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const seqs = await Promise.all([
      ledger.append("s1", "prompt", { prompt: [] }),
      ledger.append("s1", "update", JSON.stringify(chunk("a"))),
      ledger.append("s1", "update", chunk("b", { messageId: "m2" })),
    ]);
    expect(seqs).toEqual([1, 2, 3]);
    const stored = await ledger.read("s1");
    expect(stored.map((e) => [e.seq, e.kind, e.text])).toEqual([
      [1, "prompt", '{"prompt":[]}'],
      [2, "update", JSON.stringify(chunk("a"))],
      [3, "update", JSON.stringify(chunk("b", { messageId: "m2" }))],
    ]);
    expect(
      (await ledger.read("s1", { afterSeq: 1, uptoSeq: 2 })).map((e) => e.seq),
    ).toEqual([2]);
    expect(await ledger.getSession("s1")).toMatchObject({
      eventCount: 3,
      incomplete: false,
      request: { mcpServers: [] },
    });
    await expect(ledger.append("nope", "update", {})).rejects.toMatchObject({
      code: "SESSION_NOT_FOUND",
    });
    await ledger.close();
  });

  it("trims the oldest events past the caps, keeps the newest, and marks the session incomplete", async () => {
    const { ledger } = await factory.create({
      maxEventsPerSession: 5,
      maxBytesPerSession: 1000,
    });
    await ledger.createSession(session("s1"));
    for (let i = 1; i <= 8; i++) await ledger.append("s1", "update", { i });
    expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
      4, 5, 6, 7, 8,
    ]);
    expect(await ledger.getSession("s1")).toMatchObject({
      eventCount: 5,
      incomplete: true,
    });
    await ledger.append("s1", "update", { big: "x".repeat(900) });
    expect((await ledger.getSession("s1"))!.bytes).toBeLessThanOrEqual(1000);
    expect((await ledger.events("s1")).at(-1)?.payload["big"]).toHaveLength(
      900,
    );
    await ledger.close();
  });

  it("evicts the least recently updated sessions past maxSessions", async () => {
    const { ledger } = await factory.create({ maxSessions: 3 });
    for (const [id, t] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
      ["d", 4],
    ] as const)
      await ledger.createSession(session(id, t));
    expect(await ledger.getSession("a")).toBeUndefined();
    expect((await ledger.listSessions({})).sessions.map((s) => s.id)).toEqual([
      "d",
      "c",
      "b",
    ]);
    await ledger.close();
  });

  it("past a lowered maxSessions, the next new session evicts down to it: the least recently updated first, ties by id", async () => {
    const { ledger, where } = await factory.create({ maxSessions: 10 });
    for (const [id, t] of [
      ["e", 5],
      ["b", 2],
      ["a", 2],
      ["c", 2],
      ["d", 4],
    ] as const)
      await ledger.createSession(session(id, t));
    await ledger.close();
    const again = await factory.reopen(where, { maxSessions: 4 });
    await again.createSession(session("new", 1));
    const left = (await again.listSessions({})).sessions.map((s) => s.id);
    expect(left.sort()).toEqual(["c", "d", "e", "new"]);
    await again.close();
  });

  it("deletes sessions older than retentionDays when opened", async () => {
    const { ledger, where } = await factory.create();
    await ledger.createSession(session("old", Date.now() - 3 * 86_400_000));
    await ledger.createSession(session("new"));
    await ledger.close();
    const again = await factory.reopen(where, { retentionDays: 2 });
    expect(await again.getSession("old")).toBeUndefined();
    expect(await again.getSession("new")).toBeDefined();
    await again.close();
  });

  it("compacts a reply stored over several batches into one event, counted", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const before = await ledger.append("s1", "prompt", { prompt: [] });
    const words: string[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const some = Array.from({ length: 20 }, (_, i) => `b${batch}w${i} `);
      words.push(...some);
      await Promise.all(
        some.map((w) => ledger.append("s1", "update", chunk(w))),
      );
    }
    await ledger.compact("s1", before);
    const events = await ledger.events("s1");
    expect(events.map((e) => e.kind)).toEqual(["prompt", "update"]);
    const update = events[1]!.payload["update"] as {
      content: { text: string };
    };
    expect(update.content.text).toBe(words.join(""));
    expect(events[1]!.seq).toBe(before + words.length);
    expect((await ledger.getSession("s1"))?.eventCount).toBe(2);
    await ledger.close();
  });

  it("compacts a turn's chunk runs into one event each, keeping order, _meta and messageId boundaries", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    const before = await ledger.append("s1", "update", chunk("earlier "));
    await ledger.append("s1", "update", chunk("turn "));
    await ledger.append("s1", "prompt", {
      prompt: [{ type: "text", text: "hi" }],
    });
    const appends = [];
    for (let i = 0; i < 1000; i++)
      appends.push(
        ledger.append("s1", "update", chunk(`${i % 10}`, { messageId: "m1" })),
      );
    appends.push(
      ledger.append("s1", "update", {
        update: { sessionUpdate: "tool_call", toolCallId: "t" },
      }),
    );
    appends.push(
      ledger.append("s1", "update", chunk("A", { messageId: "m2" })),
    );
    appends.push(
      ledger.append("s1", "update", chunk("B", { messageId: "m2" })),
    );
    appends.push(
      ledger.append("s1", "update", {
        ...chunk("C", { messageId: "m2" }),
        _meta: { x: 1 },
      }),
    );
    appends.push(
      ledger.append("s1", "update", {
        update: {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: "t1" },
        },
      }),
    );
    appends.push(
      ledger.append("s1", "update", {
        update: {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: "t2" },
        },
      }),
    );
    await Promise.all(appends);
    const midTurn = await ledger.read("s1");
    if (factory.mergesAsWritten) expect(midTurn.length).toBeLessThan(1009);
    else expect(midTurn).toHaveLength(1009);
    await ledger.compact("s1", before);
    const events = await ledger.events("s1");
    const texts = events.map((e) => {
      const u = e.payload["update"] as
        | {
            sessionUpdate?: string;
            content?: { text: string };
            messageId?: string;
          }
        | undefined;
      return e.kind === "prompt"
        ? "prompt"
        : `${u?.sessionUpdate}:${u?.content?.text ?? ""}:${u?.messageId ?? ""}:${JSON.stringify(e.payload["_meta"] ?? null)}`;
    });
    expect(texts).toEqual([
      ...(factory.mergesAsWritten === "spool" // two batches: only the spool merges them
        ? ["agent_message_chunk:earlier turn ::null"]
        : [
            "agent_message_chunk:earlier ::null",
            "agent_message_chunk:turn ::null",
          ]),
      "prompt",
      `agent_message_chunk:${"0123456789".repeat(100)}:m1:null`,
      "tool_call:::null",
      "agent_message_chunk:AB:m2:null",
      'agent_message_chunk:C:m2:{"x":1}',
      "agent_thought_chunk:t1t2::null",
    ]);
    expect(events.length).toBeLessThanOrEqual(10);
    const record = await ledger.getSession("s1");
    expect(record?.eventCount).toBe(events.length);
    expect(await ledger.append("s1", "update", chunk("next"))).toBeGreaterThan(
      events.at(-1)!.seq,
    );
    await ledger.close();
  });

  it("lists newest first, page by page, filtered by cwd; a bad cursor is a usage error", async () => {
    const { ledger } = await factory.create();
    for (let i = 0; i < 7; i++)
      await ledger.createSession(
        session(`s${i}`, 100 + i, i % 2 ? "/odd" : "/even"),
      );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await ledger.listSessions({
        cwd: "/even",
        cursor,
        limit: 2,
      });
      seen.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["s6", "s4", "s2", "s0"]);
    await expect(
      ledger.listSessions({ cursor: "garbage" }),
    ).rejects.toMatchObject({ code: "USAGE" });
    await ledger.close();
  });

  it("copies a session's events up to a sequence number (fork) and follows new batches", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s1"));
    for (let i = 1; i <= 4; i++) await ledger.append("s1", "update", { i });
    await ledger.copySession("s1", session("fork"), 3);
    expect((await ledger.events("fork")).map((e) => e.payload["i"])).toEqual([
      1, 2, 3,
    ]);
    expect(await ledger.append("fork", "update", { i: 9 })).toBe(4);
    const seen: number[] = [];
    const stop = ledger.follow("s1", (seq) => seen.push(seq));
    await Promise.all([
      ledger.append("s1", "update", { i: 5 }),
      ledger.append("s1", "update", { i: 6 }),
    ]);
    stop();
    await ledger.append("s1", "update", { i: 7 });
    expect(seen.at(-1)).toBe(6);
    await ledger.close();
  });

  it("a fork records its parent, its counters and next seq; it keeps its copy when the parent is evicted", async () => {
    const { ledger } = await factory.create({ maxSessions: 3 });
    await ledger.createSession(session("p", 1));
    for (const n of [1, 2, 3]) await ledger.append("p", "update", { n });
    await ledger.copySession("p", { ...session("f", 2), forkedFrom: "p" }, 2);
    expect(await ledger.getSession("f")).toMatchObject({
      eventCount: 2,
      forkedFrom: "p",
      incomplete: false,
    });
    expect(await ledger.append("f", "update", { n: 9 })).toBe(3);
    expect(await ledger.events("p")).toHaveLength(3);
    expect(await ledger.deleteSession("f")).toBe(true);
    await ledger.createSession(session("a", Date.now() + 10));
    await ledger.createSession(session("b", Date.now() + 20));
    await ledger.copySession("p", session("g", Date.now() + 30));
    expect(await ledger.getSession("p")).toBeUndefined();
    expect((await ledger.events("g")).map((e) => e.payload["n"])).toEqual([
      1, 2, 3,
    ]);
    await ledger.close();
  });

  it("refuses an append to a session deleted on the same connection, as a fresh one does", async () => {
    const { ledger } = await factory.create();
    await ledger.createSession(session("s"));
    await ledger.createSession(session("t"));
    await Promise.all([
      ledger.append("s", "update", { n: 1 }),
      ledger.append("t", "update", { n: 1 }),
    ]);
    expect(await ledger.deleteSession("s")).toBe(true);
    await expect(ledger.append("s", "update", { n: 2 })).rejects.toThrow(
      /no session s/,
    );
    expect(await ledger.append("t", "update", { n: 2 })).toBe(2);
    expect(await ledger.events("s")).toEqual([]);
    expect((await ledger.events("t")).map((e) => e.payload["n"])).toEqual([
      1, 2,
    ]);
    await ledger.close();
  });

  it("stores a session's settings (null until saved) and keeps them across a reopen", async () => {
    const { ledger, where } = await factory.create();
    await ledger.createSession(session("s"));
    expect((await ledger.getSession("s"))?.settings).toBeNull();
    expect((await ledger.getSession("s"))?.forkedFrom).toBeNull();
    const settings = { modes: { currentModeId: "code", availableModes: [] } };
    await ledger.saveSettings("s", { modes: { currentModeId: "ask" } });
    await ledger.saveSettings("s", settings);
    await ledger.close();
    const again = await factory.reopen(where);
    expect((await again.getSession("s"))?.settings).toEqual(settings);
    await again.close();
  });

  it("skips a damaged row and keeps the rest", async () => {
    const { ledger, where } = await factory.create();
    await ledger.createSession(session("s1"));
    for (let i = 1; i <= 3; i++) await ledger.append("s1", "update", { i });
    await ledger.read("s1"); // what a ledger holds apart (SQLite's spool) is in its log now
    await factory.damage(where, "s1", 2);
    expect((await ledger.events("s1")).map((e) => e.payload["i"])).toEqual([
      1, 3,
    ]);
    expect((await ledger.read("s1")).map((e) => e.seq)).toEqual([1, 3]);
    await ledger.close();
  });

  it("takes concurrent writers from two processes without losing or reordering an event", async () => {
    const { ledger, where } = await factory.create();
    await ledger.createSession(session("s1"));
    const a = writerProcess(where, "s1", 300, "a");
    const b = writerProcess(where, "s1", 300, "b");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const events = await ledger.events("s1");
    expect(events).toHaveLength(600);
    for (const tag of ["a", "b"]) {
      const mine = events
        .filter((e) => e.payload["tag"] === tag)
        .map((e) => e.payload["i"]);
      expect(mine).toEqual([...Array(300).keys()]);
    }
    expect(new Set(events.map((e) => e.seq)).size).toBe(600);
    await ledger.close();
  });

  it("keeps every acknowledged event when the writer is killed -9 between batches", async () => {
    const { ledger, where } = await factory.create();
    await ledger.createSession(session("s1"));
    const w = writerProcess(where, "s1", 100_000, "k");
    await new Promise<void>((resolve) =>
      w.lines.on("line", () => w.acknowledged.length >= 500 && resolve()),
    );
    w.child.kill("SIGKILL");
    await w.exited;
    const acknowledged = [...w.acknowledged];
    const after = await factory.reopen(where);
    const stored = new Set((await after.read("s1")).map((e) => e.seq));
    expect(acknowledged.length).toBeGreaterThanOrEqual(500);
    expect(acknowledged.filter((seq) => !stored.has(seq))).toEqual([]);
    expect(await after.append("s1", "update", { after: true })).toBeGreaterThan(
      Math.max(...acknowledged),
    );
    await after.close();
    await ledger.close();
  });
}
