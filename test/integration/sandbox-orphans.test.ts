// No orphans after kill -9 of acphub, with the OS sandbox too: the runtime's socat bridges
// (children of acphub) and the sandboxed terminal all end with it, without a next acphub.
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import {
  editorTracker,
  mockConfig,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { steps, tempDir, waitFor } from "../helpers/mock.js";
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

interface Proc {
  pid: number;
  ppid: number;
  live: boolean;
  cmd: string;
}

// Every process on the machine with its parent and command line.
function processes(): Proc[] {
  const all: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      all.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        live: fields[0] !== "Z",
        cmd: cmd.replace(/\0/g, " ").trim(),
      });
    } catch {
      // gone
    }
  }
  return all;
}

// True when `pid` has exited and waits to be collected.
function zombie(pid: number): boolean {
  return processes().some((p) => p.pid === pid && !p.live);
}

// The live descendants of `root` (children, their children, ...).
function descendants(root: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const next = all.filter((p) => parents.has(p.ppid));
    found.push(...next.filter((p) => p.live));
    parents = new Set(next.map((p) => p.pid));
  }
  return found;
}

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
