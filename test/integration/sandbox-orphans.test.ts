// No orphans after kill -9 of acphub, with the OS sandbox too: the runtime's socat bridges
// (children of acphub) and the sandboxed terminal all end with it, without a next acphub —
// and where `setpriv` is missing (a PATH without it stands for such a machine), they are
// recorded and the next acphub reaps them. Either way the next acphub removes the sandboxed
// terminal's temporary folder, and a sandboxed agent's, which nobody else would.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import {
  editorTracker,
  INIT,
  mockConfig,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";
import {
  descendants,
  pathWithout,
  zombie,
  type Proc,
} from "../helpers/procs.js";
import {
  isSameProcess,
  processStartTime,
} from "../../src/shared/process-group.js";

const editors = editorTracker();
const survivors: number[] = [];
afterEach(async () => {
  for (const pid of survivors.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone (it ended after the check): the test's own failure says what was left.
    }
  await editors.cleanup(() => undefined);
});

const isBridge = (cmd: string) => /^\S*socat UNIX-LISTEN:/.test(cmd);

// acphub acp running a sandboxed `sleep` terminal; its processes (with start times) once the
// sleep and the bridges run, then acphub killed -9.
type Seen = Proc & { start: string | undefined };

async function killedMidTerminal(
  home: string,
  env: Record<string, string>,
): Promise<Seen[]> {
  mockConfig(home, [], {
    permissions: { mode: "approve-all" },
    terminals: { sandbox: "os" },
  });
  const editor = editors.track(startEditor(home, { env }));
  const sessionId = await openSession(editor, home);
  const marker = `600.${process.pid}`;
  const turn = steps({ terminal: { command: "sleep", args: [marker] } });
  void editor.agent
    .request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: turn }],
    })
    .catch(() => undefined);
  const acphub = editor.child.pid!;
  const ready = () => {
    const below = descendants(acphub);
    return (
      // The sleep itself: bubblewrap is set up (killed halfway through its own start-up,
      // bubblewrap can leave its namespace's first process behind; that race is its own).
      below.some((p) => p.cmd === `sleep ${marker}`) &&
      below.some((p) => isBridge(p.cmd))
    );
  };
  expect(await waitFor(ready, 15_000)).toBe(true);
  const before = descendants(acphub).map((p) => ({
    ...p,
    start: processStartTime(p.pid),
  }));
  editor.child.kill("SIGKILL");
  await editor.exited;
  return before;
}

// Zombies do not count: dead, waiting for init (slow in some containers) to collect them.
const alive = (p: Seen) => isSameProcess(p.pid, p.start) && !zombie(p.pid);

// Waits for all of `before` to end; fails naming what is left (and kills it).
async function expectAllGone(before: Seen[]) {
  const left = () => before.filter(alive);
  // 30 s: a loaded machine (two test suites at once) took over 5 s to end and collect them.
  await waitFor(() => left().length === 0, 30_000);
  survivors.push(...left().map((p) => p.pid));
  expect(left().map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
}

// The sandboxed terminals' temporary folders in acphub's TMPDIR.
const termFolders = (tmp: string) =>
  readdirSync(tmp).filter((f) => f.startsWith("acphub-term-"));

it("kill -9 of acphub leaves no sandbox bridge or sandboxed terminal behind; the next acphub removes the terminal's folder", async () => {
  const home = tempDir();
  const env = { TMPDIR: tempDir() };
  const before = await killedMidTerminal(home, env);
  await expectAllGone(before);
  expect(termFolders(env.TMPDIR)).toHaveLength(1);
  const next = editors.track(startEditor(home, { env }));
  await next.agent.request("initialize", INIT);
  expect(termFolders(env.TMPDIR)).toEqual([]);
});

it("kill -9 of acphub running a sandboxed agent: the next acphub removes the agent's folder", async () => {
  const home = tempDir();
  const env = { TMPDIR: tempDir() };
  sandboxedMock(home);
  const agentFolders = () =>
    readdirSync(env.TMPDIR).filter((f) => f.startsWith("acphub-agent-"));
  const cwd = tempDir();
  const editor = editors.track(startEditor(home, { env, cwd }));
  await openSession(editor, home);
  const [folder] = agentFolders();
  expect(folder).toBeDefined();
  editor.child.kill("SIGKILL");
  await editor.exited;
  expect(agentFolders()).toEqual([folder]);
  // (The next acphub starts a sandboxed agent of its own, in a folder of its own.)
  const next = editors.track(startEditor(home, { env, cwd }));
  await next.agent.request("initialize", INIT);
  expect(await waitFor(() => !agentFolders().includes(folder!))).toBe(true);
});

// A config whose mock agent asks for the OS sandbox (mockConfig writes it without).
function sandboxedMock(home: string): void {
  mockConfig(home, [], {});
  const config = JSON.parse(readFileSync(join(home, "config.json"), "utf8"));
  config.agents.mock.sandbox = true;
  writeFileSync(join(home, "config.json"), JSON.stringify(config));
}

it("kill -9 of acphub running a sandboxed agent in its own folder: the next acphub removes the empty mount points bubblewrap made there, not the user's files", async () => {
  // `acphub acp` started by an editor in the project it opens sessions in: bubblewrap makes an
  // empty file or folder there for each protected dotfile that is absent (.bashrc, .mcp.json,
  // .claude, …), removed when the command ends — and left behind by a kill -9.
  const home = tempDir();
  const env = { TMPDIR: tempDir() };
  sandboxedMock(home);
  const project = tempDir();
  writeFileSync(join(project, ".zshrc"), ""); // the user's own, empty: not bubblewrap's
  writeFileSync(join(project, "notes.md"), "mine");
  const mine = [".zshrc", "notes.md"];
  const editor = editors.track(startEditor(home, { env, cwd: project }));
  await openSession(editor, project);
  editor.child.kill("SIGKILL");
  await editor.exited;
  const left = readdirSync(project).filter((f) => !mine.includes(f));
  expect(left).toContain(".bashrc");
  expect(left).toContain(".claude");
  const emptyFolders = () =>
    readdirSync(env.TMPDIR).filter((f) => f.startsWith("claude-empty-"));
  expect(emptyFolders()).toHaveLength(1);
  // The next acphub reaps them before its own agent's sandbox makes its own, which go when it
  // ends: once it has come and gone, the folder holds what the user put there.
  const next = editors.track(startEditor(home, { env, cwd: project }));
  await openSession(next, project);
  next.child.stdin.end();
  await next.exited;
  expect(readdirSync(project).sort()).toEqual(mine);
  expect(readFileSync(join(project, "notes.md"), "utf8")).toBe("mine");
  // The runtime's empty folder that bubblewrap mounts on absent directories goes too.
  expect(emptyFolders()).toEqual([]);
});

it("without setpriv, kill -9 leaves the bridges running until the next acphub reaps them", async () => {
  const home = tempDir();
  const env = { PATH: pathWithout("setpriv"), TMPDIR: tempDir() };
  const before = await killedMidTerminal(home, env);
  const bridges = before.filter((p) => isBridge(p.cmd));
  expect(bridges.length).toBeGreaterThan(0);
  // Nothing ended them (the path without setpriv was taken), and each was recorded.
  expect(bridges.filter(alive).length).toBe(bridges.length);
  for (const b of bridges)
    expect(existsSync(join(home, "agents", `${b.pid}.json`))).toBe(true);

  const next = editors.track(startEditor(home, { env }));
  await next.agent.request("initialize", INIT);
  await expectAllGone(before);
  expect(termFolders(env.TMPDIR)).toEqual([]);
});
