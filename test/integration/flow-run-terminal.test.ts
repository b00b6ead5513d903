// `acphub flow run` at a terminal: a step agent's permission request is asked of the person,
// named by its step and agent (`look · mock`), and the step's tool calls and ends read the same
// way — no raw, step-prefixed tool call id on the screen.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { mockConfig } from "../helpers/editor.js";
import { steps, tempDir } from "../helpers/mock.js";
import { ptyCli, type PtySession } from "../helpers/pty.js";

let session: PtySession | undefined;
afterEach(() => session?.kill());

const LOOK = steps(
  { toolCall: { toolCallId: "t1", kind: "read", status: "pending" } },
  { toolCallUpdate: { toolCallId: "t1", status: "completed" } },
  { permission: { toolCallId: "p1", kind: "edit", title: "Edit notes.md" } },
  { text: "looked" },
);

it("asks a step agent's permission by step and agent name, then the gate", async () => {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  mockConfig(home);
  mkdirSync(join(cwd, ".acphub", "workflows"), { recursive: true });
  writeFileSync(
    join(cwd, ".acphub", "workflows", "edit.yaml"),
    `name: edit
steps:
  - { id: look, agent: mock, prompt: ${JSON.stringify(LOOK)} }
  - { id: confirm, approve: "Keep it?" }
`,
  );
  session = ptyCli(["flow", "run", "edit", "-C", cwd], {
    HOME: home,
    ACPHUB_HOME: home,
  });
  const s = session;
  await s.waitFor("[permission] look · mock asks: Edit notes.md (edit)");
  let mark = s.screen().length;
  s.type("y\r");
  await s.waitFor("permission granted (allow)", mark);
  await s.waitFor("[step] look · mock: completed", mark);
  await s.waitFor("confirm · approval: approve? [y/N]", mark);
  mark = s.screen().length;
  s.type("y\r");
  await s.waitFor("[step] confirm · approval: completed", mark);
  expect(await s.exited).toBe(0);
  const screen = s.screen();
  expect(screen).toContain("[tool] look · mock › read (pending)");
  expect(screen).not.toMatch(/look\/(t1|p1)/);
});
