// `acphub agents doctor`: the check of an agent (app/agent-doctor.ts) shown as it goes, or,
// with --json, the same report as one JSON object (docs/cli.md).
import { cliContext } from "../app/context.js";
import {
  checkAgent,
  doctorReport,
  type DoctorReport,
  type DoctorStep,
} from "../app/agent-doctor.js";
import { EXIT_CODES, toExitCode, type ExitCode } from "./exit-codes.js";
import { fail, type JsonOptions } from "./guard.js";
import { inertJson, safeText } from "./tty/safe-text.js";

export async function agentsDoctor(
  name: string | undefined,
  options: JsonOptions,
): Promise<ExitCode> {
  let started;
  try {
    const ctx = cliContext(options);
    started = { ctx, ...(await doctorReport(ctx, name)) };
  } catch (error) {
    return fail(error);
  }
  const { ctx, report, launch } = started;
  const text = !options.json;
  if (text) printHead(report);
  const error = await checkAgent(ctx, launch, report, (step) => {
    if (text) PRINT[step](report);
  });
  if (options.json) process.stdout.write(inertJson(report) + "\n");
  return report.ok ? EXIT_CODES.ok : toExitCode(error);
}

const say = (text: string) => process.stdout.write(safeText(text));

function printHead(r: DoctorReport): void {
  say(`agent ${r.agent}: ${[r.command, ...r.args].join(" ")} (${r.source})\n`);
  say(`  ${r.sandbox}\n`);
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

/** What a person sees after each step of the check. */
const PRINT: Record<DoctorStep, (r: DoctorReport) => void> = {
  initialize: printInit,
  session: printSession,
  failure: printFailure,
};
