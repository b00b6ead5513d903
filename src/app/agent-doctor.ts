// What `acphub agents doctor` asks: spawn an agent, time initialize and session/new, and when
// it fails say why — its own error, the last lines of its stderr, hints for the known causes.
import { connectAgent } from "../agents/connection.js";
import { connectionLimits } from "../agents/limits.js";
import {
  defaultAgentName,
  resolveAgent,
  type AgentLaunch,
} from "../agents/registry.js";
import { errorMessage, isHubError } from "../shared/errors.js";
import type { AppContext } from "../config/context.js";
import { explainAgentError } from "./agent-explain.js";
import { doctorHints } from "./doctor-hints.js";
import { sandboxReport } from "./sandbox-doctor.js";
import { sandboxedLaunch } from "./sandbox.js";

/** The report `agents doctor --json` prints. */
export interface DoctorReport {
  agent: string;
  command: string;
  args: string[];
  source: string;
  sandbox: string;
  ok: boolean;
  initializeMs?: number;
  agentInfo?: { name?: string; title?: string | null; version?: string };
  protocolVersion?: number;
  capabilities?: unknown;
  authMethods?: string[];
  sessionNewMs?: number;
  sessionFeatures?: { modes: boolean; configOptions: boolean };
  failedAfterMs?: number;
  error?: { code: string; message: string; explanation: string };
  stderrTail: string[];
  hints: string[];
}

/** Each step of the check as it is noted in the report, for a person watching it. */
export type DoctorStep = "initialize" | "session" | "failure";

/** How many of the agent's last stderr lines a report shows. */
const TAIL_LINES = 12;

// The report's head for the named (or default) agent; a name acphub does not know throws.
export async function doctorReport(
  ctx: AppContext,
  name: string | undefined,
): Promise<{ report: DoctorReport; launch: AgentLaunch }> {
  const launch = resolveAgent(name ?? defaultAgentName(ctx.config), ctx.config);
  const report: DoctorReport = {
    agent: launch.name,
    command: launch.command,
    args: launch.args,
    source: launch.source,
    sandbox: (await sandboxReport(ctx.config)).join("").trim(),
    ok: false,
    stderrTail: [],
    hints: [],
  };
  return { report, launch };
}

// Checks the agent, noting each step in the report; the error it failed with, if any.
export async function checkAgent(
  ctx: AppContext,
  launch: AgentLaunch,
  r: DoctorReport,
  noted: (step: DoctorStep) => void,
): Promise<unknown> {
  let stderrTail = () => "";
  try {
    launch = await sandboxedLaunch(
      launch,
      ctx.config,
      ctx.paths,
      process.cwd(),
    );
  } catch (error) {
    return failed(r, launch, error, "", noted);
  }
  const started = performance.now();
  const since = (t: number) => Math.round(performance.now() - t);
  try {
    const agent = await connectAgent({
      launch,
      logger: ctx.logger,
      ...connectionLimits(ctx.config),
    });
    stderrTail = () => agent.process.stderrTail();
    try {
      noteInit(r, agent.initializeResponse!, since(started));
      noted("initialize");
      const before = performance.now();
      const session = await agent.newSession({ cwd: process.cwd() });
      r.sessionNewMs = since(before);
      r.sessionFeatures = {
        modes: session.state.modes !== undefined,
        configOptions: session.state.configOptions !== undefined,
      };
      r.ok = true;
      noted("session");
      return undefined;
    } finally {
      await agent.close();
    }
  } catch (error) {
    r.failedAfterMs = since(started);
    return failed(r, launch, error, stderrTail(), noted);
  }
}

type InitAnswer = NonNullable<
  Awaited<ReturnType<typeof connectAgent>>["initializeResponse"]
>;

function noteInit(r: DoctorReport, init: InitAnswer, ms: number): void {
  r.initializeMs = ms;
  r.agentInfo = init.agentInfo ?? undefined;
  r.protocolVersion = init.protocolVersion;
  r.capabilities = init.agentCapabilities ?? {};
  r.authMethods = (init.authMethods ?? []).map((m) => m.id);
}

// Notes the failure: the error in plain words, the agent's last stderr lines, the hints.
function failed(
  r: DoctorReport,
  launch: AgentLaunch,
  error: unknown,
  liveTail: string,
  noted: (step: DoctorStep) => void,
): unknown {
  const details = isHubError(error) ? error.details : {};
  const tail =
    typeof details["stderrTail"] === "string" && details["stderrTail"]
      ? details["stderrTail"]
      : liveTail;
  r.stderrTail = tail.trimEnd().split("\n").filter(Boolean).slice(-TAIL_LINES);
  const message = errorMessage(error).split("; stderr: ")[0]!;
  r.error = {
    code: isHubError(error) ? error.code : "INTERNAL",
    message,
    explanation: explainAgentError(error, message),
  };
  r.hints = doctorHints({
    agent: launch.name,
    command: launch.command,
    said: [errorMessage(error), tail].join("\n"),
    env: launch.env,
    uid: process.getuid?.(),
  });
  noted("failure");
  return error;
}
