// What a person sees in `acphub chat` at a 110-column terminal, rebuilt from everything the
// CLI wrote to the pseudo-terminal by a small terminal emulator: tool calls updated in place
// (also when their line wraps and while the spinner runs), a block that is no longer last
// never duplicated, streamed replies wider than the terminal shown once; and a permission
// asked once, with the kind the agent announced.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";
import { ptyCli, type PtySession } from "../helpers/pty.js";
import { renderScreen } from "../helpers/vt-screen.js";

const COLUMNS = 110;
const ROWS = 40;
let session: PtySession | undefined;
afterEach(() => session?.kill());

// An ACPHUB_HOME whose mock agent plays these turns, one per prompt.
function home(turns: Record<string, unknown>[][]) {
  const dir = tempDir();
  const scenario = join(dir, "scenario.json");
  writeFileSync(
    scenario,
    JSON.stringify({ turns: turns.map((steps) => ({ steps })) }),
  );
  mockConfig(dir, ["--scenario", scenario]);
  return dir;
}

async function chatTurn(dir: string, args: string[] = []) {
  session = ptyCli(
    ["chat", ...args],
    { HOME: dir, ACPHUB_HOME: dir },
    { columns: COLUMNS, rows: ROWS },
  );
  await session.waitFor("›");
  session.type("go\r");
  return session;
}

const screenOf = (s: PtySession) => renderScreen(s.raw(), COLUMNS, ROWS);
const count = (lines: string[], re: RegExp) =>
  lines.filter((l) => re.test(l)).length;

const words = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

describe("acphub chat's screen", () => {
  it("updates a retitled tool call in place and shows a reply wider than the terminal once", async () => {
    const long = words(40, "w"); // ~190 columns: wraps once
    const wide = "漢字".repeat(35); // 70 characters, 140 columns
    const dir = home([
      [
        {
          toolCall: {
            toolCallId: "t1",
            title: "Terminal",
            kind: "execute",
            status: "pending",
          },
        },
        { sleep: 400 }, // the spinner runs below the tool line
        {
          toolCallUpdate: {
            toolCallId: "t1",
            title: "`echo SHELL-OK && ls /tmp/x/work`",
            status: "in_progress",
          },
        },
        { sleep: 300 },
        { toolCallUpdate: { toolCallId: "t1", status: "completed" } },
        { text: `${long}\n`, chunks: 9 },
        { text: wide, chunks: 5 },
      ],
    ]);
    const s = await chatTurn(dir);
    await s.waitFor(/— end_turn[^\n]*\n›/); // the turn's last line, then the next prompt
    const lines = screenOf(s);
    const start = lines.findIndex((l) => l.startsWith("› go"));
    expect(lines.slice(start + 1, start + 6)).toEqual([
      "✓ execute `echo SHELL-OK && ls /tmp/x/work`",
      long.slice(0, COLUMNS).trimEnd(),
      long.slice(COLUMNS),
      wide.slice(0, 55),
      wide.slice(55),
    ]);
    expect(lines[start + 6]).toMatch(/^— end_turn · [\d.]+s$/);
    expect(count(lines, /Terminal|execute/)).toBe(1);
  });

  it("never repeats a block that is no longer last, and redraws a wrapped tool line whole", async () => {
    const title = "`" + "x".repeat(150) + "`";
    const diff = {
      type: "diff",
      path: "a.ts",
      oldText: "a\nold",
      newText: "a\nnew",
    };
    const dir = home([
      [
        {
          toolCall: {
            toolCallId: "t2",
            title: "Edit a.ts",
            kind: "edit",
            status: "in_progress",
            content: [diff],
          },
        },
        { text: "between\n" },
        {
          toolCallUpdate: {
            toolCallId: "t2",
            status: "completed",
            content: [diff],
          },
        },
        {
          toolCall: {
            toolCallId: "t3",
            title,
            kind: "execute",
            status: "pending",
          },
        },
        { sleep: 300 },
        { toolCallUpdate: { toolCallId: "t3", status: "completed" } },
        { plan: [{ content: "step", priority: "high", status: "pending" }] },
        { plan: [{ content: "step", priority: "high", status: "completed" }] },
      ],
    ]);
    const s = await chatTurn(dir);
    await s.waitFor(/— end_turn[^\n]*\n›/); // the turn's last line, then the next prompt
    const lines = screenOf(s);
    const start = lines.findIndex((l) => l.startsWith("› go"));
    const row = `✓ execute ${title}`;
    expect(lines.slice(start + 1)).toEqual([
      "◐ edit    Edit a.ts",
      "    diff a.ts",
      "    @@ line 2 @@",
      "    - old",
      "    + new",
      "between",
      "✓ edit    Edit a.ts",
      row.slice(0, COLUMNS),
      row.slice(COLUMNS),
      "Plan",
      "  [x] step",
      expect.stringMatching(/^— end_turn · [\d.]+s$/),
      "›",
    ]);
  });

  it("asks once for an agent's write, showing the kind its tool call was announced with", async () => {
    const ws = join(tempDir(), "ws");
    mkdirSync(ws);
    const rawInput = { file_path: "hello.txt", content: "hi" };
    const dir = home([
      [
        {
          toolCall: {
            toolCallId: "w1",
            title: "Write hello.txt",
            kind: "edit",
            status: "pending",
            rawInput,
          },
        },
        {
          permission: {
            toolCallId: "w1",
            title: "Write hello.txt",
            kind: null,
            toolCall: { rawInput },
          },
        },
        { writeFile: { path: join(ws, "hello.txt"), content: "hi" } },
        { toolCallUpdate: { toolCallId: "w1", status: "completed" } },
        { text: "wrote it\n" },
      ],
    ]);
    const s = await chatTurn(dir, ["--cwd", ws]);
    await s.waitFor("press 1-");
    // A second question (the bug) is answered too, so the turn ends and the screen tells.
    for (let asked = 1; asked <= 2; asked++) {
      const mark = s.screen().length;
      s.type("1");
      await s.waitFor(/— end_turn|press 1-/, mark);
      if (s.screen().slice(mark).includes("— end_turn")) break;
    }
    await s.waitFor(/— end_turn[^\n]*\n›/); // the turn's last line, then the next prompt
    const lines = screenOf(s);
    expect(lines.filter((l) => l.startsWith("? "))).toEqual([
      "? Write hello.txt (edit)",
    ]);
    expect(lines).toContain("✓ edit    Write hello.txt");
    expect(lines).toContain("wrote it");
    expect(readFileSync(join(ws, "hello.txt"), "utf8")).toBe("hi");
  });
});
