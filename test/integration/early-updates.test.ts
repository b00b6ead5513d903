// An update an agent sends together with its session/new answer (claude-code-acp's command list)
// reaches the editor: found by the interop lab, where acphub dropped it as "unknown session".
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import {
  afterKill,
  editorTracker,
  onlyProtocolOnStdout,
  openSession,
  startEditor,
} from "../helpers/editor.js";
import { tempDir, waitFor } from "../helpers/mock.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const EAGER = fileURLToPath(
  new URL("../helpers/eager-agent.mjs", import.meta.url),
);
const AGENT = fileURLToPath(
  new URL("../helpers/eager-restore-agent.mjs", import.meta.url),
);
const editors = editorTracker();
afterEach(() =>
  editors.cleanup((e) => expect(onlyProtocolOnStdout(e.stdout())).toBe(true)),
);

it("an update sent in the same write as the session/new answer is relayed", async () => {
  const home = tempDir();
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      defaultAgent: "eager",
      agents: { eager: { command: process.execPath, args: [EAGER] } },
    }),
  );
  const e = editors.track(startEditor(home));
  const sessionId = await openSession(e, home);
  const early = () =>
    e
      .updates()
      .find(
        (u) =>
          (u["update"] as { sessionUpdate?: string }).sessionUpdate ===
          "available_commands_update",
      );
  expect(await waitFor(() => early() !== undefined)).toBe(true);
  expect(early()?.["sessionId"]).toBe(sessionId);
});

// Issue 15 item 2 for restores: the same for session/load and session/resume, and load's own
// replay still does not reach the editor.
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
    const { second, sessionId } = await afterKill(
      (e) => editors.track(e),
      home,
    );
    await second.agent.request(`session/${how}`, {
      sessionId,
      cwd: home,
      mcpServers: [],
    });
    const early = () =>
      second.updates().find((u) => commandName(u) === `after-${how}`);
    expect(await waitFor(() => early() !== undefined)).toBe(true);
    expect(early()?.["sessionId"]).toBe(sessionId);
    expect(JSON.stringify(second.updates())).not.toContain(
      "replayed by the agent",
    );
  },
);
