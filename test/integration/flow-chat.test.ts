// A workflow as a slash command of `acphub chat`, its gate answered at the terminal.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";
import { ptyCli, type PtySession } from "../helpers/pty.js";

let session: PtySession | undefined;
afterEach(() => session?.kill());

describe("workflows in acphub chat", () => {
  it("lists /review among the commands, runs it, asks its gate at the terminal", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    mockConfig(home);
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(
      join(cwd, ".acphub", "workflows", "review.yaml"),
      `name: review
description: look then confirm
steps:
  - { id: look, agent: mock, prompt: "Look at {{ input }}" }
  - { id: confirm, approve: "Apply it?" }
  - { id: check, run: "echo checked-$ACPHUB_STEP_CONFIRM_STATUS", preapproved: true }
`,
    );
    session = ptyCli(
      ["chat", "-C", cwd],
      { HOME: home, ACPHUB_HOME: home },
      { columns: 120 },
    );
    await session.waitFor("›");
    let mark = session.screen().length;
    session.type("/help\r");
    await session.waitFor(/\/review +look then confirm/, mark);
    mark = session.screen().length;
    session.type("/review the parser\r");
    await session.waitFor("mock agent received: Look at the parser", mark);
    await session.waitFor("confirm · approval", mark);
    await session.waitFor(/1\) Approve/, mark);
    session.type("1");
    await session.waitFor("✓ execute check", mark);
    await session.waitFor(/— end_turn · [\d.]+s/, mark);
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
  });

  it("the gate question shows the gate's text, step output inert", async () => {
    const home = tempDir("acphub-home-");
    const cwd = tempDir("acphub-proj-");
    mockConfig(home);
    mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
    writeFileSync(
      join(cwd, ".acphub", "workflows", "gate.yaml"),
      `name: gate
steps:
  - id: look
    agent: mock
    prompt: '{"steps":[{"text":"gate-evil \\u001b[2J \\u009b2J end"}]}'
  - { id: confirm, approve: "Apply it?\\n{{ steps.look.output }}" }
`,
    );
    session = ptyCli(
      ["chat", "-C", cwd],
      { HOME: home, ACPHUB_HOME: home },
      { columns: 120 },
    );
    await session.waitFor("›");
    const mark = session.screen().length;
    session.type("/gate\r");
    await session.waitFor("confirm · approval", mark);
    const asked = session.screen().lastIndexOf("confirm · approval");
    await session.waitFor(/1\) Approve/, asked);
    const question = session.screen().slice(asked);
    expect(question).toMatch(
      /Apply it\?\n\s+gate-evil \^\[\[2J \ufffd2J end\n[\s\S]*1\) Approve/,
    );
    expect(session.raw()).not.toContain("\u001b[2J");
    session.type("1");
    await session.waitFor(/— end_turn · [\d.]+s/, asked);
    session.type("/exit\r");
    expect(await session.exited).toBe(0);
  });
});
