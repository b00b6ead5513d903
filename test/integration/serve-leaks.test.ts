// What a long-running `acphub serve` lets go of: a session nobody uses (its agent has no
// session/close) after serve.idleSessionMs, restored from the ledger when used again; and a
// Streamable HTTP client that never opens its event stream, after idleTimeoutMs.
import { afterEach, describe, expect, it } from "vitest";
import { mockConfig } from "../helpers/editor.js";
import { runCli } from "../helpers/cli.js";
import {
  connectClient,
  INIT,
  openSession,
  startHub,
  text,
  until,
  type HubTestClient,
  type RunningHub,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const hubs: RunningHub[] = [];
const clients: HubTestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const h of hubs.splice(0)) {
    h.child.kill("SIGKILL");
    await h.exited;
  }
});

async function hub(serve: Record<string, unknown>) {
  const home = tempDir();
  mockConfig(home, [], { serve });
  const h = await startHub(home, [], { ACPHUB_LOG: "debug" });
  hubs.push(h);
  return { h, home };
}

const connections = async (h: RunningHub) => {
  const res = await fetch(`${h.url}/metrics`, {
    headers: { Authorization: `Bearer ${h.token}` },
  });
  return /^acphub_connections (\d+)$/m.exec(await res.text())?.[1];
};

describe("acphub serve lets go of what nobody uses", () => {
  it("a session of an agent without session/close is released after idleSessionMs and restored from the ledger when used again", async () => {
    const { h, home } = await hub({ idleSessionMs: 300 });
    const a = connectClient(h, "ws");
    clients.push(a);
    const sessionId = await openSession(a, home);
    await a.agent.request("session/prompt", {
      sessionId,
      prompt: text(steps({ text: "first" })),
    });
    a.close();
    await until(() => h.stderr().includes("idle session released"));
    const b = connectClient(h, "ws");
    clients.push(b);
    await b.agent.request("initialize", INIT);
    await b.agent.request("session/load", {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const again = await b.agent.request<{ stopReason: string }>(
      "session/prompt",
      {
        sessionId,
        prompt: text(steps({ text: "second" })),
      },
    );
    expect(again.stopReason).toBe("end_turn");
    const shown = JSON.parse(
      (await runCli(["sessions", "show", sessionId, "--json"], { home }))
        .stdout,
    ) as { events: { kind: string }[] };
    const kinds = shown.events.map((e) => e.kind);
    expect(kinds.slice(kinds.indexOf("turn_end"))).toContain("restore");
  });

  it("a Streamable HTTP client that never opens its event stream is closed after idleTimeoutMs", async () => {
    const { h } = await hub({ idleTimeoutMs: 300 });
    const res = await fetch(h.acpUrl, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${h.token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: INIT,
      }),
    });
    const connectionId = res.headers.get("acp-connection-id");
    expect(connectionId).toBeTruthy();
    await res.text();
    // The hub's own close names this connection (under load it may already have happened:
    // counting the open connection here would race the 300 ms timer).
    await until(() =>
      h
        .stderr()
        .split("\n")
        .some(
          (line) =>
            line.includes("HTTP client gone") && line.includes(connectionId!),
        ),
    );
    expect(await connections(h)).toBe("0");
  });
});
