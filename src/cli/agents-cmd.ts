// `acphub agents list` and `acphub agents doctor`: what would launch, and whether it works.
import { connectAgent } from "../agents/connection.js";
import {
  defaultAgentName,
  knownAgentNames,
  resolveAgent,
  type AgentLaunch,
} from "../agents/registry.js";
import { which } from "../agents/which.js";
import { errorMessage, isHubError } from "../shared/errors.js";
import {
  cliContext,
  connectionLimits,
  type CliContext,
  type GlobalOptions,
} from "./context.js";
import { doctorHints } from "./doctor-hints.js";
import { fail } from "./guard.js";
import { sandboxReport } from "./sandbox-doctor.js";
import { sandboxedLaunch } from "./sandbox-wiring.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { safeText } from "./tty/safe-text.js";

const out = (text: string) => process.stdout.write(text);
// Doctor's lines carry what the agent said (its name, errors, stderr): no escape sequences.
const say = (text: string) => out(safeText(text));

// Whether an agent's command is there to run (npx-launched ones count as not installed).
export function installed(launch: AgentLaunch): boolean {
  if (launch.source === "npx" || launch.source === "not-installed")
    return false;
  return launch.source === "bundled" || which(launch.command) !== undefined;
}

export function agentsList(
  options: GlobalOptions & { json?: boolean },
): ExitCode {
  try {
    const { config } = cliContext(options);
    const fallback = defaultAgentName(config);
    const rows = knownAgentNames(config).map((name) => {
      const launch = resolveAgent(name, config);
      const { env: _env, ...shown } = launch;
      return {
        ...shown,
        installed: installed(launch),
        default: name === fallback,
      };
    });
    if (options.json) {
      out(JSON.stringify(rows) + "\n");
      return EXIT_CODES.ok;
    }
    for (const r of rows) {
      const state = r.installed
        ? "installed"
        : r.source === "npx"
          ? "via npx"
          : "not installed";
      const how = [r.command, ...r.args].join(" ");
      out(
        `${r.default ? "*" : " "} ${r.name.padEnd(10)} ${state.padEnd(14)} ${how}${r.installHint && !r.installed ? `   (${r.installHint})` : ""}\n`,
      );
    }
    return EXIT_CODES.ok;
  } catch (error) {
    return fail(error);
  }
}

// Plain words for what went wrong, and what to do about it.
function explain(error: unknown): string {
  if (!isHubError(error)) return errorMessage(error);
  switch (error.code) {
    case "AGENT_SPAWN_FAILED":
      return `it is not installed or not on PATH. ${error.message}`;
    case "INIT_TIMEOUT":
      return error.message.includes("non-JSON")
        ? `it printed something other than ACP to stdout and never answered. ${error.message}`
        : `it did not answer initialize in time (npx installs can be slow the first time; raise timeouts.initializeMs). ${error.message}`;
    case "AGENT_EXITED":
      return `it exited before it was ready. ${error.message}`;
    case "PROTOCOL_VERSION":
      return `it speaks another protocol version. ${error.message}`;
    case "AGENT_PROTOCOL":
      return `it broke the protocol. ${error.message}`;
    case "AUTH_REQUIRED":
      return `it needs you to log in first (auth methods: ${JSON.stringify(error.details["authMethods"] ?? [])}); log in with the agent's own command, then try again.`;
    default:
      return error.message;
  }
}

// The agent's last stderr lines (when the error does not carry them) and hints for the usual
// causes, found in everything the agent said.
function adviceFor(agent: string, error: unknown, tail: string): string[] {
  const details = isHubError(error) ? error.details : {};
  const ownTail =
    typeof details["stderrTail"] === "string" ? details["stderrTail"] : "";
  const lines: string[] = [];
  if (tail && !ownTail)
    lines.push(`agent stderr: ${tail.slice(-MAX_TAIL_CHARS).trim()}`);
  const said = [errorMessage(error), ownTail, tail].join("\n");
  for (const hint of doctorHints(agent, said)) lines.push(`hint: ${hint}`);
  return lines;
}

const MAX_TAIL_CHARS = 2000;

export async function agentsDoctor(
  name: string | undefined,
  options: GlobalOptions,
): Promise<ExitCode> {
  let ctx: CliContext;
  let launch: AgentLaunch;
  const agentName = () => name ?? defaultAgentName(ctx.config);
  try {
    ctx = cliContext(options);
    launch = resolveAgent(agentName(), ctx.config);
  } catch (error) {
    return fail(error);
  }
  say(
    `agent ${agentName()}: ${[launch.command, ...launch.args].join(" ")} (${launch.source})\n`,
  );
  for (const line of await sandboxReport(ctx.config)) say(line);
  try {
    launch = await sandboxedLaunch(
      launch,
      ctx.config,
      ctx.paths,
      process.cwd(),
    );
    return await checkAgent(ctx, launch);
  } catch (error) {
    say(`  failed: ${explain(error)}\n`);
    return toExitCode(error);
  }
}

// Spawns and initializes the agent, opens a session, and prints what it found and how long it took.
async function checkAgent(
  ctx: CliContext,
  launch: AgentLaunch,
): Promise<ExitCode> {
  const started = performance.now();
  const step = () => `${Math.round(performance.now() - started)} ms`;
  let stderrTail = () => "";
  try {
    const agent = await connectAgent({
      launch,
      logger: ctx.logger,
      ...connectionLimits(ctx.config),
    });
    stderrTail = () => agent.process.stderrTail();
    try {
      const init = agent.initializeResponse!;
      say(`  spawn + initialize: ${step()}\n`);
      say(
        `  agent: ${init.agentInfo?.title ?? init.agentInfo?.name ?? "?"} ${init.agentInfo?.version ?? ""}, protocol version ${init.protocolVersion}\n`,
      );
      say(`  capabilities: ${JSON.stringify(init.agentCapabilities ?? {})}\n`);
      say(
        `  auth methods: ${(init.authMethods ?? []).map((m) => m.id).join(", ") || "none"}\n`,
      );
      const before = performance.now();
      const session = await agent.newSession({ cwd: process.cwd() });
      say(
        `  session/new: ${Math.round(performance.now() - before)} ms${session.state.modes ? ", modes" : ""}${session.state.configOptions ? ", config options" : ""}\n`,
      );
      say("ok\n");
      return EXIT_CODES.ok;
    } finally {
      await agent.close();
    }
  } catch (error) {
    say(`  failed after ${step()}: ${explain(error)}\n`);
    for (const line of adviceFor(launch.name, error, stderrTail()))
      say(`  ${line}\n`);
    return toExitCode(error);
  }
}
