// The users' sealed secrets (issue 36) on both ledgers: the same table and answers on SQLite
// (schema 7) and PostgreSQL (schema 9): put replaces, lists give names and times only, removing
// a user removes their secrets, and what is stored is the sealed text app/ gave, as given.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SecretStore } from "../../src/contracts/user-secrets.js";
import type { UserStore } from "../../src/contracts/users.js";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { addUser } from "../../src/app/user-admin.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";
import { tempDir } from "../helpers/mock.js";

let server: PgServer;
beforeAll(async () => {
  server = await startPostgres({ fsync: false });
});
afterAll(() => server?.stop());

type Opened = {
  secrets: SecretStore;
  users: UserStore;
  close(): Promise<void>;
};

describe.each([
  [
    "SQLite",
    async (): Promise<Opened> => new SqliteLedger(join(tempDir(), "ledger.db")),
  ],
  [
    "PostgreSQL",
    async (): Promise<Opened> => PostgresLedger.open(await server.database()),
  ],
])("the secret store on %s", (_engine, open) => {
  it(
    "puts, replaces, lists names only, removes, and goes with its user",
    { timeout: 60_000 },
    async () => {
      const ledger = await open();
      try {
        const { secrets, users } = ledger;
        await addUser(users, "alice", "member");
        expect(await secrets.anySecret()).toBeUndefined();
        await secrets.putSecret({
          user: "alice",
          name: "B_KEY",
          sealed: "v1.x.AAA",
          updatedAt: 1,
        });
        await secrets.putSecret({
          user: "alice",
          name: "A_KEY",
          sealed: "v1.x.BBB",
          updatedAt: 2,
        });
        await secrets.putSecret({
          user: "alice",
          name: "B_KEY",
          sealed: "v1.x.CCC",
          updatedAt: 3,
        });
        await secrets.putSecret({
          user: "bob",
          name: "A_KEY",
          sealed: "v1.x.DDD",
          updatedAt: 4,
        });
        expect(await secrets.listSecrets("alice")).toEqual([
          { name: "A_KEY", updatedAt: 2 },
          { name: "B_KEY", updatedAt: 3 },
        ]);
        expect(
          (await secrets.sealedSecrets("alice")).map((s) => s.sealed),
        ).toEqual(["v1.x.BBB", "v1.x.CCC"]);
        expect(await secrets.removeSecret("alice", "A_KEY")).toBe(true);
        expect(await secrets.removeSecret("alice", "A_KEY")).toBe(false);
        expect(await users.removeUser("alice")).toBe(true);
        expect(await secrets.listSecrets("alice")).toEqual([]);
        expect(await secrets.sealedSecrets("bob")).toEqual([
          { user: "bob", name: "A_KEY", sealed: "v1.x.DDD", updatedAt: 4 },
        ]);
        expect(await secrets.anySecret()).toMatchObject({ user: "bob" });
      } finally {
        await ledger.close();
      }
    },
  );
});
