// Issue 14's "done when" against real agents, through `acphub acp` (and fork through
// `acphub serve`, reached by `acphub acp --hub`): switching the model
// (session/set_model, or the model config option where that is what the agent offers) changes
// the model the agent asks the model server for; session/set_mode is kept by acphub; both
// survive a restart (session/load answers them and the agent uses them again); session/fork
// gives a new session that keeps the parent's settings, whose first prompt has the parent's
// context and whose session/load replays the parent's history.
import { join } from "node:path";
import { describe, expect, it, onTestFailed } from "vitest";
import { startHub } from "../helpers/hub.js";
import {
  dumpOnFailure,
  readFileOr,
  recordedFrames,
  type Lab,
} from "./lab/lab.js";
import * as scenario from "./lab/scenario.js";
import {
  messageText,
  labRuns,
  promptTurn,
  type LabEditor,
} from "./lab/turns.js";
import { TRAITS } from "./lab/traits.js";
import { AGENT_NAMES } from "./lab/versions.mjs";

const runs = labRuns();

interface Settings {
  modes?: { currentModeId: string; availableModes: { id: string }[] };
  models?: { currentModelId: string; availableModels: { modelId: string }[] };
  configOptions?: {
    id: string;
    category?: string;
    currentValue?: unknown;
    options?: { value: string }[];
  }[];
}
type Opened = Settings & { sessionId: string };

/** How one agent switches its model, and where its answers show the current one. */
interface ModelSwitch {
  method: string;
  params: Record<string, unknown>;
  chosen: string;
  current: (s: Settings) => unknown;
}

// Another value than the current one, from a list of ids.
function other(current: unknown, ids: string[]): string | undefined {
  return ids.find((id) => id !== current);
}

// The agent's way to switch models: set_model when it reported models, else its model option.
function modelSwitchOf(s: Settings): ModelSwitch | undefined {
  const ids = s.models?.availableModels.map((m) => m.modelId) ?? [];
  const model = other(s.models?.currentModelId, ids);
  if (model)
    return {
      method: "session/set_model",
      params: { modelId: model },
      chosen: model,
      current: (x) => x.models?.currentModelId,
    };
  const option = s.configOptions?.find((o) => o.category === "model");
  const values = option?.options?.map((o) => o.value) ?? [];
  const value = other(option?.currentValue, values);
  if (!option || !value) return undefined;
  return {
    method: "session/set_config_option",
    params: { configId: option.id, value },
    chosen: value,
    current: (x) =>
      x.configOptions?.find((o) => o.id === option.id)?.currentValue,
  };
}

// Starts `acphub acp` for the lab's agent (`args`: through a hub) and initializes it.
async function acphubEditor(l: Lab, args: string[] = []): Promise<LabEditor> {
  const e = runs.acphub(l, true, args);
  await e.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: e.clientCapabilities,
  });
  return e;
}

// The model requests (not count_tokens, not model lists) the agent made after log line `from`.
function askedSince(l: Lab, from: number) {
  return l.model.log.slice(from).filter((line) => line.api !== undefined);
}

// One prompt that must end well; the model it was answered by, and the context it was given.
async function promptOk(l: Lab, e: LabEditor, id: string, text: string) {
  const from = l.model.log.length;
  const turn = await promptTurn(e, id, text);
  expect(turn.response.stopReason).toBe("end_turn");
  const last = askedSince(l, from).at(-1);
  return {
    text: messageText(turn.updates),
    model: last?.model,
    context: last?.context ?? [],
  };
}

// session/new, or session/fork of `sessionId`, in the lab's workspace.
const opened = (e: LabEditor, l: Lab, forkOf?: string) =>
  e.agent.request<Opened>(forkOf ? "session/fork" : "session/new", {
    ...(forkOf ? { sessionId: forkOf } : {}),
    cwd: l.work,
    mcpServers: [],
  });

const load = (e: LabEditor, l: Lab, sessionId: string) =>
  e.agent.request<Settings>("session/load", {
    sessionId,
    cwd: l.work,
    mcpServers: [],
  });

