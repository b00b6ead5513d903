// acphub acp in front of each real agent, driven by an SDK client acting as the editor: once
// advertising fs and terminal (acphub forwards them to the editor) and once advertising neither
// (acphub's own host services do the work). The whole scenario, then kill -9 and session/load.
import { existsSync } from "node:fs";
import { describe, expect, it, onTestFailed } from "vitest";
import {
  recordedFrames,
  dumpOnFailure,
  readFileOr,
  recordedUpdates,
} from "./lab/lab.js";
import * as scenario from "./lab/scenario.js";
import {
  cancelledTurn,
  messageChunks,
  messageText,
  promptTurn,
  labRuns,
  questionsPerToolCall,
  until,
  withoutSessionId,
  type LabEditor,
} from "./lab/turns.js";
import { AGENT_NAMES } from "./lab/versions.mjs";

const runs = labRuns();
const acphubEditor = runs.acphub;

interface Created {
  sessionId: string;
  modes?: { currentModeId: string; availableModes: { id: string }[] };
}

async function open(e: LabEditor, cwd: string): Promise<Created> {
  await e.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: e.clientCapabilities,
  });
  return e.agent.request<Created>("session/new", { cwd, mcpServers: [] });
}

describe.each(AGENT_NAMES)("%s behind acphub acp", (agent) => {
  it.each([
    ["with fs and terminal", true],
    ["with neither fs nor terminal", false],
  ])(
    "editor %s: stream, tools, cancel, kill -9, load",
    async (_label, caps) => {
      const l = await runs.open(agent, { tee: true });
      onTestFailed(() => dumpOnFailure(l, runs.editors));
      const ed = acphubEditor(l, caps);
      const created = await open(ed, l.work);
      const { sessionId } = created;

      const t1 = await promptTurn(ed, sessionId, scenario.turnText());
      expect(t1.response.stopReason).toBe("end_turn");
      expect(messageText(t1.updates)).toContain(scenario.TOKENS.one);
      expect(
        messageChunks(t1.updates).filter((c) => c !== "").length,
      ).toBeGreaterThan(1);

      const t2 = await promptTurn(ed, sessionId, scenario.turnTools(l.work));
      expect(t2.response.stopReason).toBe("end_turn");
      for (const file of scenario.FILES(l.work))
        expect.soft(existsSync(file), file).toBe(true);
      expect
        .soft(readFileOr(scenario.FILES(l.work)[0]))
        .toContain(scenario.FILE_CONTENT);
      const reply = messageText(t2.updates);
      expect.soft(reply).toContain(scenario.TOKENS.two);
      expect.soft(reply).toContain(scenario.FILE_CONTENT);
      expect.soft(reply).toContain(scenario.SHELL_TOKEN);
      for (const [id, n] of questionsPerToolCall(ed.permissions))
        expect.soft(n, `questions for ${id}`).toBe(1);
      // One question per action: the editor is asked exactly what the agent asked, nothing more.
      const agentAsked = recordedFrames(l).filter(
        (f) => f["method"] === "session/request_permission",
      );
      expect.soft(ed.permissions.length).toBe(agentAsked.length);

      const t3 = await cancelledTurn(ed, sessionId, scenario.turnSlow());
      expect(t3.streaming).toBe(true);
      expect(t3.response.stopReason).toBe("cancelled");
      expect(
        await until(
          () => l.model.log.some((line) => line.aborted === true),
          15_000,
        ),
      ).toBe(true);

      // What the editor got is what the agent sent, but for session ids.
      const sent = () => recordedUpdates(l).map(withoutSessionId);
      await until(() => sent().length === ed.updates().length, 3000);
      expect(ed.updates().map(withoutSessionId)).toEqual(sent());

      // kill -9: agents that outlive their stdin (claude, codex) are reaped by the next acphub.
      const before = l.leftovers();
      ed.child.kill("SIGKILL");
      await ed.exited;
      const ed2 = acphubEditor(l, caps);
      await ed2.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: ed2.clientCapabilities,
      });
      const orphaned = () => l.leftovers().filter((p) => before.includes(p));
      expect(
        await until(() => orphaned().length === 0, 15_000),
        `left: ${orphaned().join("; ")}`,
      ).toBe(true);
      await ed2.agent.request("session/load", {
        sessionId,
        cwd: l.work,
        mcpServers: [],
      });
      const replayed = messageText(ed2.updates());
      expect(replayed).toContain(scenario.TOKENS.one);
      expect(replayed).toContain(scenario.TOKENS.two);
      const t4 = await promptTurn(ed2, sessionId, scenario.turnAfterRestart());
      expect(t4.response.stopReason).toBe("end_turn");
      expect(messageText(t4.updates)).toContain(scenario.TOKENS.four);
      expect(l.model.unknown()).toEqual([]);

      // The agent's own modes pass through acphub (models, modes and fork across a restart:
      // session-methods.interop.test.ts).
      const modes = created.modes;
      const other = modes?.availableModes.find(
        (m) => m.id !== modes.currentModeId,
      );
      if (other)
        await expect(
          ed2.agent.request("session/set_mode", {
            sessionId,
            modeId: other.id,
          }),
        ).resolves.toBeDefined();

      ed2.child.stdin.end();
      await ed2.exited;
      expect(
        await until(() => l.leftovers().length === 0, 15_000),
        `left: ${l.leftovers().join("; ")}`,
      ).toBe(true);
    },
  );
});
