// An interactive `acphub chat` driven through a pseudo-terminal: a cancelled turn, a permission
// answered at the prompt, slash commands; the screen's text is asserted.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CLI, steps, tempDir } from "../helpers/mock.js";
import { ptyCli, type PtySession } from "../helpers/pty.js";

let session: PtySession | undefined;
afterEach(() => session?.kill());

function home(flags: string[] = ["--modes", "--config-options"]) {
  const dir = tempDir();
  const agents = {
    mock: { command: process.execPath, args: [CLI, "mock-agent", ...flags] },
  };
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ defaultAgent: "mock", agents }),
  );
  return dir;
}

describe("acphub chat in a terminal", () => {
  it("streams a turn, cancels one with Ctrl-C, answers a permission by number, runs slash commands", async () => {
    const dir = home();
    session = ptyCli(["chat"], { HOME: dir, ACPHUB_HOME: dir });
    await session.waitFor("/help for commands");
    await session.waitFor("›");

    let mark = session.screen().length;
    session.type("hello there\r");
    await session.waitFor("mock agent received: hello there", mark);
    await session.waitFor(/— end_turn · [\d.]+s/, mark);

    mark = session.screen().length;
    // The typed line is echoed: the agent's words are spelled differently in it (\u0077), so
    // the wait is for the agent's output, not the echo (Ctrl-C before the turn began hung).
    const typed = steps({ text: "working on it\n" }, { sleep: 20_000 });
    session.type(`${typed.replace("working", "\\u0077orking")}\r`);
    await session.waitFor("working on it", mark);
    session.type("\u0003");
    await session.waitFor(/— cancelled · [\d.]+s/, mark);

    mark = session.screen().length;
    session.type(
      `${steps({ permission: { title: "Edit main.ts", kind: "edit" } })}\r`,
    );
    await session.waitFor("? Edit main.ts (edit)", mark);
    await session.waitFor("1) Allow", mark);
    session.type("1");
    await session.waitFor("permission granted (allow)", mark);

    mark = session.screen().length;
    session.type("/mode code\r");
    await session.waitFor("mode: code", mark);
    session.type("/mode\r");
    await session.waitFor(/\*code +Code/, mark);
    session.type("/model\r");
    await session.waitFor(/model +\*mock-small mock-large/, mark);

    mark = session.screen().length;
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
  });

  it("/model lists and switches the models an agent reports (session/set_model), and a resumed chat shows the choice", async () => {
    const dir = home(["--models", "--modes"]);
    session = ptyCli(["chat"], { HOME: dir, ACPHUB_HOME: dir });
    await session.waitFor("›");
    let mark = session.screen().length;
    session.type("/model\r");
    await session.waitFor(/model +\*mock-default mock-opus/, mark);
    session.type("/model mock-opus\r");
    await session.waitFor("model: mock-opus", mark);
    mark = session.screen().length;
    session.type(`${steps({ state: true })}\r`);
    await session.waitFor('"currentModelId":"mock-opus"', mark);
    await session.waitFor(/— end_turn/, mark);
    session.type("/exit\r");
    expect(await session.exited).toBe(0);

    const list = await runCli(["sessions", "list", "--json"], { home: dir });
    const [first] = JSON.parse(list.stdout) as {
      id: string;
      settings: { models: { currentModelId: string } };
    }[];
    expect(first!.settings.models.currentModelId).toBe("mock-opus");
    session = ptyCli(["chat", "--session", first!.id], {
      HOME: dir,
      ACPHUB_HOME: dir,
    });
    await session.waitFor("›");
    mark = session.screen().length;
    session.type("/model\r");
    await session.waitFor(/model +mock-default \*mock-opus/, mark);
    session.type(`${steps({ state: true })}\r`);
    await session.waitFor('"currentModelId":"mock-opus"', mark);
    await session.waitFor(/— end_turn/, mark);
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
  });

  it("shows tool calls with status marks, the plan as a checklist, and Markdown legibly", async () => {
    const dir = home([]);
    session = ptyCli(["chat"], { HOME: dir, ACPHUB_HOME: dir });
    await session.waitFor("›");
    session.type(
      `${steps(
        { text: "# Heading\n- item one\n" },
        {
          toolCall: {
            toolCallId: "t1",
            title: "Edit a.ts",
            kind: "edit",
            status: "in_progress",
            locations: [{ path: "a.ts", line: 3 }],
          },
        },
        {
          toolCallUpdate: {
            toolCallId: "t1",
            status: "completed",
            content: [
              {
                type: "diff",
                path: "a.ts",
                oldText: "a\nold\nc",
                newText: "a\nnew\nc",
              },
            ],
          },
        },
        {
          plan: [
            { content: "read", priority: "high", status: "completed" },
            { content: "write", priority: "high", status: "pending" },
          ],
        },
      )}\r`,
    );
    await session.waitFor(/— end_turn/);
    const screen = session.screen();
    expect(screen).toMatch(/^Heading$/m);
    expect(screen).not.toMatch(/^# Heading/m);
    expect(screen).toContain("• item one");
    expect(screen).toMatch(/✓ edit +Edit a\.ts a\.ts:3/);
    expect(screen).toContain("- old");
    expect(screen).toContain("+ new");
    expect(screen).toContain("[x] read");
    expect(screen).toContain("[ ] write");
    session.type("\u0003");
    session.type("\u0003");
    expect(await session.exited).toBe(0);
  });

  it("keeps prompt history across runs, with known secrets masked", async () => {
    const dir = home([]);
    const env = {
      HOME: dir,
      ACPHUB_HOME: dir,
      MY_API_KEY: "sk-history-secret",
    };
    session = ptyCli(["chat"], env);
    await session.waitFor("›");
    session.type("token sk-history-secret\r");
    await session.waitFor(/— end_turn/);
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
    const saved = readFileSync(join(dir, "chat_history"), "utf8");
    expect(saved).toContain("token ***");
    expect(saved).not.toContain("sk-history-secret");
    session = ptyCli(["chat"], env);
    await session.waitFor("›");
    session.type("\u001b[A"); // up arrow recalls the last prompt
    await session.waitFor("/exit");
  });

  it("resuming with --session shows the history first", async () => {
    const dir = home([]);
    const first = await runCli(["run", "--json", "remember pineapples"], {
      home: dir,
    });
    const sessionId = /"sessionId":"(hub-[^"]+)"/.exec(first.stdout)![1]!;
    session = ptyCli(["chat", "--session", sessionId], {
      HOME: dir,
      ACPHUB_HOME: dir,
    });
    await session.waitFor("› remember pineapples");
    await session.waitFor("mock agent received: remember pineapples");
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
  });

  it("ends each turn with a dim line of the usage the agent reported", async () => {
    const dir = home([]);
    session = ptyCli(["chat"], { HOME: dir, ACPHUB_HOME: dir });
    await session.waitFor("/help for commands", 0, 30_000);
    await session.waitFor("›");
    const mark = session.screen().length;
    const turn = JSON.stringify({
      steps: [
        {
          usage: {
            used: 4000,
            size: 200000,
            cost: { amount: 0.25, currency: "USD" },
          },
        },
        { text: "ok" },
      ],
      usage: { inputTokens: 1200, outputTokens: 300, totalTokens: 1500 },
    });
    session.type(`${turn}\r`);
    await session.waitFor(
      /— end_turn · [\d.]+s · 1,500 tokens \(1,200 in, 300 out\) · context 4,000\/200,000 · \$0\.25 so far/,
      mark,
    );
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
  });
});

describe("acphub chat without a terminal", () => {
  it("reads one turn per line and writes no escape codes", async () => {
    const r = await runCli(["chat"], { input: "first\nsecond\n/nope\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("mock agent received: first");
    expect(r.stdout).toContain("mock agent received: second");
    expect(r.stdout).toContain("unknown command /nope");
    expect(r.stdout).not.toContain(String.fromCharCode(27));
  });
});
