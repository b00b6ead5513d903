// No orphans after kill -9 of acphub, with the OS sandbox too: the runtime's socat bridges
// (children of acphub) and the sandboxed terminal all end with it, without a next acphub.
import { afterEach, expect, it } from "vitest";
import {
  editorTracker,
  mockConfig,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";
import { descendants, zombie } from "../helpers/procs.js";
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

it("kill -9 of acphub leaves no sandbox bridge or sandboxed terminal behind", async () => {
  const home = tempDir();
  mockConfig(home, [], {
    permissions: { mode: "approve-all" },
    terminals: { sandbox: "os" },
  });
  const editor = editors.track(startEditor(home));
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
      below.some((p) => /^\S*socat UNIX-LISTEN:/.test(p.cmd))
    );
  };
  expect(await waitFor(ready, 15_000)).toBe(true);
  const before = descendants(acphub).map((p) => ({
    ...p,
    start: processStartTime(p.pid),
  }));

  editor.child.kill("SIGKILL");
  await editor.exited;
  // Zombies do not count: dead, waiting for init (slow in some containers) to collect them.
  const left = () =>
    before.filter((p) => isSameProcess(p.pid, p.start) && !zombie(p.pid));
  await waitFor(() => left().length === 0, 5_000);
  survivors.push(...left().map((p) => p.pid));
  expect(left().map((p) => `${p.pid} ${p.cmd}`)).toEqual([]);
});
