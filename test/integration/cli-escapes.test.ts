// Agent text never drives the user's terminal: escape sequences, C1 controls and carriage
// returns in replies, tool titles, diffs, plans and permission questions are shown inert (ESC as
// `^[`, C1 as U+FFFD, CR dropped) by `acphub chat` and plain `acphub run`; `--json` keeps them
// exactly, as JSON escapes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";
import { CONTROLS, EVIL, INERT, LIVE } from "../helpers/evil-text.js";
import { ptyCli, type PtySession } from "../helpers/pty.js";
import { renderScreen } from "../helpers/vt-screen.js";

const TURN = [
  { text: "BEFORE-MARK\n" },
  { text: `${EVIL}\n` },
  {
    toolCall: {
      toolCallId: "t1",
      title: `tool ${EVIL}`,
      kind: "edit",
      status: "pending",
      content: [
        { type: "diff", path: "a.txt", oldText: "a", newText: `b ${EVIL}` },
      ],
    },
  },
  { plan: [{ content: `plan ${EVIL}`, priority: "high", status: "pending" }] },
  {
    permission: {
      toolCallId: "p1",
      title: `ask ${EVIL}`,
      kind: "execute",
      toolCall: { rawInput: { command: `cmd ${EVIL}` } },
    },
  },
  { toolCallUpdate: { toolCallId: "t1", status: "completed" } },
];
function home() {
  const dir = tempDir();
  const scenario = join(dir, "scenario.json");
  writeFileSync(scenario, JSON.stringify({ turns: [{ steps: TURN }] }));
  mockConfig(dir, ["--scenario", scenario]);
  return dir;
}

let session: PtySession | undefined;
afterEach(() => session?.kill());

describe("escape sequences from the agent", () => {
  it("acphub chat shows them inert: on screen and in the bytes written", async () => {
    const dir = home();
    session = ptyCli(
      ["chat"],
      { HOME: dir, ACPHUB_HOME: dir },
      {
        columns: 200,
        rows: 60,
      },
    );
    const s = session;
    await s.waitFor("›");
    s.type("go\r");
    await s.waitFor("press 1-");
    s.type("1");
    await s.waitFor(/— end_turn/);
    const raw = s.raw();
    for (const seq of LIVE) expect(raw).not.toContain(seq);
    const lines = renderScreen(raw, 200, 60);
    expect(lines).toContain("BEFORE-MARK"); // the screen was not cleared
    const shown = lines.join("\n");
    for (const where of ["", "tool ", "plan ", "ask ", "command: cmd ", "+ b "])
      expect(shown).toContain(`${where}${INERT}`);
  });

  it("plain acphub run writes none of them; --json keeps them exactly", async () => {
    const dir = home();
    const plain = await runCli(["run", "--permissions", "approve-all", "go"], {
      home: dir,
    });
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(CONTROLS);
    expect(plain.stderr).not.toMatch(CONTROLS);
    expect(plain.stdout).toContain(INERT);
    expect(plain.stderr).toContain(`[tool] tool ${INERT} (pending)`);
    expect(plain.stderr).toContain(`[permission] ask ${INERT}`);

    const json = await runCli(
      ["run", "--json", "--permissions", "approve-all", "go"],
      { home: dir },
    );
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(CONTROLS);
    const updates = jsonLines(json.stdout).map(
      (e) => (e["update"] ?? {}) as Record<string, unknown>,
    );
    expect(updates).toContainEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `${EVIL}\n` },
    });
    expect(updates).toContainEqual(
      expect.objectContaining({ title: `tool ${EVIL}` }),
    );
  });
});
