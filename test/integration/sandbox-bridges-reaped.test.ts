// Without `setpriv` nothing kills the sandbox runtime's socat bridges when acphub is killed -9
// (they are its children, in its process group). acphub records them like terminals, and the
// next acphub reaps them. The machine has setpriv: a PATH without it stands for one that has not.
import { existsSync } from "node:fs";
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
import { descendants, pathWithout, zombie } from "../helpers/procs.js";
import {
  isSameProcess,
  processStartTime,
} from "../../src/shared/process-group.js";

const editors = editorTracker();
const survivors: number[] = [];
afterEach(async () => {
  for (const pid of survivors.splice(0)) process.kill(pid, "SIGKILL");
  await editors.cleanup(() => undefined);
});

it("without setpriv, kill -9 leaves the bridges running until the next acphub reaps them", async () => {
  const home = tempDir();
  mockConfig(home, [], {
    permissions: { mode: "approve-all" },
    terminals: { sandbox: "os" },
  });
  const env = { PATH: pathWithout("setpriv") };
  const editor = editors.track(startEditor(home, { env }));
  const sessionId = await openSession(editor, home);
  const marker = `601.${process.pid}`;
  const turn = steps({ terminal: { command: "sleep", args: [marker] } });
  void editor.agent
    .request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: turn }],
    })
    .catch(() => undefined);
  const acphub = editor.child.pid!;
  const isBridge = (cmd: string) => /^\S*socat UNIX-LISTEN:/.test(cmd);
  const ready = () => {
    const below = descendants(acphub);
    return (
      below.some((p) => p.cmd === `sleep ${marker}`) &&
      below.some((p) => isBridge(p.cmd))
    );
  };
  expect(await waitFor(ready, 15_000)).toBe(true);
  const before = descendants(acphub).map((p) => ({
    ...p,
    start: processStartTime(p.pid),
  }));
  const bridges = before.filter((p) => isBridge(p.cmd));
  // Plain socat (no setpriv wrapper), each recorded for the reaper.
  expect(bridges.length).toBeGreaterThan(0);
  for (const b of bridges)
    expect(existsSync(join(home, "agents", `${b.pid}.json`))).toBe(true);

  editor.child.kill("SIGKILL");
  await editor.exited;
  const alive = (p: (typeof before)[number]) =>
    isSameProcess(p.pid, p.start) && !zombie(p.pid);
  // Nothing ended them: the path without setpriv was taken.
  expect(bridges.filter(alive).length).toBe(bridges.length);

  const next = editors.track(startEditor(home, { env }));
  await next.agent.request("initialize", INIT);
  const left = () => before.filter(alive);
  await waitFor(() => left().length === 0, 5_000);
  survivors.push(...left().map((p) => p.pid));
  expect(left().map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
});
