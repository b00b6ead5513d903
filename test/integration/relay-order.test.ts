// The ledger-first rule and ordering of the relay (issue 15, item 7): an update reaches the editor
// only after the ledger stored it — a ledger that fails an append means the editor never sees
// that update — and events from outside a turn never overtake the turn's own queued events.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/contracts/events.js";
import { Gateway } from "../../src/engine/gateway.js";
import type {
  AgentPort,
  AgentSessionPort,
  EditorPort,
  TurnPort,
} from "../../src/engine/ports.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import {
  POISONED_TURN,
  expectOnlyStored,
  failingUpdates,
  poisonedLedger,
} from "../helpers/ledger-proxies.js";
import { connectMock, tempDir } from "../helpers/mock.js";

const text = (t: string) => [{ type: "text", text: t }];

// An editor that records what it was sent: as frames acphub wrote itself, or as notifications.
function recordingEditor(frames: boolean): {
  port: EditorPort;
  seen: () => string;
} {
  const got: string[] = [];
  const port: EditorPort = {
    notify: async (method, params) => {
      got.push(JSON.stringify({ method, params }));
    },
    request: () => Promise.reject(new Error("no requests here")),
    ...(frames ? { writeFrames: (t: string) => void got.push(t) } : {}),
  };
  return { port, seen: () => got.join("\n") };
}

describe("the relay", () => {
  it.each([true, false])(
    "never shows the editor an update the ledger failed to store (editor takes frames: %s)",
    async (frames) => {
      const gateway = new Gateway({
        agentName: "mock",
        ledger: poisonedLedger(),
        connect: () => connectMock(),
      });
      const editor = recordingEditor(frames);
      gateway.attachEditor(editor.port);
      await gateway.initialize({ protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = (await gateway.newSession({
        cwd: tempDir(),
        mcpServers: [],
      })) as { sessionId: string };
      const turn = gateway.prompt(
        {
          sessionId,
          prompt: text(POISONED_TURN),
        },
        new AbortController().signal,
      );
      await expect(turn).rejects.toMatchObject({ code: "LEDGER_UNAVAILABLE" });
      expectOnlyStored(editor.seen());
      await gateway.close();
    },
  );

  it("keeps an event from outside a turn behind the turn's own queued events", async () => {
    const listeners = new Set<(event: RunEvent) => void>();
    const chunk = (i: number): RunEvent => ({
      type: "session_update",
      sessionId: "a1",
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `c${i} ` },
      },
    });
    const session: AgentSessionPort = {
      id: "a1",
      state: {},
      prompt(): TurnPort {
        // The agent sent 50 chunks and its answer; then, before acphub drained them, a command list.
        const events = Array.from({ length: 50 }, (_, i) => chunk(i));
        queueMicrotask(() => {
          for (const listener of listeners)
            listener({
              type: "session_update",
              sessionId: "a1",
              update: {
                sessionUpdate: "available_commands_update",
                availableCommands: [],
              },
            });
        });
        return {
          result: Promise.resolve({
            stopReason: "end_turn",
            response: { stopReason: "end_turn" },
          }),
          cancel: () => undefined,
          async *[Symbol.asyncIterator]() {
            for (const event of events) {
              await new Promise((r) => setImmediate(r));
              yield event;
            }
          },
        };
      },
      cancel: () => undefined,
      onEvent(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      setMode: () => Promise.resolve(),
      setConfigOption: () => Promise.resolve(),
    };
    const agent = {
      alive: true,
      initializeResponse: { protocolVersion: 1, agentCapabilities: {} },
      supports: () => false,
      newSession: () => Promise.resolve(session),
      close: () => Promise.resolve(),
    } as unknown as AgentPort;
    const ledger = new SqliteLedger(join(tempDir(), "ledger.db"));
    const gateway = new Gateway({
      agentName: "fake",
      ledger,
      connect: () => Promise.resolve(agent),
    });
    const editor = recordingEditor(true);
    gateway.attachEditor(editor.port);
    await gateway.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await gateway.newSession({
      cwd: "/w",
      mcpServers: [],
    })) as { sessionId: string };
    await gateway.prompt(
      { sessionId, prompt: text("go") },
      new AbortController().signal,
    );
    const seen = editor.seen();
    expect(seen.indexOf("available_commands_update")).toBeGreaterThan(
      seen.indexOf("c49 "),
    );
    const stored = (await ledger.events(sessionId)).map((e) =>
      JSON.stringify(e.payload),
    );
    const commands = stored.findIndex((p) =>
      p.includes("available_commands_update"),
    );
    expect(commands).toBeGreaterThan(
      stored.findIndex((p) => p.includes("c49 ")),
    );
    await gateway.close();
  });

  it("outside a turn, a failed append is told to the editor and sending resumes with the next stored event", async () => {
    const listeners = new Set<(event: RunEvent) => void>();
    const say = (text: string) => {
      for (const listener of listeners)
        listener({
          type: "session_update",
          sessionId: "a1",
          update: {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text },
          },
        });
    };
    const session = {
      id: "a1",
      state: {},
      cancel: () => undefined,
      onEvent(listener: (event: RunEvent) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    } as unknown as AgentSessionPort;
    const agent = {
      alive: true,
      initializeResponse: { protocolVersion: 1, agentCapabilities: {} },
      supports: () => false,
      newSession: () => Promise.resolve(session),
      close: () => Promise.resolve(),
    } as unknown as AgentPort;
    let failOne = false;
    const ledger = failingUpdates(
      new SqliteLedger(join(tempDir(), "ledger.db")),
      () => {
        const fails = failOne;
        failOne = false;
        return fails;
      },
    );
    const gateway = new Gateway({
      agentName: "fake",
      ledger,
      connect: () => Promise.resolve(agent),
    });
    const editor = recordingEditor(false);
    gateway.attachEditor(editor.port);
    await gateway.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await gateway.newSession({
      cwd: "/w",
      mcpServers: [],
    })) as { sessionId: string };
    failOne = true;
    say("lost ");
    say("kept ");
    await gateway.settled(sessionId);
    const seen = editor.seen();
    expect(seen).not.toContain("lost ");
    expect(seen).toMatch(/could not be stored \(disk full\)/);
    expect(seen.indexOf("kept ")).toBeGreaterThan(
      seen.indexOf("could not be stored"),
    );
    const stored = JSON.stringify(await ledger.events(sessionId));
    expect(stored).toContain("kept ");
    await gateway.close();
  });
});
