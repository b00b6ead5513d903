// `acphub sessions` reads the ledger `acphub acp` writes.
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { mockConfig, startEditor, openSession } from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";

describe("acphub sessions", () => {
  it("lists, shows and deletes what acphub acp recorded", async () => {
    const home = tempDir();
    mockConfig(home);
    const editor = startEditor(home);
    const sessionId = await openSession(editor, home);
    await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [
        {
          type: "text",
          text: steps(
            { sessionInfo: { title: "Fix the tests" } },
            { text: "on it" },
          ),
        },
      ],
    });
    editor.child.kill("SIGKILL");
    await editor.exited;

    const list = await runCli(["sessions", "list"], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `^${sessionId}  \\d{4}-\\d\\d-\\d\\d [\\d:]{8}  mock +\\d+ events  Fix the tests\\n$`,
      ),
    );
    const json = JSON.parse(
      (await runCli(["sessions", "list", "--json"], { home })).stdout,
    ) as { id: string; title: string }[];
    expect(json.map((s) => [s.id, s.title])).toEqual([
      [sessionId, "Fix the tests"],
    ]);
    expect(
      (await runCli(["sessions", "list", "--cwd", "/elsewhere"], { home }))
        .stdout,
    ).toBe("no sessions\n");

    const show = await runCli(["sessions", "show", sessionId], { home });
    expect(show.stdout).toMatch(/^user: \{"steps"/m);
    expect(show.stdout).toMatch(/^agent: on it$/m);
    const shown = jsonLines(
      (await runCli(["sessions", "show", "--json", sessionId], { home }))
        .stdout,
    )[0] as { events: { kind: string }[] };
    expect(shown.events.map((e) => e.kind)).toEqual([
      "prompt",
      "update",
      "update",
      "turn_end",
    ]);

    expect(
      (await runCli(["sessions", "show", "hub-nope"], { home })).code,
    ).toBe(4);
    expect(
      (await runCli(["sessions", "delete", sessionId], { home })).stdout,
    ).toBe(`deleted ${sessionId}\n`);
    expect(
      (await runCli(["sessions", "delete", sessionId], { home })).code,
    ).toBe(4);
    expect((await runCli(["sessions", "list"], { home })).stdout).toBe(
      "no sessions\n",
    );
  });
});
