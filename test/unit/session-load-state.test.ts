// session/load marks the session active in the ledger only when it is not: loading a session
// left open writes nothing (on PostgreSQL, no lock on its row beside a running turn's batches).
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { loadAndReplay, requireRecord } from "../../src/engine/session-ops.js";
import type { GatewayParts } from "../../src/engine/parts.js";
import type { ReplayPart } from "../../src/engine/ledger-port.js";
import { tempDir } from "../helpers/mock.js";
import { session } from "../ledger/contract.js";

const ledger = new SqliteLedger(join(tempDir("acphub-load-state-"), "l.db"));
afterAll(() => ledger.close());

describe("session/load and the session's state", () => {
  it("writes nothing for a session left open, and makes a closed one active again", async () => {
    await ledger.createSession(session("s1"));
    await ledger.append("s1", "update", { update: { sessionUpdate: "x" } });
    const patches: unknown[] = [];
    const update = ledger.updateSession.bind(ledger);
    ledger.updateSession = (id, patch) => {
      patches.push(patch);
      return update(id, patch);
    };
    const replayed: (readonly ReplayPart[])[] = [];
    const parts = {
      ledger,
      editor: {
        takesFrames: false,
        replay: (_id: string, events: readonly ReplayPart[]) => {
          replayed.push(events);
          return Promise.resolve();
        },
        tell: () => Promise.resolve(),
      },
    } as unknown as Pick<GatewayParts, "ledger" | "editor">;
    const load = () =>
      loadAndReplay(parts, "s1", (id) => requireRecord(parts, id));

    await load();
    expect(patches).toEqual([]);

    await update("s1", { state: "closed" });
    expect((await load()).state).toBe("closed");
    expect(patches).toEqual([{ state: "active" }]);
    expect((await ledger.getSession("s1"))?.state).toBe("active");
    expect(replayed).toHaveLength(2);
    expect(replayed[1]).toHaveLength(1);
  });
});
