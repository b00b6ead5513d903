// Issue 15 item 6: a terminal an agent started outlives a kill -9 of acphub only until the next
// acphub starts: terminals are recorded for the orphan reaper as agents are.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import {
  INIT,
  editorTracker,
  mockConfig,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { groupGone, steps, tempDir, waitFor } from "../helpers/mock.js";
import { killGroup } from "../../src/shared/process-group.js";

const editors = editorTracker();
const started: number[] = [];
afterEach(async () => {
  for (const pid of started.splice(0)) killGroup(pid, "SIGKILL");
  await editors.cleanup(() => undefined);
});

// The pid of the live process whose command line is exactly `argv`, if any.
function pidOf(argv: string[]): number | undefined {
  const wanted = argv.join("\0") + "\0";
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8") === wanted)
        return Number(entry);
    } catch {
      // gone
    }
  }
  return undefined;
}

it("a terminal left running by a killed acphub is reaped by the next one", async () => {
  const home = tempDir();
  // Inside the OS sandbox, bubblewrap's --die-with-parent ends a terminal with acphub; without
  // it (sandbox off, or no sandbox on this platform) only the reaper does.
  mockConfig(home, [], {
    permissions: { mode: "approve-all" },
    terminals: { sandbox: "off" },
  });
  const first = editors.track(startEditor(home));
  const sessionId = await openSession(first, home);
  const argv = ["sleep", `600.${process.pid}`];
  const turn = steps({ terminal: { command: argv[0], args: argv.slice(1) } });
  void first.agent
    .request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: turn }],
    })
    .catch(() => undefined);
  expect(await waitFor(() => pidOf(argv) !== undefined, 10_000)).toBe(true);
  const pid = pidOf(argv)!;
  started.push(pid);
  // Killed once acphub recorded the terminal (recorded as it starts; a kill -9 between the
  // exec and that write is the one moment no later acphub can know of it).
  const record = join(home, "agents", `${pid}.json`);
  expect(await waitFor(() => existsSync(record), 10_000)).toBe(true);
  first.child.kill("SIGKILL");
  await first.exited;
  expect(groupGone(pid)).toBe(false);

  const second = editors.track(startEditor(home));
  await second.agent.request("initialize", INIT);
  // 30 s: a bound for a hang; with two suites at once the reaping took longer than the default.
  expect(await waitFor(() => groupGone(pid), 30_000)).toBe(true);
});
