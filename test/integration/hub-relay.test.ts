// The hub (`acphub serve`'s core) on the asynchronous ledger: an update reaches a hub client
// only after the ledger stored it, through the session's one ordered relay; and a client that
// attaches while a turn streams (session/load, a cursor) gets every update once, in order — the
// ledger's history first, then what was relayed while it was being read.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Gateway } from "../../src/engine/gateway.js";
import type { HubClient } from "../../src/hub/attachments.js";
import type { LedgerPort } from "../../src/engine/ports.js";
import { SessionHub } from "../../src/hub/session-hub.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import {
  POISONED_TURN,
  expectOnlyStored,
  poisonedLedger,
  withMethod,
} from "../helpers/ledger-proxies.js";
import { connectMock, steps, tempDir } from "../helpers/mock.js";

type Params = Record<string, unknown>;

// A hub client that records the session/updates it is sent: the agent's text chunks, and the
// seq of every update.
function recordingClient(id: string, onUpdate?: () => void) {
  const texts: string[] = [];
  const seqs: number[] = [];
  const client: HubClient = {
    id,
    closed: false,
    notify({ method, params }) {
      if (method !== "session/update") return;
      const p = params as {
        update: { sessionUpdate: string; content?: { text?: string } };
        _meta?: { acphub?: { seq?: number } };
      };
      if (p.update.sessionUpdate === "agent_message_chunk")
        texts.push(p.update.content?.text ?? "");
      const seq = p._meta?.acphub?.seq;
      if (seq !== undefined) seqs.push(seq);
      onUpdate?.();
    },
    request: () => Promise.reject(new Error("no requests here")),
  };
  return { client, texts, seqs };
}

function hubOver(ledger: LedgerPort): SessionHub {
  return new SessionHub({
    ledger,
    defaultAgent: "mock",
    createGateway: (name, shared, turns) =>
      new Gateway({
        agentName: name,
        ledger: shared,
        turns,
        connect: () => connectMock(),
      }),
  });
}

// A ledger whose history reads, while `gate.hold` is set, come back only once it resolves (as
// a read from a ledger on the network may be slow): updates go live while a client catches up.
function slowReads(
  ledger: LedgerPort,
  gate: { hold?: Promise<void> },
): LedgerPort {
  return withMethod(ledger, "events", (events) => async (...args) => {
    const read = await events(...args);
    await gate.hold;
    return read;
  });
}

const prompt = (text: string): Params => ({
  prompt: [{ type: "text", text }],
});

describe("the hub's relay", () => {
  it("never sends a hub client an update the ledger failed to store", async () => {
    const hub = hubOver(poisonedLedger());
    const a = recordingClient("a");
    hub.addClient(a.client);
    const { sessionId } = (await hub.newSession(a.client, {
      cwd: tempDir(),
      mcpServers: [],
    })) as { sessionId: string };
    const turn = hub.prompt(
      a.client,
      {
        sessionId,
        ...prompt(POISONED_TURN),
      },
      new AbortController().signal,
    );
    await expect(turn).rejects.toMatchObject({ code: "LEDGER_UNAVAILABLE" });
    expectOnlyStored(a.texts.join(""));
    await hub.close();
  });

  it("a client loading the session mid-turn gets every update once and in order", async () => {
    let turnEnded = () => {};
    const gate: { hold?: Promise<void> } = {};
    const hub = hubOver(
      slowReads(new SqliteLedger(join(tempDir(), "ledger.db")), gate),
    );
    const b = recordingClient("b");
    let loading: Promise<unknown> | undefined;
    let sessionId = "";
    // B loads the session while A's turn is streaming (after A got its 20th update); its read
    // of the history comes back only after the turn has ended, all of it relayed live.
    const a = recordingClient("a", () => {
      if (a.texts.length !== 20) return;
      gate.hold = new Promise<void>((resolve) => (turnEnded = resolve));
      loading = hub.loadSession(b.client, { sessionId });
    });
    hub.addClient(a.client);
    hub.addClient(b.client);
    sessionId = String(
      (await hub.newSession(a.client, { cwd: tempDir(), mcpServers: [] }))[
        "sessionId"
      ],
    );
    const reply = Array.from({ length: 600 }, (_, i) => `w${i} `).join("");
    const result = await hub.prompt(
      a.client,
      { sessionId, ...prompt(steps({ text: reply, chunks: 600 })) },
      new AbortController().signal,
    );
    expect(result["stopReason"]).toBe("end_turn");
    turnEnded();
    await loading;
    expect(a.texts.join("")).toContain(reply);
    // B got the same reply, each chunk once (history, then what was relayed meanwhile).
    expect(b.texts.join("")).toBe(a.texts.join(""));
    expect(b.seqs).toEqual([...new Set(b.seqs)].sort((x, y) => x - y));
    await hub.close();
  });
});
