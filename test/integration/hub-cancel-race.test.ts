// A session/cancel that follows a prompt to the hub cancels it even while the hub is still
// checking the prompt (reading the session's record from a slow ledger): before, the cancel
// reached the engine before the prompt did, found no turn, and the prompt then ran to its end.
import { join } from "node:path";
import { expect, it } from "vitest";
import { Gateway } from "../../src/engine/gateway.js";
import type { HubClient } from "../../src/hub/attachments.js";
import { SessionHub } from "../../src/hub/session-hub.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { withMethod } from "../helpers/ledger-proxies.js";
import { connectMock, steps, tempDir } from "../helpers/mock.js";

const client: HubClient = {
  id: "a",
  closed: false,
  notify: () => undefined,
  request: () => Promise.reject(new Error("no requests here")),
};

it("a cancel sent while the hub reads the prompt's session still cancels it", async () => {
  const gate: { hold?: Promise<void> } = {};
  const ledger = withMethod(
    new SqliteLedger(join(tempDir(), "ledger.db")),
    "getSession",
    (read) =>
      async (...args) => {
        await gate.hold;
        return read(...args);
      },
  );
  const hub = new SessionHub({
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
  try {
    hub.addClient(client);
    const { sessionId } = (await hub.newSession(client, {
      cwd: tempDir(),
      mcpServers: [],
    })) as { sessionId: string };
    let release!: () => void;
    gate.hold = new Promise((r) => (release = r));
    const turn = hub.prompt(
      client,
      {
        sessionId,
        prompt: [{ type: "text", text: steps({ text: "the turn ran" }) }],
      },
      new AbortController().signal,
    );
    const cancelled = hub.cancel({ sessionId }, client);
    release();
    await cancelled;
    expect(await turn).toEqual({ stopReason: "cancelled" });
  } finally {
    await hub.close();
  }
});
