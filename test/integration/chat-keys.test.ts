// The chat approver takes every key pressed once the question is asked, however the terminal
// delivers them: a key that arrives in one read with others (fast typing, a key repeat, an
// arrow key then a digit) is not lost, and an escape sequence is not mistaken for Esc.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mockConfig } from "../helpers/editor.js";
import { tempDir } from "../helpers/mock.js";
import { ptyCli, type PtySession } from "../helpers/pty.js";

let session: PtySession | undefined;
afterEach(() => session?.kill());

// A chat whose mock agent asks one permission and says how it was answered.
async function asked(pauseMs = 0) {
  const dir = tempDir();
  const scenario = join(dir, "scenario.json");
  const steps = [
    { text: "ASK-NOW\n" },
    { sleep: pauseMs },
    { permission: { title: "Edit a.ts", kind: "edit" } },
  ];
  writeFileSync(scenario, JSON.stringify({ turns: [{ steps }] }));
  mockConfig(dir, ["--scenario", scenario]);
  session = ptyCli(["chat"], { HOME: dir, ACPHUB_HOME: dir });
  await session.waitFor("›");
  session.type("go\r");
  return session;
}

describe("the chat approver's keys", () => {
  it("takes an answer key that arrives in one read with the key before it", async () => {
    const s = await asked();
    await s.waitFor("press 1-");
    s.type("x\x1b[B1"); // a stray key, an arrow key, then the answer: one read
    await s.waitFor(/— end_turn/);
    expect(s.screen()).toContain("→ Allow");
    expect(s.screen()).toContain("permission granted (allow)");
  });

  it("keeps a key typed before the question for the next prompt, never as its answer", async () => {
    const s = await asked(300);
    await s.waitFor("ASK-NOW");
    s.type("1"); // typed ahead, before the agent asks
    await s.waitFor("press 1-");
    s.type("3");
    await s.waitFor(/— end_turn/);
    expect(s.screen()).toContain("→ Reject");
    expect(s.screen()).not.toContain("→ Allow");
    await s.waitFor(/› 1$/); // the typed-ahead key is on the next prompt line
  });
});
