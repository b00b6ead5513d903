// One lab run for one real agent: the fake model, a workspace, an ACPHUB_HOME whose config
// launches the installed agent (optionally through the recording wrapper), and a marker in the
// agent's environment that finds every process it left behind.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI, tempDir } from "../../helpers/mock.js";
import { startFakeModel, type FakeModel } from "../fake-model/server.mjs";
import { writeAcphubHome } from "./acphub-home.mjs";
import { agentLaunch } from "./agent-env.mjs";
import type { AgentName } from "./versions.mjs";

const TEE = fileURLToPath(new URL("./tee-agent.mjs", import.meta.url));

export interface Lab {
  agent: AgentName;
  model: FakeModel;
  root: string;
  /** The session's workspace (cwd). */
  work: string;
  /** ACPHUB_HOME of the acphub under test. */
  home: string;
  /** The file the recording wrapper writes the agent's stdout frames to. */
  record: string;
  /** The environment for spawning acphub. */
  acphubEnv: Record<string, string>;
  /** The agent launched directly (no acphub), for the SDK editor. */
  direct: {
    command: string;
    args: string[];
    env: Record<string, string>;
    cwd: string;
  };
  /** Live processes whose environment carries this run's marker ("pid command line"). */
  leftovers(): string[];
  close(): Promise<void>;
}

// Live (not zombie) processes whose environment has `marker`, as "pid command line".
function processesWith(marker: string): string[] {
  const pids: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (Number(entry) === process.pid) continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").includes(marker))
        pids.push(
          `${entry} ${readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").slice(0, 120)}`,
        );
    } catch {
      /* gone or not ours to read */
    }
  }
  return pids;
}

/** Sets up a lab run; `tee` records the agent's frames (for the relay comparison). */
export async function openLab(
  agent: AgentName,
  opts: { tee?: boolean } = {},
): Promise<Lab> {
  const root = tempDir(`acphub-interop-${agent}-`); // removed after its test file
  const work = join(root, "work");
  const home = join(root, "acphub-home");
  mkdirSync(work, { recursive: true });
  mkdirSync(home, { recursive: true });
  const model = await startFakeModel();
  const launch = agentLaunch(agent, join(root, "agent"), model.url);
  const marker = `ACPHUB_INTEROP_RUN=${root}`;
  const env = { ...launch.env, ACPHUB_INTEROP_RUN: root };
  const record = join(root, "agent-frames.jsonl");
  const entry = opts.tee
    ? {
        command: process.execPath,
        args: [TEE, record, launch.command, ...launch.args],
        env,
      }
    : { command: launch.command, args: launch.args, env };
  writeAcphubHome(home, agent, entry);
  return {
    agent,
    model,
    root,
    work,
    home,
    record,
    acphubEnv: {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      ACPHUB_HOME: home,
      ACPHUB_INTEROP_RUN: `${root}-hub`,
    },
    direct: { command: launch.command, args: launch.args, env, cwd: work },
    leftovers: () =>
      processesWith(marker + "\0").concat(processesWith(marker + "-hub\0")),
    // Kills whatever a failed test left running, then stops the model.
    close: async () => {
      for (const p of processesWith(marker + "\0").concat(
        processesWith(marker + "-hub\0"),
      ))
        try {
          process.kill(Number(p.split(" ")[0]), "SIGKILL");
        } catch {
          /* gone */
        }
      await model.close();
    },
  };
}

/** The argv that starts the built acphub CLI. */
export function acphubArgv(...args: string[]): string[] {
  return [CLI, ...args];
}

/** Every frame the agent wrote (read from the recording), in order. */
export function recordedFrames(lab: Lab): Record<string, unknown>[] {
  return readFileOr(lab.record)
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Session updates the agent wrote, in order. */
export function recordedUpdates(lab: Lab): Record<string, unknown>[] {
  return recordedFrames(lab)
    .filter((m) => m["method"] === "session/update")
    .map((m) => (m["params"] ?? {}) as Record<string, unknown>);
}

/** A file's text, or "" when it does not exist. */
export function readFileOr(path: string | undefined): string {
  try {
    return path ? readFileSync(path, "utf8") : "";
  } catch {
    return "";
  }
}

/** Keeps what a failed run saw (editor frames, stderr, the model's log) in the lab folder. */
export function dumpOnFailure(
  lab: Lab,
  editors: { frames: unknown[]; stderr: () => string }[],
): void {
  editors.forEach((e, i) => {
    writeFileSync(
      join(lab.root, `editor-${i}-frames.jsonl`),
      e.frames.map((f) => JSON.stringify(f)).join("\n"),
    );
    writeFileSync(join(lab.root, `editor-${i}-stderr.txt`), e.stderr());
  });
  writeFileSync(
    join(lab.root, "model-log.json"),
    JSON.stringify(lab.model.log, null, 1),
  );
  process.stderr.write(
    `interop: ${lab.agent} failed; frames, stderr and the model's log are in ${lab.root}\n`,
  );
}
