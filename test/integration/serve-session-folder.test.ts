// `session/new` through `acphub serve` checks the folder as the CLI's --cwd does: absolute,
// existing, a directory; anything else is a clear invalid-params error and no session.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hubFixture, INIT } from "../helpers/hub.js";

const fx = hubFixture();
afterEach(() => fx.cleanup());

describe("acphub serve session/new", () => {
  it("refuses a folder that is relative, missing or a file, and creates no session", async () => {
    const { h, home } = await fx.start();
    const file = join(home, "a-file.txt");
    writeFileSync(file, "not a folder");
    const c = fx.connect(h, "ws");
    await c.agent.request("initialize", INIT);
    const cases: [unknown, string][] = [
      [
        "/does/not/exist",
        'the working folder does not exist on the hub: "/does/not/exist"',
      ],
      [
        "relative/dir",
        'the working folder (cwd) must be an absolute path: "relative/dir"',
      ],
      [file, `the working folder is not a directory: ${JSON.stringify(file)}`],
      [undefined, "session/new needs cwd, an absolute folder"],
    ];
    for (const [cwd, message] of cases)
      await expect(
        c.agent.request("session/new", { cwd, mcpServers: [] }),
      ).rejects.toMatchObject({ code: -32602, message });
    const list = await c.agent.request<{ sessions: unknown[] }>(
      "session/list",
      {},
    );
    expect(list.sessions).toEqual([]);
    const ok = await c.agent.request<{ sessionId: string }>("session/new", {
      cwd: home,
      mcpServers: [],
    });
    expect(ok.sessionId).toMatch(/^hub-/);
  });
});
