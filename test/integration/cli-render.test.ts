// How the CLI looks: styled at a terminal, plain with NO_COLOR or in a pipe, frames in the
// debug log.
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { INIT, mockConfig, startEditor } from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";
import { ptyCli } from "../helpers/pty.js";

const ESC = String.fromCharCode(27);
const prompt = steps(
  {
    toolCall: {
      toolCallId: "t",
      title: "Read x",
      kind: "read",
      status: "completed",
    },
  },
  { text: "**done**\n" },
);

describe("acphub run rendering", () => {
  it("at a terminal: status marks, styled Markdown, a summary line", async () => {
    const home = tempDir();
    const session = ptyCli(["run", prompt], { HOME: home, ACPHUB_HOME: home });
    expect(await session.exited).toBe(0);
    const screen = session.screen();
    expect(screen).toMatch(/✓ read +Read x/);
    expect(screen).toMatch(/^done$/m);
    expect(screen).toMatch(/— end_turn · [\d.]+s/);
  });

  it("with NO_COLOR at a terminal, or in a pipe: plain lines, no escape codes", async () => {
    const home = tempDir();
    const session = ptyCli(["run", prompt], {
      HOME: home,
      ACPHUB_HOME: home,
      NO_COLOR: "1",
    });
    expect(await session.exited).toBe(0);
    expect(session.raw()).not.toContain(ESC);
    expect(session.screen()).toContain("[tool] Read x (completed)");
    const piped = await runCli(["run", prompt], { home });
    expect(piped.stdout + piped.stderr).not.toContain(ESC);
    expect(piped.stdout).toContain("**done**");
  });
});

describe("debug logs", () => {
  it("--verbose logs every JSON-RPC frame with the agent on stderr, never on stdout", async () => {
    const r = await runCli(["run", "--verbose", "--json", "hi"]);
    const frames = r.stderr
      .split("\n")
      .filter((l) => l.includes('"peer":"agent"'));
    expect(
      frames.some(
        (l) =>
          l.includes('"direction":"out"') &&
          l.includes('"method":"initialize"'),
      ),
    ).toBe(true);
    expect(
      frames.some(
        (l) =>
          l.includes('"direction":"in"') &&
          l.includes('"sessionUpdate":"agent_message_chunk"'),
      ),
    ).toBe(true);
    expect(r.stdout).not.toContain('"peer"');
    expect((await runCli(["run", "hi"])).stderr).not.toContain('"peer"');
  });

  it("ACPHUB_LOG=debug logs the editor's frames in acphub acp", async () => {
    const home = tempDir();
    mockConfig(home);
    const editor = startEditor(home, { env: { ACPHUB_LOG: "debug" } });
    await editor.agent.request("initialize", INIT);
    editor.child.kill("SIGTERM");
    await editor.exited;
    expect(editor.stderr()).toMatch(
      /"peer":"editor","direction":"in".*"method":"initialize"/,
    );
    expect(editor.stderr()).toMatch(
      /"peer":"agent","direction":"out".*"method":"initialize"/,
    );
  });
});
