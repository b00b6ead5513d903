// Workflow shell steps run through the same OS sandbox as an agent's terminals: writes outside
// the roots fail and leave nothing, writes inside work, and `os` refuses without a sandbox.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jsonLines, runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/mock.js";

type Ev = Record<string, unknown>;

// A project with one workflow, and a home whose config sets the terminals' sandbox.
function project(workflow: string, terminals: Record<string, unknown>) {
  const home = tempDir("acphub-home-");
  const cwd = tempDir("acphub-proj-");
  const dir = join(cwd, ".acphub", "workflows");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "w.yaml"), workflow);
  writeFileSync(join(home, "config.json"), JSON.stringify({ terminals }));
  return { home, cwd };
}

// The tool_call_update that ended step `id`.
function stepEnd(stdout: string, id: string): Ev {
  return jsonLines(stdout)
    .filter((e) => e["type"] === "session_update")
    .map((e) => e["update"] as Ev)
    .find(
      (u) =>
        u["sessionUpdate"] === "tool_call_update" &&
        String(u["toolCallId"]).endsWith(`/${id}`) &&
        (u["status"] === "completed" || u["status"] === "failed"),
    )!;
}

describe("workflow shell steps under the OS sandbox", () => {
  it("a write inside the folder works; one outside the roots fails and leaves nothing", async () => {
    const outside = join(tmpdir(), `outside-${randomUUID()}`);
    const p = project(
      `name: w\nsteps:\n  - { id: inside, run: "echo in > made.txt", preapproved: true }\n  - { id: escape, run: "echo x > ${outside}", preapproved: true }\n`,
      { sandbox: "os" },
    );
    const r = await runCli(["flow", "run", "w", "--json", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.code).toBe(1);
    expect(stepEnd(r.stdout, "inside")["status"]).toBe("completed");
    expect(readFileSync(join(p.cwd, "made.txt"), "utf8")).toBe("in\n");
    const end = stepEnd(r.stdout, "escape");
    expect(end["status"]).toBe("failed");
    expect(JSON.stringify(end["content"])).toMatch(/read-only file system/i);
    expect(existsSync(outside)).toBe(false);
  });

  it("`os` without a sandbox refuses the step, naming what is missing", async () => {
    const p = project(
      `name: w\nsteps:\n  - { id: say, run: "echo hi > said.txt", preapproved: true }\n`,
      { sandbox: "os", bwrapPath: "/nonexistent/bwrap" },
    );
    const r = await runCli(["flow", "run", "w", "--json", "-C", p.cwd], {
      home: p.home,
    });
    expect(r.code).toBe(1);
    const end = stepEnd(r.stdout, "say");
    expect(end["status"]).toBe("failed");
    expect(JSON.stringify(end["content"])).toMatch(
      /terminal refused: .*bwrap/i,
    );
    expect(existsSync(join(p.cwd, "said.txt"))).toBe(false);
  });
});
