// The ledger contract against the embedded SQLite ledger.
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { tempDir } from "../helpers/mock.js";
import { ledgerContract } from "./contract.js";

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
      const db = new Database(where);
      db.prepare(
        "UPDATE events SET payload = 'not json' WHERE session_id = ? AND seq = ?",
      ).run(sessionId, seq);
      db.close();
    },
  });
});
