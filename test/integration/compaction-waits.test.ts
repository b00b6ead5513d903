// A finished turn's compaction waits a moment, then merges its chunks; the gateway's close runs
// pending ones at once. Each wait used to hold a listener on the gateway's one AbortSignal until
// its timer fired: a busy hub with many turns ending together stacked them past Node's limit of
// ten (MaxListenersExceededWarning during bench/serve.mjs). This runs more turns than that while
// their compactions still wait, and checks that nothing warns and every compaction still runs.
// A compaction also waits for the ledger's word that the turn's rows are where compacting them
// costs the other sessions nothing (SQLite: out of its spool), or for the close.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Gateway } from "../../src/engine/gateway.js";
import type { EditorPort } from "../../src/engine/ports.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { connectMock, steps, tempDir, waitFor } from "../helpers/mock.js";

const TURNS = 12;
const CHUNKS = 4;

const quietEditor: EditorPort = {
  notify: () => Promise.resolve(),
  request: () => Promise.reject(new Error("no requests here")),
};

// A gateway over a SQLite ledger whose compactions are recorded (the ledger's spool merges
// chunks before them, so the stored rows cannot tell), with `turns` sessions of one turn each.
async function turnsRun(
  turns: number,
  compactAfterMs: number,
  adjust: (ledger: SqliteLedger) => void = () => {},
) {
  const ledger = new SqliteLedger(join(tempDir(), "ledger.db"));
  const compacted: string[] = [];
  const compact = ledger.compact;
  ledger.compact = (id, after, upto) => {
    compacted.push(id);
    return compact(id, after, upto);
  };
  adjust(ledger);
  const gateway = new Gateway({
    agentName: "mock",
    ledger,
    connect: () => connectMock(),
    compactAfterMs,
  });
  gateway.attachEditor(quietEditor);
  await gateway.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const ids: string[] = [];
  for (let i = 0; i < turns; i++) {
    const { sessionId } = (await gateway.newSession({
      cwd: tempDir(),
      mcpServers: [],
    })) as { sessionId: string };
    ids.push(sessionId);
    const text = steps({ text: "one two three four", chunks: CHUNKS });
    await gateway.prompt(
      { sessionId, prompt: [{ type: "text", text }] },
      new AbortController().signal,
    );
  }
  return { ledger, gateway, compacted, ids };
}

describe("compactions waiting after turns", () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => void warnings.push(warning);
  beforeEach(() => void process.on("warning", onWarning));
  afterEach(() => void process.off("warning", onWarning));

  it("add no listener per turn, and all run when the gateway closes", async () => {
    // Longer than the test: every compaction is still waiting at close.
    const { ledger, gateway, compacted, ids } = await turnsRun(TURNS, 600_000);
    // A warning is emitted on a later tick than the listener that caused it.
    await new Promise((r) => setImmediate(r));
    expect(compacted).toEqual([]);
    await gateway.close();
    expect([...compacted].sort()).toEqual([...ids].sort());
    expect(warnings.map((w) => w.name)).not.toContain(
      "MaxListenersExceededWarning",
    );
    // Each turn's chunks were merged into one update by the close.
    const reopened = new SqliteLedger(ledger.file);
    for (const id of ids) {
      const updates = (await reopened.events(id)).filter(
        (e) => e.kind === "update",
      );
      expect(updates).toHaveLength(1);
    }
    await reopened.close();
  });

  it("wait for the ledger's word that a turn is compactable, or for the close", async () => {
    // The ledger says when each turn (by its last seq) may be compacted.
    const asked: { id: string; upto: number; ready: () => void }[] = [];
    const { ledger, gateway, compacted, ids } = await turnsRun(2, 0, (l) => {
      l.whenCompactable = (id, upto) =>
        new Promise<void>((ready) => asked.push({ id, upto, ready }));
    });
    await waitFor(() => asked.length === 2);
    // Asked with each turn's last event; no compaction before the word.
    const [first, second] = asked;
    const last = async (id: string) => (await ledger.read(id)).at(-1)?.seq;
    expect(first?.upto).toBe(await last(first!.id));
    expect(compacted).toEqual([]);
    first!.ready();
    await waitFor(() => compacted.length === 1);
    expect(compacted).toEqual([first!.id]);
    // The second never has the word: the close compacts it anyway.
    await gateway.close();
    expect([...compacted].sort()).toEqual([...ids].sort());
    expect(second?.id).not.toBe(first?.id);
  });
});
