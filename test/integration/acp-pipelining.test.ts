// Requests written in one go behind `initialize` (as some editors and scripts do) are all
// answered: those that need initialize wait for it instead of getting "send initialize first".
import { afterEach, expect, it } from "vitest";
import {
  editorTracker,
  mockConfig,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { jsonLines, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

const editors = editorTracker();
afterEach(() => editors.cleanup(() => undefined));

const RUNS = 8;

// initialize, `second` and a prompt in the earlier session: one line each, for one write.
function pipeline(sessionId: string, second: Record<string, unknown>): string {
  const requests = [
    { method: "initialize", params: { protocolVersion: 1 } },
    second,
    {
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "hello" }] },
    },
  ];
  return requests
    .map((r, i) => JSON.stringify({ jsonrpc: "2.0", id: i + 1, ...r }) + "\n")
    .join("");
}

// A home whose mock agent has one session from an earlier run (for the prompt to name).
async function homeWithSession(): Promise<{ home: string; sessionId: string }> {
  const home = tempDir();
  mockConfig(home);
  const first = editors.track(startEditor(home));
  const sessionId = await openSession(first, home);
  first.child.stdin.end();
  await first.exited;
  return { home, sessionId };
}

// Runs the pipeline RUNS times, each in a fresh `acphub acp`; checks every set of answers.
async function repeatPipeline(
  second: (home: string, sessionId: string) => Record<string, unknown>,
  secondAnswer: Record<string, unknown>,
): Promise<void> {
  const { home, sessionId } = await homeWithSession();
  for (let run = 0; run < RUNS; run++) {
    const r = await runCli(["acp"], {
      home,
      input: pipeline(sessionId, second(home, sessionId)),
    });
    const byId = new Map(
      jsonLines(r.stdout)
        .filter((m) => "id" in m)
        .map((m) => [m["id"], m]),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(byId.get(1)).toMatchObject({ result: { protocolVersion: 1 } });
    expect(byId.get(2)).toMatchObject({ result: secondAnswer });
    expect(byId.get(3)).toMatchObject({ result: { stopReason: "end_turn" } });
  }
}

it("initialize + session/new + session/prompt in one write are all answered", () =>
  repeatPipeline(
    (cwd) => ({ method: "session/new", params: { cwd, mcpServers: [] } }),
    { sessionId: expect.any(String) },
  ));

it("initialize + session/load + session/prompt of that session in one write", () =>
  repeatPipeline(
    (cwd, sessionId) => ({
      method: "session/load",
      params: { sessionId, cwd, mcpServers: [] },
    }),
    {},
  ));
