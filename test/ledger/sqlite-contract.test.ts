// The ledger contract against the embedded SQLite ledger.
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";
import { ledgerContract, session } from "./contract.js";

describe("SQLite ledger contract", () => {
  ledgerContract({
    async create(caps) {
      const where = join(tempDir("acphub-ledger-"), "ledger.db");
      return { ledger: new SqliteLedger(where, { caps }), where };
    },
    async reopen(where, caps) {
      return new SqliteLedger(where, { caps });
    },
    async damage(where, sessionId, seq) {
      // The row is in the hot journal or, once moved, in events. It starts as an object does:
      // only the test of its end keeps it out of the frames a replay joins in SQL.
      const db = new Database(where);
      for (const table of ["events", "event_journal"])
        db.prepare(
          `UPDATE ${table} SET payload = '{"not json' WHERE session_id = ? AND seq = ?`,
        ).run(sessionId, seq);
      db.close();
    },
    async downgradeUsage(where) {
      const db = new Database(where);
      db.exec("DROP TABLE usage; DROP TABLE user_secrets");
      db.pragma("user_version = 5");
      db.close();
    },
    mergesAsWritten: "spool",
  });
});

describe("SQLite ledger: compaction of a run whose merged text reveals a secret", () => {
  it("masks the secret split across chunks, keeps no chunk list, and gives a cursor inside the whole run", async () => {
    const where = join(tempDir("acphub-ledger-"), "ledger.db");
    const ledger = new SqliteLedger(where, {
      mask: (text) => text.replaceAll("s3cret", "***"),
    });
    await ledger.createSession(session("s1"));
    const prompt = await ledger.append("s1", "prompt", { prompt: [] });
    const say = (text: string) => ({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text },
      },
    });
    const seqs = await Promise.all(
      ["key s3", "cret", " end"].map((t) =>
        ledger.append("s1", "update", say(t)),
      ),
    );
    await ledger.compact("s1", prompt);
    const all = await ledger.read("s1", { afterSeq: prompt });
    expect(all.map((e) => e.text)).toEqual([
      JSON.stringify(say("key *** end")),
    ]);
    const inside = await ledger.read("s1", { afterSeq: seqs[0] });
    expect(inside.map((e) => e.text)).toEqual([
      JSON.stringify(say("key *** end")),
    ]);
    await ledger.close();
  });
});
