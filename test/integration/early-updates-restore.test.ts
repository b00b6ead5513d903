// Issue 15 item 2 for restores: an update an agent sends in the same write as its
// session/load or session/resume answer reaches the editor; load's own replay does not.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import {
  INIT,
  editorTracker,
  onlyProtocolOnStdout,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { tempDir, waitFor } from "../helpers/mock.js";

const AGENT = fileURLToPath(
  new URL("../helpers/eager-restore-agent.mjs", import.meta.url),
);
const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

const commandName = (u: Record<string, unknown>) =>
  (u["update"] as { availableCommands?: { name: string }[] })
    .availableCommands?.[0]?.name;

it.each(["load", "resume"])(
  "an update sent with the session/%s answer is relayed after a restart",
  async (how) => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        defaultAgent: "eager",
        agents: { eager: { command: process.execPath, args: [AGENT, how] } },
      }),
    );
    const first = editors.track(startEditor(home));
    const sessionId = await openSession(first, home);
    first.child.kill("SIGKILL");
    await first.exited;

    const second = editors.track(startEditor(home));
    await second.agent.request("initialize", INIT);
    await second.agent.request(`session/${how}`, {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const early = () =>
      second.updates().find((u) => commandName(u) === `after-${how}`);
    expect(await waitFor(() => early() !== undefined, 3000)).toBe(true);
    expect(early()?.["sessionId"]).toBe(sessionId);
    expect(JSON.stringify(second.updates())).not.toContain(
      "replayed by the agent",
    );
  },
);
