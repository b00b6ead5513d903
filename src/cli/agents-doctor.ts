// `acphub agents doctor`: spawn an agent, time initialize and session/new, and when it fails
// say why — its own error, the last lines of its stderr, hints for the known causes. The same
// report as text or, with --json, as one JSON object (docs/cli.md).
import { connectAgent } from "../agents/connection.js";
import {
  defaultAgentName,
  resolveAgent,
  type AgentLaunch,
} from "../agents/registry.js";
import { errorMessage, isHubError } from "../shared/errors.js";
import { explainAgentError } from "./agent-explain.js";
import { cliContext, type GlobalOptions } from "../app/context.js";
import { connectionLimits } from "../agents/limits.js";
import type { AppContext } from "../config/context.js";
import { doctorHints } from "./doctor-hints.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { fail } from "./guard.js";
import { sandboxReport } from "./sandbox-doctor.js";
import { sandboxedLaunch } from "../app/sandbox.js";
import { inertJson, safeText } from "./tty/safe-text.js";

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

/** How many of the agent's last stderr lines a report shows. */
const TAIL_LINES = 12;

export async function agentsDoctor(
  name: string | undefined,
  options: GlobalOptions & { json?: boolean },
): Promise<ExitCode> {
  let ctx: AppContext;
  let launch: AgentLaunch;
  try {
    ctx = cliContext(options);
    launch = resolveAgent(name ?? defaultAgentName(ctx.config), ctx.config);
  } catch (error) {
    return fail(error);
  }
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
  if (!options.json) printHead(report);
  let code: ExitCode;
  try {
    launch = await sandboxedLaunch(
      launch,
      ctx.config,
      ctx.paths,
      process.cwd(),
    );
    code = await checkAgent(ctx, launch, report, !options.json);
  } catch (error) {
    code = failed(report, launch, error, "", !options.json);
  }
  if (options.json) process.stdout.write(inertJson(report) + "\n");
  return code;
}

const say = (text: string) => process.stdout.write(safeText(text));

function printHead(r: DoctorReport): void {
  say(`agent ${r.agent}: ${[r.command, ...r.args].join(" ")} (${r.source})\n`);
  say(`  ${r.sandbox}\n`);
}

// Spawns and initializes the agent and opens a session, noting each step in the report.
async function checkAgent(
  ctx: AppContext,
  launch: AgentLaunch,
  r: DoctorReport,
  text: boolean,
): Promise<ExitCode> {
  const started = performance.now();
  const since = (t: number) => Math.round(performance.now() - t);
  let stderrTail = () => "";
  try {
    const agent = await connectAgent({
      launch,
      logger: ctx.logger,
      ...connectionLimits(ctx.config),
    });
    stderrTail = () => agent.process.stderrTail();
    try {
      noteInit(r, agent.initializeResponse!, since(started));
      if (text) printInit(r);
      const before = performance.now();
      const session = await agent.newSession({ cwd: process.cwd() });
      r.sessionNewMs = since(before);
      r.sessionFeatures = {
        modes: session.state.modes !== undefined,
        configOptions: session.state.configOptions !== undefined,
      };
      r.ok = true;
      if (text) printSession(r);
      return EXIT_CODES.ok;
    } finally {
      await agent.close();
    }
  } catch (error) {
    r.failedAfterMs = since(started);
    return failed(r, launch, error, stderrTail(), text);
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

function printInit(r: DoctorReport): void {
  const info = r.agentInfo;
  say(`  spawn + initialize: ${r.initializeMs} ms\n`);
  say(
    `  agent: ${info?.title ?? info?.name ?? "?"} ${info?.version ?? ""}, protocol version ${r.protocolVersion}\n`,
  );
  say(`  capabilities: ${JSON.stringify(r.capabilities)}\n`);
  say(`  auth methods: ${r.authMethods?.join(", ") || "none"}\n`);
}

function printSession(r: DoctorReport): void {
  const f = r.sessionFeatures!;
  say(
    `  session/new: ${r.sessionNewMs} ms${f.modes ? ", modes" : ""}${f.configOptions ? ", config options" : ""}\nok\n`,
  );
}

// Notes the failure: the error in plain words, the agent's last stderr lines, the hints.
function failed(
  r: DoctorReport,
  launch: AgentLaunch,
  error: unknown,
  liveTail: string,
  text: boolean,
): ExitCode {
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
  if (text) printFailure(r);
  return toExitCode(error);
}

function printFailure(r: DoctorReport): void {
  const after =
    r.failedAfterMs === undefined ? "" : ` after ${r.failedAfterMs} ms`;
  say(`  failed${after}: ${r.error!.explanation}\n`);
  const [first, ...rest] = r.stderrTail;
  if (first !== undefined) {
    const label = "  agent stderr: ";
    say(`${label}${first}\n`);
    for (const line of rest) say(`${" ".repeat(label.length)}${line}\n`);
  }
  for (const hint of r.hints) say(`  hint: ${hint}\n`);
}
