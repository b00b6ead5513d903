// Issue 16, item 6: when the editor's input ends, `acphub acp` still answers what it already
// received (a running turn is cancelled and answered), then exits 0.
import { afterEach, describe, expect, it } from "vitest";
import {
  editorTracker,
  mockConfig,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { runCli, jsonLines } from "../helpers/cli.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";

const editors = editorTracker();
afterEach(() => editors.cleanup(() => undefined));

describe("acphub acp at stdin EOF", () => {
  it("echo '{…initialize…}' | acphub acp prints the answer, exit 0", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1 },
    };
    const r = await runCli(["acp"], { input: JSON.stringify(init) + "\n" });
    expect(r.code).toBe(0);
    const [answer] = jsonLines(r.stdout);
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: 1 },
    });
  });

  it("a running turn is cancelled and answered before acphub exits", async () => {
    const home = tempDir();
    mockConfig(home);
    const e = editors.track(startEditor(home));
    const sessionId = await openSession(e, home);
    const answer = e.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: steps({ text: "go" }, { sleep: 20_000 }) },
      ],
    });
    expect(await waitFor(() => e.updates().length > 0)).toBe(true);
    e.child.stdin.end();
    await expect(answer).resolves.toMatchObject({ stopReason: "cancelled" });
    expect(await e.exited).toBe(0);
  });
});
