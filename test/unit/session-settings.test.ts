// The per-session settings cache: written through to the ledger, bounded (the sessions used
// last), and trimmed when a session is closed or deleted; what left it is read back from the
// ledger, so nothing is lost.
import { describe, expect, it } from "vitest";
import type { LedgerPort, SessionRecord } from "../../src/engine/ports.js";
import { endSession } from "../../src/engine/session-ops.js";
import { SettingsStore } from "../../src/engine/session-settings.js";
import { SessionTable } from "../../src/engine/session-table.js";
import { silentLogger } from "../../src/shared/logger.js";

// A ledger of session rows only: what the settings store and endSession use.
function rowsLedger() {
  const rows = new Map<string, SessionRecord>();
  const add = (id: string) =>
    rows.set(id, { id, state: "active", settings: null } as SessionRecord);
  const ledger = {
    getSession: (id: string) => Promise.resolve(rows.get(id)),
    saveSettings: (id: string, settings: Record<string, unknown>) => {
      const row = rows.get(id);
      if (row) row.settings = settings;
      return Promise.resolve();
    },
    updateSession: (id: string, patch: Partial<SessionRecord>) => {
      const row = rows.get(id);
      if (row) Object.assign(row, patch);
      return Promise.resolve();
    },
    deleteSession: (id: string) => Promise.resolve(rows.delete(id)),
  } as unknown as LedgerPort;
  return { ledger, rows, add };
}

const mode = (id: string) => ({
  modes: { currentModeId: id, availableModes: [] },
});

describe("SettingsStore", () => {
  it("holds at most maxCached sessions; one that left is read from the ledger again", async () => {
    const { ledger, add } = rowsLedger();
    const store = new SettingsStore(ledger, 3);
    for (let i = 0; i < 10; i++) {
      add(`s${i}`);
      await store.set(`s${i}`, mode(`m${i}`));
    }
    expect(store.size).toBe(3);
    expect(await store.get("s0")).toEqual(mode("m0"));
    expect(store.size).toBe(3);
  });

  it("keeps the session used last: a get counts as a use", async () => {
    const { ledger, rows, add } = rowsLedger();
    const store = new SettingsStore(ledger, 2);
    for (const id of ["a", "b"]) {
      add(id);
      await store.set(id, mode(id));
    }
    await store.get("a");
    add("c");
    await store.set("c", mode("c"));
    // "a" stayed cached: a change in the ledger behind the cache is not seen for it...
    rows.get("a")!.settings = mode("changed");
    expect(await store.get("a")).toEqual(mode("a"));
    // ...while "b" left the cache and is read from the ledger.
    rows.get("b")!.settings = mode("changed");
    expect(await store.get("b")).toEqual(mode("changed"));
  });

  it("a closed or deleted session leaves the cache", async () => {
    const { ledger, add } = rowsLedger();
    const settings = new SettingsStore(ledger);
    const parts = {
      ledger,
      logger: silentLogger(),
      sessions: new SessionTable(),
      settings,
    };
    for (const id of ["closed", "deleted", "kept"]) {
      add(id);
      await settings.set(id, mode(id));
    }
    await endSession(parts, (await ledger.getSession("closed"))!, "close");
    await endSession(parts, (await ledger.getSession("deleted"))!, "delete");
    expect(settings.size).toBe(1);
    // The closed session's settings are still in the ledger, for a later load.
    expect(await settings.get("closed")).toEqual(mode("closed"));
    expect(await settings.get("deleted")).toEqual({});
  });

  it("a session read back while its settings are still being written gets the written ones", async () => {
    const { ledger, add } = rowsLedger();
    let release = () => {};
    const slow = {
      ...ledger,
      // A copy of the row as it is now, as a database read would give.
      getSession: async (id: string) => {
        const row = await ledger.getSession(id);
        return row && { ...row };
      },
      saveSettings: (id: string, s: Record<string, unknown>) =>
        new Promise<void>((resolve) => {
          release = () => {
            void ledger.saveSettings(id, s).then(resolve);
          };
        }),
    } as unknown as LedgerPort;
    const store = new SettingsStore(slow, 1);
    add("a");
    add("b");
    const written = store.set("a", mode("x"));
    await store.get("b"); // "a" leaves the cache before its write is stored
    const again = store.get("a");
    await new Promise((resolve) => setImmediate(resolve)); // a read now would find nothing
    release();
    await written;
    expect(await again).toEqual(mode("x"));
  });

  it("takes a record just read (session/load) without reading it again, unless it may know newer settings", async () => {
    const { ledger, rows, add } = rowsLedger();
    let reads = 0;
    const counted = {
      ...ledger,
      getSession: (id: string) => {
        reads += 1;
        return ledger.getSession(id);
      },
    } as unknown as LedgerPort;
    const store = new SettingsStore(counted, 1);
    const record = (id: string, m: string) => () =>
      Promise.resolve({ id, settings: mode(m) });
    add("a");
    add("b");
    rows.get("a")!.settings = mode("stored");
    await store.withRecord(record("a", "stored"));
    expect(await store.get("a")).toEqual(mode("stored"));
    expect(reads).toBe(0);
    // A record read while a change is made here does not undo it, even once the change has
    // left the cache and is stored.
    await store.withRecord(async () => {
      await store.set("a", mode("newer"));
      await store.get("b"); // "a" leaves the cache
      return { id: "a", settings: mode("stored") };
    });
    expect(await store.get("a")).toEqual(mode("newer"));
    expect(reads).toBe(2); // "b", then "a" again
    // A cached value is kept as it is.
    await store.withRecord(record("a", "other"));
    expect(await store.get("a")).toEqual(mode("newer"));
  });
});
