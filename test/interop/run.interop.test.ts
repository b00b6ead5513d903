// acphub run --json in front of each real agent: the scenario turn by turn (each turn a new
// acphub process continuing the session), a cancelled turn (Ctrl-C), kill -9 mid-turn and a
// fourth turn on the same session; then `ask` with nobody to ask.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it, onTestFailed } from "vitest";
import { runQuestions, runResult, runTurn, runUpdates } from "./lab/cli-run.js";
import {
  acphubArgv,
  openLab,
  readFileOr,
  recordedFrames,
  type Lab,
} from "./lab/lab.js";
import * as scenario from "./lab/scenario.js";
import { TRAITS } from "./lab/traits.js";
import { messageText, until } from "./lab/turns.js";
import { AGENT_NAMES } from "./lab/versions.mjs";

let lab: Lab | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

// The agent's reply text in run's NDJSON.
const replyOf = (t: Parameters<typeof runUpdates>[0]) =>
  messageText(runUpdates(t));

describe.each(AGENT_NAMES)("%s behind acphub run --json", (agent) => {
  it("approve-all: stream, tools, Ctrl-C, kill -9, a fourth turn", async () => {
    const l = (lab = await openLab(agent, { tee: true }));
    const notes: string[] = [];
    onTestFailed(
      () =>
        void process.stderr.write(
          `interop run ${agent}:\n${notes.join("\n")}\n`,
        ),
    );
    const run = async (args: string[], i?: Parameters<typeof runTurn>[2]) => {
      const t = await runTurn(l, ["--permissions", "approve-all", ...args], i);
      notes.push(
        `${args.join(" ").slice(0, 80)} → ${t.code ?? t.signal}\n${t.stderr.slice(-1500)}`,
      );
      return t;
    };

    const t1 = await run([scenario.turnText()]);
    expect(t1.code).toBe(0);
    expect(replyOf(t1)).toContain(scenario.TOKENS.one);
    const sessionId = String(runResult(t1)?.["sessionId"]);
    expect(runResult(t1)?.["stopReason"]).toBe("end_turn");

    const t2 = await run(["--session", sessionId, scenario.turnTools(l.work)]);
    expect.soft(t2.code).toBe(0);
    for (const file of scenario.FILES(l.work))
      expect.soft(existsSync(file), file).toBe(true);
    expect
      .soft(readFileOr(scenario.FILES(l.work)[0]))
      .toContain(scenario.FILE_CONTENT);
    expect.soft(replyOf(t2)).toContain(scenario.FILE_CONTENT);
    expect.soft(replyOf(t2)).toContain(scenario.SHELL_TOKEN);
    for (const [id, n] of runQuestions(t2))
      expect.soft(n, `questions for ${id}`).toBe(1);
    // Every permission the agent asked is one decision event, and no more.
    const asked = recordedFrames(l).filter(
      (f) => f["method"] === "session/request_permission",
    );
    expect
      .soft(t2.lines.filter((x) => x["type"] === "permission").length)
      .toBe(asked.length);

    const t3 = await run(["--session", sessionId, scenario.turnSlow()], {
      when: "tick",
      signal: "SIGINT",
    });
    expect(t3.code).toBe(130);
    expect(runResult(t3)?.["stopReason"]).toBe("cancelled");

    const killed = await run(["--session", sessionId, scenario.turnSlow()], {
      when: "tick",
      signal: "SIGKILL",
    });
    expect(killed.signal).toBe("SIGKILL");
    const t4 = await run(["--session", sessionId, scenario.turnAfterRestart()]);
    expect(t4.code).toBe(0);
    expect(replyOf(t4)).toContain(scenario.TOKENS.four);
    const shown = spawnSync(
      process.execPath,
      acphubArgv("sessions", "show", sessionId, "--json"),
      { env: l.acphubEnv, encoding: "utf8" },
    );
    expect(shown.stdout).toContain(scenario.TOKENS.one);
    expect(shown.stdout).toContain(scenario.TOKENS.two);
    expect(
      await until(() => l.leftovers().length === 0, 15_000),
      `left: ${l.leftovers().join("; ")}`,
    ).toBe(true);
    expect(l.model.unknown()).toEqual([]);
  });

  it("ask with nobody to ask: each action refused once, nothing written", async () => {
    const l = (lab = await openLab(agent));
    const t = await runTurn(l, [
      "--permissions",
      "ask",
      scenario.turnTools(l.work),
    ]);
    const permissions = t.lines.filter((x) => x["type"] === "permission");
    for (const [id, n] of runQuestions(t))
      expect.soft(n, `questions for ${id}`).toBe(1);
    if (!TRAITS[agent].asks) {
      // pi asks nothing and does its own file and shell work: ask has nothing to refuse.
      expect(permissions).toEqual([]);
      expect(t.code).toBe(0);
      for (const file of scenario.FILES(l.work))
        expect(existsSync(file), file).toBe(true);
    } else {
      // A refused permission is exit 5; a turn the agent cancels on its own (codex's "abort")
      // is exit 130, as docs/cli.md says.
      expect(t.code).toBe(TRAITS[agent].refusalStop === "cancelled" ? 130 : 5);
      expect(permissions.length).toBeGreaterThan(0);
      for (const p of permissions) expect(p["decidedBy"]).toBe("host");
      expect(existsSync(scenario.FILES(l.work)[1] ?? "")).toBe(false);
    }
    expect(runResult(t)?.["stopReason"]).toBe(TRAITS[agent].refusalStop);
  });
});
