// The user store (issue 22) on both ledgers: users with hashed tokens, one-time login codes,
// session grants, the version other processes poll, and the audit log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { UserStore } from "../../src/contracts/users.js";
import type { LedgerPort } from "../../src/engine/ports.js";
import { PostgresLedger } from "../../src/ledger/postgres/pg-ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { userStoreOf } from "../../src/ledger/open.js";
import { tempDir } from "../helpers/mock.js";
import { startPostgres, type PgServer } from "../helpers/postgres.js";

const user = (
  name: string,
  role: "admin" | "member" | "viewer" = "member",
) => ({
  name,
  role,
  tokenHash: "ab".repeat(32),
  createdAt: 1,
  limits: null,
});

// The same checks on each engine: `open` gives a fresh ledger, and a second one on its database.
function storeContract(
  open: () => Promise<[LedgerPort, () => Promise<LedgerPort>]>,
) {
  it("adds, refuses a duplicate, rotates and removes users; the version grows on each", async () => {
    const [ledger] = await open();
    const store = userStoreOf(ledger);
    const v0 = await store.usersVersion();
    await store.addUser(user("alice"));
    await expect(store.addUser(user("alice"))).rejects.toThrow(
      "a user named alice already exists",
    );
    await store.addUser({
      ...user("bob", "viewer"),
      tokenHash: "cd".repeat(32),
    });
    expect((await store.listUsers()).map((u) => [u.name, u.role])).toEqual([
      ["alice", "member"],
      ["bob", "viewer"],
    ]);
    expect(await store.setTokenHash("bob", "ef".repeat(32))).toBe(true);
    expect((await store.getUser("bob"))?.tokenHash).toBe("ef".repeat(32));
    expect(await store.setTokenHash("nobody", "ef".repeat(32))).toBe(false);
    expect(await store.setLimits("bob", { liveSessions: 2 })).toBe(true);
    expect((await store.getUser("bob"))?.limits).toEqual({ liveSessions: 2 });
    expect(await store.setLimits("nobody", null)).toBe(false);
    expect(await store.removeUser("alice")).toBe(true);
    expect(await store.removeUser("alice")).toBe(false);
    expect(await store.getUser("alice")).toBeUndefined();
    expect(await store.usersVersion()).toBe(v0 + 5);
    await ledger.close();
  });

  it("spends a login code once, never after it expired, and seen from another process", async () => {
    const [ledger, again] = await open();
    const store = userStoreOf(ledger);
    await store.addUser(user("carol"));
    await store.addLoginCode("c1", "carol", Date.now() + 60_000);
    await store.addLoginCode("c2", "carol", Date.now() - 1);
    const other = await again();
    const otherStore = userStoreOf(other);
    expect(await otherStore.redeemLoginCode("c1", Date.now())).toBe("carol");
    expect(await store.redeemLoginCode("c1", Date.now())).toBeUndefined();
    expect(await store.redeemLoginCode("c2", Date.now())).toBeUndefined();
    expect(await store.redeemLoginCode("nope", Date.now())).toBeUndefined();
    await other.close();
    await ledger.close();
  });

  it("keeps grants per session, drops a removed user's, and never revokes or demotes the owner", async () => {
    const [ledger] = await open();
    const store: UserStore = userStoreOf(ledger);
    await ledger.createSession({
      id: "s1",
      agent: "mock",
      cwd: "/",
      title: null,
      createdAt: 1,
      updatedAt: 1,
      state: "active",
      agentSessionId: null,
      request: {},
    });
    await store.addUser(user("dave"));
    await store.addUser({ ...user("erin"), tokenHash: "cd".repeat(32) });
    await store.grant({ sessionId: "s1", user: "dave", role: "owner" });
    await store.grant({ sessionId: "s1", user: "erin", role: "viewer" });
    await store.grant({ sessionId: "s1", user: "erin", role: "driver" });
    expect(await store.grantsOf("s1")).toEqual([
      { sessionId: "s1", user: "dave", role: "owner" },
      { sessionId: "s1", user: "erin", role: "driver" },
    ]);
    expect(await store.revoke("s1", "dave")).toBe(false);
    // Whatever path writes it, an owner's grant is never demoted (issue 34, item 6).
    await expect(
      store.grant({ sessionId: "s1", user: "dave", role: "viewer" }),
    ).rejects.toThrow("dave owns session s1");
    await store.grant({ sessionId: "s1", user: "dave", role: "owner" });
    expect((await store.grantsOf("s1"))[0]).toEqual({
      sessionId: "s1",
      user: "dave",
      role: "owner",
    });
    const erin = { sessionId: "s1", user: "erin", role: "driver" };
    expect(await store.grantsOf("s1")).toContainEqual(erin);
    await store.removeUser("erin");
    expect(await store.grantsOf("s1")).not.toContainEqual(erin);
    await ledger.deleteSession("s1");
    expect(await store.grantsOf("s1")).toEqual([]);
    await ledger.close();
  });

  it("writes and filters the audit log", async () => {
    const [ledger] = await open();
    const store = userStoreOf(ledger);
    await store.audit({
      at: 10,
      user: "a",
      action: "login",
      sessionId: null,
      detail: null,
    });
    await store.audit({
      at: 20,
      user: "b",
      action: "session.share",
      sessionId: "s",
      detail: { with: "a" },
    });
    expect((await store.auditLog({})).map((e) => e.action)).toEqual([
      "login",
      "session.share",
    ]);
    expect(await store.auditLog({ since: 15, user: "b" })).toEqual([
      {
        at: 20,
        user: "b",
        action: "session.share",
        sessionId: "s",
        detail: { with: "a" },
      },
    ]);
    // The admin page's filters (issue 38): action, session, a range's end, newest first, pages.
    const actions = async (f: Parameters<typeof store.auditLog>[0]) =>
      (await store.auditLog(f)).map((e) => e.action);
    expect(await actions({ action: "login" })).toEqual(["login"]);
    expect(await actions({ sessionId: "s" })).toEqual(["session.share"]);
    expect(await actions({ until: 20 })).toEqual(["login"]);
    expect(await actions({ newestFirst: true })).toEqual([
      "session.share",
      "login",
    ]);
    expect(await actions({ newestFirst: true, limit: 1, offset: 1 })).toEqual([
      "login",
    ]);
    expect(await actions({ offset: 2 })).toEqual([]);
    await ledger.close();
  });
}

describe("user store on SQLite", () => {
  storeContract(async () => {
    const file = join(tempDir(), "ledger.db");
    return [
      new SqliteLedger(file),
      () => Promise.resolve(new SqliteLedger(file)),
    ];
  });
});

describe("user store on PostgreSQL", () => {
  let server: PgServer;
  beforeAll(async () => {
    server = await startPostgres({ fsync: false });
  });
  afterAll(() => server?.stop());
  storeContract(async () => {
    const where = await server.database();
    return [await PostgresLedger.open(where), () => PostgresLedger.open(where)];
  });
});
