// A workflow run in an `acphub chat` session that acphub was killed in: the session's next prompt,
// once chat opens it again (--session), continues the run instead of starting it over.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { crashProject } from "../helpers/crash-project.js";

const CRASH = `name: crash
steps:
  - { id: one, agent: first, prompt: "step one {{ input }}" }
  - { id: two, agent: slow, prompt: "step two" }
  - { id: three, run: "echo three done", preapproved: true }
`;

describe("continuing an interrupted run in acphub chat", () => {
  it("after kill -9 mid-step, chat --session and any prompt continue the run; step one is not repeated", async () => {
    const { home, cwd, slow, turnsOfFirst } = crashProject(CRASH);
    let seen = "";
    const first = await runCli(["chat", "-C", cwd], {
      home,
      input: "/crash x\n",
      onSpawn: (child) => {
        const watch = (d: Buffer) => {
          seen += d.toString();
          if (seen.includes("two · slow")) child.kill("SIGKILL");
        };
        child.stdout!.on("data", watch);
        child.stderr!.on("data", watch);
      },
    });
    expect(first.code).toBe(null);
    const sessionId = /session (hub-[0-9a-f-]+)/.exec(seen)?.[1];
    expect(sessionId).toBeDefined();

    writeFileSync(slow, JSON.stringify({ steps: [{ text: "two done" }] }));
    const again = await runCli(["chat", "-C", cwd, "--session", sessionId!], {
      home,
      input: "go on\n",
    });
    const shown = again.stdout + again.stderr;
    expect(shown).toContain("continues workflow run");
    expect(shown).toContain("two done");
    expect(shown).toMatch(/three · echo three done/);
    expect(turnsOfFirst()).toEqual([1]);
  });
});
