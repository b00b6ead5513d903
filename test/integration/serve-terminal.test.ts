// `_acphub/terminal/output`: a client attached to a session reads the output of a terminal the
// hub's host runs for that session's agent — live while the command runs, and the last output
// after the agent released it; unknown terminals, other sessions and unattached clients are
// refused with a JSON-RPC error.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  allowOnce,
  hubFixture,
  openSession,
  text,
  until,
  type HubTestClient,
} from "../helpers/hub.js";
import { steps, tempDir } from "../helpers/mock.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

const METHOD = "_acphub/terminal/output";

interface Output {
  output: string;
  truncated: boolean;
  exitStatus?: { exitCode: number | null };
  released?: boolean;
}

// The terminal id of the first tool call with terminal content the client was sent.
function terminalIdOf(c: HubTestClient, sessionId: string): string | undefined {
  for (const u of c.updates(sessionId)) {
    const content = (u["update"] as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    const t = (content as { type: string; terminalId?: string }[]).find(
      (x) => x.type === "terminal",
    );
    if (t?.terminalId) return t.terminalId;
  }
  return undefined;
}

// The JSON-RPC error code a request fails with.
async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (error) {
    return (error as { code?: number }).code;
  }
}

describe("acphub serve: _acphub/terminal/output", () => {
  it("a client reads a running terminal's output, then the last output once it is released", async () => {
    const { h } = await fx.start();
    const c = fx.connect(h, "ws", allowOnce);
    const cwd = tempDir();
    const sessionId = await openSession(c, cwd);
    const script =
      "echo 'live <script>x</script>'; while [ ! -e go ]; do sleep 0.05; done; echo finished";
    const turn = c.agent.request("session/prompt", {
      sessionId,
      prompt: text(
        steps({ terminal: { command: "sh", args: ["-c", script] } }),
      ),
    });
    await until(() => terminalIdOf(c, sessionId) !== undefined);
    const terminalId = terminalIdOf(c, sessionId)!;
    const read = () =>
      c.agent.request<Output>(METHOD, { sessionId, terminalId });
    let live: Output = await read();
    while (!live.output.includes("live")) live = await read();
    expect(live.output).toBe("live <script>x</script>\n");
    expect(live.exitStatus).toBeUndefined();
    expect(live.released).toBeUndefined();
    writeFileSync(join(cwd, "go"), "");
    expect(existsSync(join(cwd, "go"))).toBe(true);
    await turn;
    const last = await read();
    expect(last).toEqual({
      output: "live <script>x</script>\nfinished\n",
      truncated: false,
      exitStatus: { exitCode: 0, signal: null },
      released: true,
    });
  });

  it("refuses an unknown terminal, another session's terminal, a client not attached, and bad params", async () => {
    const { h } = await fx.start();
    const c = fx.connect(h, "ws", allowOnce);
    const other = fx.connect(h, "ws");
    const cwd = tempDir();
    const a = await openSession(c, cwd);
    const { sessionId: b } = await c.agent.request<{ sessionId: string }>(
      "session/new",
      { cwd, mcpServers: [] },
    );
    await openSession(other, cwd);
    await c.agent.request("session/prompt", {
      sessionId: a,
      prompt: text(steps({ terminal: { command: "echo", args: ["in a"] } })),
    });
    const terminalId = terminalIdOf(c, a)!;
    const ask = (client: HubTestClient, params: Record<string, unknown>) =>
      codeOf(client.agent.request(METHOD, params));
    expect(
      (await c.agent.request<Output>(METHOD, { sessionId: a, terminalId }))
        .output,
    ).toBe("in a\n");
    expect(await ask(c, { sessionId: a, terminalId: "term-999" })).toBe(-32002);
    expect(await ask(c, { sessionId: b, terminalId })).toBe(-32002);
    expect(await ask(other, { sessionId: a, terminalId })).toBe(-32002);
    expect(await ask(c, { sessionId: a })).toBe(-32602);
  });
});
