// acphub chat in a pseudo-terminal in front of each real agent: a person typing the scenario,
// answering each permission question with the agent's allow-once key, Ctrl-C on the slow turn,
// then kill -9 and `chat --session` showing the history before a fourth turn.
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it, onTestFailed } from "vitest";
import { ptyCli, type PtySession } from "../helpers/pty.js";
import { renderScreen } from "../helpers/vt-screen.js";
import { openLab, readFileOr, recordedFrames, type Lab } from "./lab/lab.js";
import * as scenario from "./lab/scenario.js";
import { TRAITS } from "./lab/traits.js";
import { until } from "./lab/turns.js";
import { AGENT_NAMES } from "./lab/versions.mjs";

let lab: Lab | undefined;
const sessions: PtySession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) s.kill();
  await lab?.close();
  lab = undefined;
});

/** The terminal of issue 8's report: 110 columns, so long lines wrap. */
const SIZE = { columns: 110, rows: 40 };
const END = /— (end_turn|cancelled|refusal|max_tokens)/;

// Plays one turn at the terminal, answering each question with the allow-once key (Esc when
// the agent offers none); the number of questions shown.
async function playTurn(
  s: PtySession,
  text: string,
  allow: string | undefined,
): Promise<number> {
  let pos = s.screen().length;
  s.type(`${text}\r`);
  let questions = 0;
  for (;;) {
    await s.waitFor(new RegExp(`${END.source}|press 1-\\d`), pos, 120_000);
    const seen = s.screen().slice(pos);
    const press = /press 1-\d/.exec(seen);
    if (!press || (END.exec(seen)?.index ?? Infinity) < press.index)
      return questions;
    questions++;
    const question = seen.slice(0, press.index);
    const key = new RegExp(`(\\d)\\) ${allow ?? "Allow"}(\\s|$)`, "m").exec(
      question.slice(question.lastIndexOf("? ")),
    );
    pos += press.index + press[0].length;
    s.type(key?.[1] ?? "\u001b");
  }
}

describe.each(AGENT_NAMES)("%s behind acphub chat", (agent) => {
  it("at a terminal: stream, approve, Ctrl-C, kill -9, --session", async () => {
    const l = (lab = await openLab(agent, { tee: true }));
    const s = ptyCli(["chat", "--cwd", l.work], l.acphubEnv, SIZE);
    sessions.push(s);
    onTestFailed(
      () =>
        void process.stderr.write(
          `interop chat ${agent} screen:\n${s.screen().slice(-6000)}\n`,
        ),
    );
    await s.waitFor("/help for commands", 0, 60_000);
    const sessionId = /session (hub-[0-9a-f-]+)/.exec(s.screen())?.[1] ?? "";
    expect(sessionId).not.toBe("");
    await s.waitFor("›", 0, 60_000);

    let mark = s.screen().length;
    await playTurn(s, scenario.turnText(), undefined);
    expect(s.screen().slice(mark)).toContain(scenario.TOKENS.one);

    mark = s.screen().length;
    const asked = recordedFrames(l).filter(
      (f) => f["method"] === "session/request_permission",
    ).length;
    const questions = await playTurn(
      s,
      scenario.turnTools(l.work),
      TRAITS[agent].allowOnceName,
    );
    const agentAsked =
      recordedFrames(l).filter(
        (f) => f["method"] === "session/request_permission",
      ).length - asked;
    const screen = s.screen().slice(mark);
    for (const file of scenario.FILES(l.work))
      expect.soft(existsSync(file), file).toBe(true);
    expect
      .soft(readFileOr(scenario.FILES(l.work)[0]))
      .toContain(scenario.FILE_CONTENT);
    expect.soft(screen).toContain(scenario.TOKENS.two);
    expect.soft(screen).toContain(scenario.SHELL_TOKEN);
    // One question per action: as many as the agent asked, none added by acphub.
    expect.soft(questions).toBe(agentAsked);
    expect.soft(screen).not.toContain("(other)");
    // What a person sees at 110 columns shows each tool call and the reply once.
    const seen = renderScreen(s.raw(), SIZE.columns, SIZE.rows).map((r) =>
      r.trim(),
    );
    const toolLines = seen.filter((r) => /^[✓✗◐○] /.test(r));
    expect.soft(toolLines.length).toBeGreaterThan(0);
    expect.soft(toolLines).toEqual([...new Set(toolLines)]);
    expect
      .soft(seen.filter((r) => r.startsWith(`Reply: ${scenario.TOKENS.two}`)))
      .toHaveLength(1);

    mark = s.screen().length;
    s.type(`${scenario.turnSlow()}\r`);
    await s.waitFor("tick", mark, 60_000);
    s.type("\u0003");
    await s.waitFor(/— cancelled/, mark, 30_000);

    const before = l.leftovers();
    const hub = before.find((p) => p.includes("main.js chat"));
    expect(hub).toBeDefined();
    process.kill(Number(hub?.split(" ")[0]), "SIGKILL");
    await s.exited;

    const s2 = ptyCli(
      ["chat", "--cwd", l.work, "--session", sessionId],
      l.acphubEnv,
    );
    sessions.push(s2);
    onTestFailed(
      () =>
        void process.stderr.write(
          `interop chat ${agent} after restart:\n${s2.screen().slice(-4000)}\n`,
        ),
    );
    await s2.waitFor("›", 0, 60_000);
    expect(s2.screen()).toContain(scenario.TOKENS.one);
    const orphaned = () => l.leftovers().filter((p) => before.includes(p));
    expect(
      await until(() => orphaned().length === 0, 15_000),
      `left: ${orphaned().join("; ")}`,
    ).toBe(true);
    mark = s2.screen().length;
    await playTurn(s2, scenario.turnAfterRestart(), undefined);
    expect(s2.screen().slice(mark)).toContain(scenario.TOKENS.four);
    expect(s2.screen().slice(mark)).toMatch(/— end_turn/);
    s2.type("/exit\r");
    expect(await s2.exited).toBe(0);
    expect(
      await until(() => l.leftovers().length === 0, 15_000),
      `left: ${l.leftovers().join("; ")}`,
    ).toBe(true);
    expect(l.model.unknown()).toEqual([]);
  });
});