describe.each(AGENT_NAMES)("%s behind acphub acp", (agent) => {
  it("model and mode switched and kept across a restart; fork with the parent's context", async () => {
    const l = await runs.open(agent, { tee: true });
    onTestFailed(() => dumpOnFailure(l, runs.editors));
    const ed = await acphubEditor(l);
    const created = await opened(ed, l);
    const { sessionId } = created;
    const t1 = await promptOk(l, ed, sessionId, scenario.turnText());

    // The model: the next prompt asks the model server for another model.
    const sw = modelSwitchOf(created);
    let switchedTo: string | undefined;
    if (sw) {
      await ed.agent.request(sw.method, { sessionId, ...sw.params });
      const t2 = await promptOk(l, ed, sessionId, scenario.turnModel());
      expect(t2.text).toContain(scenario.TOKENS.model);
      expect(t2.model).toBeDefined();
      expect(t2.model).not.toBe(t1.model);
      switchedTo = t2.model;
    }

    // The mode: acphub's state follows (session/resume answers acphub's view).
    const modes = created.modes;
    const quiet = TRAITS[agent].quietEditsMode;
    const mode =
      quiet ??
      other(modes?.currentModeId, modes?.availableModes.map((m) => m.id) ?? []);
    if (mode) {
      await ed.agent.request("session/set_mode", { sessionId, modeId: mode });
      const now = await ed.agent.request<Settings>("session/resume", {
        sessionId,
        cwd: l.work,
        mcpServers: [],
      });
      expect(now.modes?.currentModeId).toBe(mode);
    }

    // Fork (served for every agent): the parent's settings and context.
    const fork = await opened(ed, l, sessionId);
    expect(fork.sessionId).not.toBe(sessionId);
    if (sw) expect(sw.current(fork)).toBe(sw.chosen);
    if (mode) expect(fork.modes?.currentModeId).toBe(mode);
    const t3 = await promptOk(l, ed, fork.sessionId, scenario.turnFork());
    expect(t3.text).toContain(scenario.TOKENS.fork);
    expect(t3.context).toContain(scenario.TOKENS.one);
    if (switchedTo) expect(t3.model).toBe(switchedTo);

    // A restart: load answers what was chosen, and the agent uses it again.
    await ed.close();
    const ed2 = await acphubEditor(l);
    const loaded = await load(ed2, l, sessionId);
    if (sw) expect(sw.current(loaded)).toBe(sw.chosen);
    if (mode) expect(loaded.modes?.currentModeId).toBe(mode);
    // In a mode that edits without asking, the restored agent session writes without asking
    // (acphub's own policy may still ask the editor: that is acphub's, not the agent's mode).
    const agentAsked = () =>
      recordedFrames(l).filter(
        (f) => f["method"] === "session/request_permission",
      ).length;
    const askedBefore = agentAsked();
    const t4 = await promptOk(
      l,
      ed2,
      sessionId,
      quiet ? scenario.turnQuietWrite(l.work) : scenario.turnAfterRestart(),
    );
    expect(t4.text).toContain(scenario.TOKENS.four);
    if (switchedTo) expect(t4.model).toBe(switchedTo);
    expect(t4.context).not.toContain(scenario.TOKENS.fork);
    if (quiet) {
      expect(readFileOr(join(l.work, "quiet.txt"))).toBe(scenario.FILE_CONTENT);
      expect(agentAsked()).toBe(askedBefore);
    }

    // The fork replays the parent's history, then its own.
    const before = ed2.updates().length;
    await load(ed2, l, fork.sessionId);
    const replayed = messageText(ed2.updates().slice(before));
    expect(replayed).toContain(scenario.TOKENS.one);
    expect(replayed).toContain(scenario.TOKENS.fork);
    expect(replayed).not.toContain(scenario.TOKENS.four);
    expect(l.model.unknown()).toEqual([]);
  });
});

describe.each(AGENT_NAMES)("%s behind acphub serve", (agent) => {
  it("a fork made by one client is a hub session: its first prompt has the parent's context, another client loads it", async () => {
    const l = await runs.open(agent);
    onTestFailed(() => dumpOnFailure(l, runs.editors));
    const hub = await startHub(l.home, [], l.acphubEnv);
    try {
      const hubArgs = ["--hub", hub.url];
      const ed = await acphubEditor(l, hubArgs);
      const created = await opened(ed, l);
      const { sessionId } = created;
      const t1 = await promptOk(l, ed, sessionId, scenario.turnText());
      const sw = modelSwitchOf(created);
      if (sw) await ed.agent.request(sw.method, { sessionId, ...sw.params });
      const fork = await opened(ed, l, sessionId);
      if (sw) expect(sw.current(fork)).toBe(sw.chosen);
      const t2 = await promptOk(l, ed, fork.sessionId, scenario.turnFork());
      expect(t2.text).toContain(scenario.TOKENS.fork);
      expect(t2.context).toContain(scenario.TOKENS.one);
      if (sw) expect(t2.model).not.toBe(t1.model);

      const other = await acphubEditor(l, hubArgs);
      await load(other, l, fork.sessionId);
      const replayed = messageText(other.updates());
      expect(replayed).toContain(scenario.TOKENS.one);
      expect(replayed).toContain(scenario.TOKENS.fork);
      expect(l.model.unknown()).toEqual([]);
    } finally {
      hub.child.kill("SIGTERM");
      await hub.exited;
    }
  });
});
